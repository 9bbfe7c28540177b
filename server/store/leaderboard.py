"""Leaderboards: the daily Sheepshead table and the all-time tables of both games.

There are no accounts: a player is the device token their client keeps plus the display name
they chose. Boards never show the token: an entry is keyed by a digest of it
(:attr:`Player.id`), and shows the latest name that device played under.

Only the server writes here, from results its rules cores computed at the end of a game: no
message of the protocol carries a score.

- ``daily:YYYY-MM-DD``: one human against four bots on the day's deals (SS-9.2); one entry per
  device per day, ranked by units; the first finished match of the day counts, a second one on
  the same deals does not replace it. Daily tables are kept :data:`DAILY_TTL` seconds.
- ``sheepshead``: units won over every hand ever finished.
- ``shithead``: games finished without being the shithead.

Ranks are competition ranks: equal scores share a rank, the next rank skips (1, 2, 2, 4).

>>> Board.parse("daily:2026-11-30").key
'daily:2026-11-30'
>>> Board.parse("shithead") == Board.alltime("shithead")
True
>>> Player("a-device-token", "Ann").id == Player("a-device-token", "Ann B.").id
True
>>> Player.known(player_id("a-device-token"), "Ann").id == Player("a-device-token", "Ann").id
True
"""

from __future__ import annotations

import datetime
import hashlib
import heapq
from abc import ABC, abstractmethod
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import ClassVar, Literal, get_args

GameName = Literal["shithead", "sheepshead"]
GAMES: tuple[GameName, ...] = get_args(GameName)

#: Seconds a day's daily table is kept.
DAILY_TTL = 40 * 24 * 3600
#: (board, origin) pairs whose claims an in-memory store keeps.
MAX_CLAIMS = 100_000
#: Results' names kept to count a result recorded twice once (a retry follows its first try
#: within seconds); beyond, the oldest are forgotten, as Redis lets them expire.
MAX_SEEN = 200_000
#: Seconds a daily board's claims are kept in Redis (the day, and a margin).
CLAIM_TTL = 2 * 24 * 3600


class BadBoard(ValueError):
    """A board name that names no board."""


@dataclass(frozen=True, slots=True)
class Board:
    """One table: a day's daily Sheepshead (``day``), or a game's all-time table."""

    game: GameName
    day: datetime.date | None = None

    @classmethod
    def daily(cls, day: datetime.date) -> Board:
        return cls("sheepshead", day)

    @classmethod
    def alltime(cls, game: GameName) -> Board:
        return cls(game)

    @property
    def key(self) -> str:
        return f"daily:{self.day.isoformat()}" if self.day else self.game

    @property
    def once_per_player(self) -> bool:
        """Daily boards keep each player's first score; all-time boards add them up."""
        return self.day is not None

    @classmethod
    def parse(cls, text: str, today: datetime.date | None = None) -> Board:
        """``daily`` (today, UTC), ``daily:YYYY-MM-DD``, ``sheepshead`` or ``shithead``.

        Raises:
            BadBoard: no such board.
        """
        kind, _, day = text.partition(":")
        if kind == "daily":
            if not day:
                return cls.daily(today or datetime.datetime.now(datetime.UTC).date())
            try:
                return cls.daily(datetime.date.fromisoformat(day))
            except ValueError:
                raise BadBoard(f"not a date: {day!r}") from None
        for game in GAMES:
            if text == game:
                return cls.alltime(game)
        raise BadBoard(f"no board {text!r}: daily, daily:YYYY-MM-DD, {', '.join(GAMES)}")


def device_origin(device: str) -> str:
    """The part of a server-issued device identity that names (as a keyed digest) the
    address it was issued to: identities hoarded from one address share it.

    >>> device_origin("cr1" + "AbCdEfGh" + "x" * 32)
    'AbCdEfGh'
    """
    return device[3:11]


#: How a bot identity's token begins (a person's begins ``cr1``): the server signs which it is,
#: so an identity is a bot's or a person's for good (:mod:`server.net.devices`).
BOT_PREFIX = "cb1"


