"""What a store keeps of a room: its record (seats, options, how the match was dealt, its version
and turn deadline) and its accepted actions, one entry each.

Written by :meth:`server.rooms.core.RoomCore.meta` and read back by
:meth:`~server.rooms.core.RoomCore.from_stored`; the stores (:mod:`server.store`) keep them as
JSON and read only ``version``. Keys marked ``NotRequired`` are absent from records written
before they existed: readers give them their old meaning.
"""

from __future__ import annotations

from typing import NotRequired, TypedDict

from protocol.messages import GameName, SeatKind


class SeatRecord(TypedDict):
    """One seat: who sits there (never the live connection)."""

    kind: SeatKind
    name: str | None
    # the seat token's SHA-256 in hex, never the token (absent: a record from before digests,
    # which kept ``token`` itself)
    token_sha256: NotRequired[str | None]
    token: NotRequired[str | None]
    level: str | None
    device: NotRequired[str | None]  # a digest of the player's device token, for results
    origin: NotRequired[str | None]  # a keyed digest of their address, for bans and mutes
    since: NotRequired[int]  # the order of seatings (absent: seat order)
    # the digest the last resume replaced and the unix time until which it still resumes
    previous: NotRequired[list[str | float] | None]


class MatchMeta(TypedDict):
    """How a match was dealt and how many games it has begun, without the actions."""

    game: str
    players: int
    seed: int | None
    daily: str | None  # the daily deal's date, ISO
    games: int
    dealer: NotRequired[int]
    # each dealt game's contributions, hex (None: that seat sent none)
    contributions: NotRequired[list[list[str | None]]]
    options: NotRequired[dict[str, object]]  # the house rules; absent in older records: defaults


class MatchRecord(MatchMeta):
    """A match with its actions: each game's ``[seat, "play 7D"]`` pairs in order."""

    logs: list[list[list[int | str]]]


class TableRecord(TypedDict):
    """The event table a room is: its event, round and table, the hands it plays, and whether
    it deals the event's duplicate deals."""

    event: str
    nonce: str  # the event's nonce: its seed is the server's keys' for its code and this
    round: int
    table: int
    hands: int
    duplicate: bool


class _Room(TypedDict):
    code: str
    game: GameName
    players: int
    seed: int | None  # None: dealt fairly (from the server's keys and the nonce)
    nonce: NotRequired[str | None]  # absent: a record from before fair deals
    # each seat's value for the next deal (hex), until it is dealt
    contributed: NotRequired[dict[str, str]]
    options: dict[str, object] | None
    turn_timer: int | None
    daily: bool
    hints: NotRequired[bool]
    time_bank: NotRequired[int | None]
    rated: NotRequired[bool]  # its games move ratings (absent in older records: not rated)
    ladder: NotRequired[bool]  # a table of the bots' ladder: its games move ladder ratings
    # a rated room: each seat's identity when its rated game or match was dealt (None: unrated)
    rated_seats: NotRequired[list[str | None]]
    deserted: NotRequired[dict[str, str]]  # seat -> name: its rated player left during it
    opener: NotRequired[str | None]  # a keyed digest of the opener's address (fairness, caps)
    daily_date: str | None
    # a daily match: whether it is its player's first of the day (absent in older records)
    daily_ranked: NotRequired[bool | None]
    locked: bool
    host: int | None
    again: NotRequired[list[str | int] | None]  # where the table plays again: code, seat, name
    banned: NotRequired[list[str]]
    muted_seats: NotRequired[list[int]]
    muted_devices: NotRequired[list[str]]
    # addresses banned and muted (keyed digests), each with the devices there it spares
    banned_origins: NotRequired[dict[str, list[str]]]
    muted_origins: NotRequired[dict[str, list[str]]]
    version: int
    # the current version's turn deadline, [version, unix time] (actions carry later ones)
    deadline: NotRequired[list[float] | None]
    seats: list[SeatRecord]
    table: NotRequired[TableRecord | None]  # absent or None: not an event's table


class RoomMeta(_Room):
    """A room's record without the actions (those are stored one by one)."""

    match: MatchMeta | None


class RoomRecord(_Room):
    """A room with every action: enough to rebuild it anywhere."""

    match: MatchRecord | None


class ActionEntry(TypedDict):
    """One accepted action in a room's stored log."""

    v: int  # the version it made
    g: int  # the game of the match it was played in
    s: int  # the seat
    a: str  # the action's text, such as ``"play 7D"``
    d: NotRequired[float]  # the new version's turn deadline, when a human's seat must act in it