def is_bot_device(device: str | None) -> bool:
    """Whether ``device`` (a token the server issued: check that first) is a bot identity.

    >>> is_bot_device("cb1" + "x" * 40), is_bot_device("cr1" + "x" * 40), is_bot_device(None)
    (True, False, False)
    """
    return device is not None and device.startswith(BOT_PREFIX)


def player_id(device: str) -> str:
    """The key of a device on every board: a digest, so boards (and the room records that
    keep it for their seats) never hold the token itself."""
    return hashlib.sha256(device.encode()).hexdigest()[:20]


@dataclass(frozen=True, slots=True)
class Player:
    """A player without an account: the client's device token and the name shown.

    A room keeps only the digest of its seats' tokens (:func:`player_id`); a player known by
    that digest alone is :meth:`known`.
    """

    device: str = field(repr=False)  # "" when only the digest is known
    name: str
    digest: str = field(default="", repr=False)

    @classmethod
    def known(cls, digest: str, name: str) -> Player:
        """The player whose device token has the digest ``digest`` (a :func:`player_id`)."""
        return cls("", name, digest)

    @property
    def id(self) -> str:
        """The key of this device on every board (a digest: boards never show tokens)."""
        return self.digest or player_id(self.device)


@dataclass(frozen=True, slots=True)
class Entry:
    rank: int
    player: str  # Player.id
    name: str
    score: int
    games: int


class Leaderboards(ABC):
    """Where finished results are recorded and boards are read."""

    #: Whether calls finish without waiting on I/O (as :attr:`RoomStore.completes_at_once`).
    completes_at_once: ClassVar[bool] = False

    @abstractmethod
    async def record(
        self, board: Board, player: Player, score: int, *, event: str | None = None
    ) -> bool:
        """Add one finished result (a daily match's units; a hand's units; 1 or 0 for a
        Shithead game). ``False`` when a daily board already had this player's entry, or
        when ``event`` (the result's own name, such as room, deal and game) was recorded for
        this player on this board before: a result recorded twice counts once.

        Raises:
            StoreUnavailable: the store cannot be reached.
        """

    @abstractmethod
    async def claim(self, board: Board, origin: str, player_id: str, limit: int) -> bool:
        """Whether ``player_id`` is among the first ``limit`` players of identities from
        ``origin`` (:func:`device_origin`) to claim an entry on ``board`` (claiming again is
        answered the same: safe to repeat).

        Raises:
            StoreUnavailable: the store cannot be reached.
        """

    @abstractmethod
    async def first_daily(self, board: Board, player_id: str, match: str) -> bool:
        """Whether ``match`` (a room's own name for its daily match) is the first daily match
        ``player_id`` started for ``board``'s day: the first to ask for a player and day keeps
        it, and asking again for the same match is answered the same (safe to repeat). Only
        that match may put the player on the day's board: a second room of the day would be a
        rehearsed one.

        Raises:
            StoreUnavailable: the store cannot be reached.
        """

    @abstractmethod
    async def top(self, board: Board, limit: int = 20) -> list[Entry]:
        """The best ``limit`` entries, best first."""

    @abstractmethod
    async def entry(self, board: Board, player_id: str) -> Entry | None:
        """One player's entry and rank, or ``None`` if not on this board."""

    @abstractmethod
    async def size(self, board: Board) -> int:
        """How many players the board holds (a rank's context: 3rd of 41)."""

    async def close(self) -> None:  # noqa: B027 - optional hook
        """Release connections."""


def ranked(
    scores: list[tuple[str, int]], names: dict[str, str], games: dict[str, int]
) -> list[Entry]:
    """Entries for ``(player id, score)`` pairs sorted best first, with competition ranks."""
    out: list[Entry] = []
    for i, (pid, score) in enumerate(scores):
        rank = out[-1].rank if out and out[-1].score == score else i + 1
        out.append(Entry(rank, pid, names.get(pid, "?"), score, games.get(pid, 0)))
    return out


class MemoryLeaderboards(Leaderboards):
    """The in-memory default: boards in dicts, lost when the process exits. Like Redis, it
    forgets daily tables after :data:`DAILY_TTL` (counted in days from the newest) and the names
    of results after :data:`MAX_SEEN` more, so a process that runs for months holds no more."""

    completes_at_once = True

    def __init__(self, max_seen: int = MAX_SEEN) -> None:
        self._scores: dict[str, dict[str, int]] = {}
        self._games: dict[str, dict[str, int]] = {}
        self._names: dict[str, str] = {}
        self._seen: OrderedDict[tuple[str, str, str], None] = OrderedDict()
        self._max_seen = max_seen
        self._claims: OrderedDict[tuple[str, str], list[str]] = OrderedDict()
        self._first: OrderedDict[tuple[str, str], str] = OrderedDict()

    async def claim(self, board: Board, origin: str, player_id: str, limit: int) -> bool:
        key = (board.key, origin)
        if key not in self._claims and len(self._claims) >= MAX_CLAIMS:
            # room is made from the claims of days before this one only (daily:YYYY-MM-DD keys
            # sort by day): forgetting one of this day's would give its origin its entries again
            kept = self._claims.items()
            self._claims = OrderedDict((k, v) for k, v in kept if k[0] >= board.key)
            if len(self._claims) >= MAX_CLAIMS:
                return False  # full of this day's claims: a newcomer is not ranked
        claimed = self._claims.setdefault(key, [])
        self._claims.move_to_end(key)
        if player_id not in claimed:
            claimed.append(player_id)
        return claimed.index(player_id) < limit

    async def first_daily(self, board: Board, player_id: str, match: str) -> bool:
        first = self._first.setdefault((board.key, player_id), match)
        self._first.move_to_end((board.key, player_id))
        while len(self._first) > MAX_CLAIMS:  # old days' first matches: least recently used
            self._first.popitem(last=False)
        return first == match

    async def record(
        self, board: Board, player: Player, score: int, *, event: str | None = None
    ) -> bool:
        if board.day is not None and board.key not in self._scores:  # a new day's table
            self._forget_days_before(board.day - datetime.timedelta(seconds=DAILY_TTL))
        scores = self._scores.setdefault(board.key, {})
        games = self._games.setdefault(board.key, {})
        if board.once_per_player and player.id in scores:
            return False
        if event is not None:
            seen = (event, board.key, player.id)
            if seen in self._seen:
                return False
            self._seen[seen] = None
            if len(self._seen) > self._max_seen:
                self._seen.popitem(last=False)
        scores[player.id] = scores.get(player.id, 0) + score
        games[player.id] = games.get(player.id, 0) + 1
        self._names[player.id] = player.name
        return True

    def _forget_days_before(self, day: datetime.date) -> None:
        old = [key for key in self._scores if key.startswith("daily:") and key < f"daily:{day}"]
        for key in old:
            players = self._scores.pop(key)
            self._games.pop(key, None)
            kept = self._scores.values()
            for pid in players:  # a name no board holds any more goes too
                if not any(pid in other for other in kept):
                    self._names.pop(pid, None)

    async def top(self, board: Board, limit: int = 20) -> list[Entry]:
        # the best few of a board of any size: no sort of the whole board a request
        scores = self._scores.get(board.key, {})
        best = heapq.nsmallest(limit, scores.items(), key=lambda kv: (-kv[1], kv[0]))
        return ranked(best, self._names, self._games.get(board.key, {}))

    def tracked(self) -> int:
        """Entries held in every table (a leak check)."""
        return (
            sum(len(s) for s in self._scores.values())
            + sum(len(g) for g in self._games.values())
            + len(self._names)
            + len(self._seen)
            + len(self._claims)
            + len(self._first)
        )

    async def entry(self, board: Board, player_id: str) -> Entry | None:
        scores = self._scores.get(board.key, {})
        if player_id not in scores:
            return None
        score = scores[player_id]
        rank = 1 + sum(1 for s in scores.values() if s > score)
        games = self._games.get(board.key, {}).get(player_id, 0)
        return Entry(rank, player_id, self._names.get(player_id, "?"), score, games)

    async def size(self, board: Board) -> int:
        return len(self._scores.get(board.key, {}))
