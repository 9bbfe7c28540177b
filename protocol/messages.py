"""Every message of the wire protocol, both directions, as pydantic v2 models.

Frames are JSON text. Each direction is one discriminated union on ``type``:
:data:`ClientMessage` (client to server) and :data:`ServerMessage` (server to client). A
connection starts with ``hello``; every client request carries an ``id`` that the server's
reply echoes as ``ref``; errors are ``{type: "error", code, message, ref}``.

>>> msg = parse_client('{"type": "hello", "id": "1", "protocol": 1}')
>>> type(msg).__name__, msg.protocol
('Hello', 1)
>>> dump(Error(code="stale_version", message="the game moved on", ref="7"))
'{"type":"error","code":"stale_version","message":"the game moved on","ref":"7"}'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal, get_args

import orjson
from pydantic import BaseModel, ConfigDict, Field, StringConstraints, TypeAdapter, model_validator

from protocol.views import EventWire, View

#: The protocol versions this package speaks. A server refuses a ``hello`` naming another.
PROTOCOL_VERSION = 1
SUPPORTED_VERSIONS = (1,)

GameName = Literal["shithead", "sheepshead"]
BotLevel = Literal["random", "basic", "strong", "expert"]
RoomCode = Annotated[
    str, StringConstraints(strip_whitespace=True, to_upper=True, pattern=r"^[A-Za-z0-9]{5}$")
]
CardCode = Annotated[
    str,
    StringConstraints(strip_whitespace=True, to_upper=True, pattern=r"^[2-9TJQKAtjqka][CDHScdhs]$"),
]
RequestId = Annotated[str, StringConstraints(min_length=1, max_length=64)] | int
# bounded here; normalised and checked by the room (``bad_name``, ``name_taken``)
PlayerName = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=64)]
#: A secret the client makes once and keeps (no accounts): it ranks the results of the games
#: its player finishes on the leaderboards; boards show only a digest of it.
DeviceToken = Annotated[
    str, StringConstraints(min_length=16, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")
]
ChatText = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=280)]

#: Longest chat message, in characters.
CHAT_MAX = 280


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class _Strict(_Model):
    """What a client sends: each field of the JSON type the protocol doc gives it, nothing
    pydantic could coerce into one (``"yes"``, ``1`` or ``"true"`` for a boolean, ``"2"`` or
    ``2.0`` for a count)."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


# ----------------------------------------------------------------------------- shared parts


class ActionModel(_Strict):
    """A game action: a ``kind`` word, the cards it names, and a face-down slot where needed."""

    kind: Annotated[str, StringConstraints(min_length=1, max_length=16, pattern=r"^[a-z_]+$")]
    cards: list[CardCode] = Field(default_factory=list, max_length=8)
    slot: Annotated[int, Field(ge=0, le=8)] | None = None


class ShitheadOptions(_Strict):
    """Shithead's house rules (SH-7), all off by default (the book's game, SH-1…SH-6); any
    other key is ``invalid_message``."""

    seven_lower: bool = Field(
        default=False, description="SH-7.2: on a 7 the next play is a 3 to 7 (or a 2 or a 10)"
    )
    eight_skips: bool = Field(
        default=False, description="SH-7.3: a play of k eights skips the next k active players"
    )
    three_invisible: bool = Field(
        default=False, description="SH-7.4: a 3 goes on anything and the card under it counts"
    )


class SheepsheadOptions(_Strict):
    """Sheepshead's house rules (SS-10; the defaults are the book's game, SS-1 … SS-9).
    Unknown keys or values are ``invalid_message``."""

    partner: Literal["called_ace", "jack_of_diamonds"] = Field(
        default="called_ace", description="SS-10.2: who the picker's partner is"
    )
    no_pick: Literal["leaster", "doubler", "forced"] = Field(
        default="leaster", description="SS-10.3: what happens when everyone passes"
    )
    crack: bool = Field(default=False, description="SS-10.4: defenders may double the stakes")


#: A room's options: one typed, bounded model per game (free objects are refused).
GameOptions = ShitheadOptions | SheepsheadOptions
#: Each game's options model: a message's ``options`` are read as its ``game``'s.
OPTIONS_OF: dict[str, type[ShitheadOptions] | type[SheepsheadOptions]] = {
    "shithead": ShitheadOptions,
    "sheepshead": SheepsheadOptions,
}


def _options_of_game(data: Any) -> Any:
    """A message's ``options`` validated as its own ``game``'s model (another game's option
    is then an unknown key, refused), before the union would take them as either."""
    game = data.get("game") if isinstance(data, Mapping) else None
    if isinstance(game, str) and game in OPTIONS_OF:  # (any other game is refused later)
        options = data.get("options", {})
        if isinstance(options, Mapping):
            return {**data, "options": OPTIONS_OF[game].model_validate(options)}
    return data


SeatKind = Literal["empty", "human", "bot"]
RoomStatusName = Literal["lobby", "playing", "between", "paused", "over", "closed"]


class SeatInfo(_Model):
    """One seat as everyone sees it (never its token)."""

    seat: int
    kind: SeatKind
    name: str | None = None
    bot_level: BotLevel | None = None
    connected: bool = False
    host: bool = False
    playing_for: BotLevel | None = Field(
        default=None, description="a bot is playing this human's turns while they are away"
    )
    muted: bool = Field(default=False, description="the host muted this seat's chat")
    held_until: float | None = Field(
        default=None,
        description="its person is gone: unix time the seat is held until (then a bot plays"
        " their turns, or a lobby seat is freed); the host's stand_in does it at once",
    )


class Again(_Model):
    """Where the table plays again after its match: the room the host opened for it, and who
    (the first host to say so; nobody replaces it)."""

    room: RoomCode
    seat: int
    name: str


class NextDeal(_Model):
    """The game the host deals next (its index) and the commitment to its server seed:
    SHA-256 of the seed, lowercase hex (docs/protocol.md, "Fair deals")."""

    game: int
    commitment: str


class RatingShift(_Model):
    """One seat's rating change at the end of a rated game (Shithead) or match (Sheepshead):
    the conservative rating shown before and after, and the model's ``mu`` and ``sigma`` after."""

    seat: int
    player: str = Field(description="the player's id (their page: /p/ID)")
    before: int
    after: int
    delta: int
    mu: float
    sigma: float


class RoomInfo(_Model):
    """The public state of a room: seats, status, totals. Sent on every change."""

    room: str
    game: GameName
    status: RoomStatusName
    seats: list[SeatInfo]
    spectators: int
    locked: bool
    turn_timer: int | None
    time_bank: int | None = Field(
        default=None, description="each seat's reserve for a match, in seconds (none: no bank)"
    )
    banks: list[float] | None = Field(
        default=None, description="the seconds of reserve each seat has left (none: no bank)"
    )
    banking: int | None = Field(
        default=None, description="the seat spending its reserve now (its turn ran over)"
    )
    options: GameOptions
    games_played: int
    totals: list[int] = Field(description="shithead: losses per seat; sheepshead: units per seat")
    match_length: int | None = Field(default=None, description="games in the match, if bounded")
    daily: str | None = None
    daily_ranked: bool | None = Field(
        default=None,
        description="a daily match: whether it may reach the day's board (only a player's first"
        " daily match of the day, finished within the day); null until it starts, or not daily",
    )
    hints: bool = Field(
        default=False, description="seated players may ask for hints (results not ranked)"
    )
    rated: bool = Field(
        default=False, description="its games move the players' ratings (book rules only)"
    )
    ratings: list[RatingShift] | None = Field(
        default=None,
        description="a rated room: each rated seat's change at the end of its last rated game"
        " (Shithead) or match (Sheepshead), once recorded; null until then",
    )
    next_deal: NextDeal | None = Field(
        default=None,
        description="the next game's commitment, for your client's contribute (none: daily)",
    )
    again: Again | None = Field(
        default=None, description="after the match: the room where this table plays again"
    )
    event: str | None = Field(
        default=None, description="the event this room is a table of (its page: /e/CODE)"
    )

    _game_options = model_validator(mode="before")(_options_of_game)


# ----------------------------------------------------------------------------- client -> server


class Hello(_Strict):
    type: Literal["hello"] = "hello"
    id: RequestId
    protocol: int
    client: Annotated[str, StringConstraints(max_length=64)] = ""
    device: DeviceToken | None = Field(default=None, repr=False)  # a secret: never in logs
    bot: bool = Field(
        default=False,
        description="this client is a program: an identity issued now is a bot identity (it "
        "may play the bots' ladder, never the people's queue; shown as a bot everywhere). A "
        "person's identity said with bot=true is replaced by a new bot identity",
    )


class Create(_Strict):
    """Open a room and take a seat in it as its host."""

    type: Literal["create"] = "create"
    id: RequestId
    game: GameName
    # bounded here, checked per game by the server (``bad_seats``)
    seats: Annotated[int, Field(ge=0, le=64)]
    name: PlayerName
    turn_timer: Annotated[int, Field(ge=1, le=600)] | None = None
    time_bank: Annotated[int, Field(ge=5, le=600)] | None = Field(
        default=None,
        description="seconds of reserve each seat has for a match, spent once a turn runs over "
        "the turn timer (needs turn_timer)",
    )
    options: GameOptions = Field(default_factory=ShitheadOptions)
    daily: bool = False
    hints: bool = Field(
        default=False,
        description="seated players may ask for hints; refused with daily (hints_not_allowed), "
        "and the room's results never go to the leaderboards",
    )
    rated: bool = Field(
        default=False,
        description="its games move the players' ratings: book rules only, no hints, not daily "
        "(rated_not_allowed); the host may turn it on or off before the start (host rated / "
        "unrated)",
    )

    _game_options = model_validator(mode="before")(_options_of_game)

    @model_validator(mode="after")
    def _bank_needs_timer(self) -> Create:
        if self.time_bank is not None and self.turn_timer is None:
            raise ValueError("a time bank needs a turn timer")
        return self


class Join(_Strict):
    """Take a free seat (before the start, or a bot's seat between games)."""

    type: Literal["join"] = "join"
    id: RequestId
    room: RoomCode
    name: PlayerName
    seat: Annotated[int, Field(ge=0, le=64)] | None = None  # checked by the room (bad_seat)
    wait: bool = Field(
        default=False,
        description="a game is being played: watch it now, and take the first free seat when"
        " it ends (a second joined, with this request's id, says which)",
    )


class Watch(_Strict):
    type: Literal["watch"] = "watch"
    id: RequestId
    room: RoomCode


class Resume(_Strict):
    """Take back a held seat with its secret token."""

    type: Literal["resume"] = "resume"
    id: RequestId
    room: RoomCode
    token: Annotated[str, StringConstraints(min_length=8, max_length=128)] = Field(
        repr=False  # a secret: never in logs (a failed input is logged with its repr)
    )


class Act(_Strict):
    """Play a game action, chosen against the state ``version`` the client last saw."""

    type: Literal["act"] = "act"
    id: RequestId
    room: RoomCode
    version: Annotated[int, Field(ge=0)]
    action: ActionModel


HostOp = Literal[
    "add_bot",
    "remove_bot",
    "set_bot_level",
    "fill_bots",
    "start",
    "lock",
    "unlock",
    "kick",
    "stand_in",
    "next_game",
    "mute",
    "unmute",
    "again",
    "rated",
    "unrated",
]


class Host(_Strict):
    """A host command. ``seat`` for add/remove/set level/kick/stand_in, ``level`` for bots."""

    type: Literal["host"] = "host"
    id: RequestId
    room: RoomCode
    op: HostOp
    seat: Annotated[int, Field(ge=0, le=64)] | None = None  # checked by the room (bad_seat)
    level: BotLevel | None = None
    spectator: Annotated[int, Field(ge=0)] | None = Field(
        default=None, description="mute/unmute: the spectator's number (chat lines carry it)"
    )
    to: RoomCode | None = Field(
        default=None, description="again: the code of the room where the table plays again"
    )


class Chat(_Strict):
    type: Literal["chat"] = "chat"
    id: RequestId
    room: RoomCode
    text: ChatText


#: The quick reactions a seated player can send: a fixed handful (no free text, so nothing to
#: moderate beyond their rate), drawn by the clients as emoji.
Emote = Literal["nice", "laugh", "wow", "oops", "sad", "gg"]


class React(_Strict):
    """A quick reaction from your seat, shown for a moment at it to everyone in the room (the
    chat's budget per seat; a muted seat's are refused)."""

    type: Literal["react"] = "react"
    id: RequestId
    room: RoomCode
    emote: Emote


class Leave(_Strict):
    type: Literal["leave"] = "leave"
    id: RequestId
    room: RoomCode


class Hint(_Strict):
    """Ask what the ``strong`` bot would do in your seat now (a room created with ``hints``;
    only while it is your decision; one at a time). The answer is ``advice``, to you only."""

    type: Literal["hint"] = "hint"
    id: RequestId
    room: RoomCode


class Contribute(_Strict):
    """Your client's random value for the next deal (``room.next_deal.game``): 32 random bytes
    as 64 lowercase hex digits, sent before the host deals; the deal is a shuffle of the server's
    seed and every seat's value (docs/protocol.md, "Fair deals"). Sent again, it replaces."""

    type: Literal["contribute"] = "contribute"
    id: RequestId
    room: RoomCode
    game: Annotated[int, Field(ge=0)]
    value: Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{64}$")]


class Ping(_Strict):
    type: Literal["ping"] = "ping"
    id: RequestId


class Identify(_Strict):
    """The work a ``welcome`` offered, done: an identity for this connection (``identified``)."""

    type: Literal["identify"] = "identify"
    id: RequestId
    challenge: Annotated[str, StringConstraints(max_length=160)]
    nonce: Annotated[str, StringConstraints(max_length=32)]


class Leaderboard(_Strict):
    """Ask for a leaderboard: ``daily`` (today, UTC), ``daily:YYYY-MM-DD``, ``sheepshead`` or
    ``shithead`` (all-time). The answer is ``standings``."""

    type: Literal["leaderboard"] = "leaderboard"
    id: RequestId
    board: Annotated[str, StringConstraints(max_length=32)] = "daily"
    limit: Annotated[int, Field(ge=1, le=100)] = 20


class MoveCode(_Strict):
    """Ask for a one-time code that brings this connection's identity (its ``welcome.device``)
    to another device: the answer is ``move_offer``, to you only. A new code replaces the
    last one; codes expire within minutes and work once."""

    type: Literal["move_code"] = "move_code"
    id: RequestId


class MoveClaim(_Strict):
    """On the other device: the code the first one showed. The answer is ``identity``: the
    identity this connection is from now on (keep it, say it in every hello)."""

    type: Literal["move_claim"] = "move_claim"
    id: RequestId
    code: Annotated[str, StringConstraints(min_length=1, max_length=24)]


class Queue(_Strict):
    """Play now: wait for a table of ``game`` with people of a similar rating (bots fill the
    seats nobody takes after the server's fill wait). The answer is ``queued``, then
    ``queued`` again on every change and every few seconds, and ``seated`` once a table is
    found. One entry per player and per connection; refused in a room."""

    type: Literal["queue"] = "queue"
    id: RequestId
    game: GameName
    name: PlayerName
    ladder: bool = Field(
        default=False,
        description="the bots' ladder instead of the people's queue: only a bot identity "
        "(hello with bot=true) may enter it, and a bot identity only it",
    )


class QueueCancel(_Strict):
    """Leave the Play now queue (answered with ``ack``; ``not_queued`` if not in it)."""

    type: Literal["queue_cancel"] = "queue_cancel"
    id: RequestId


# ----------------------------------------------------------------------------- events

EventPhaseName = Literal["lobby", "playing", "between", "over"]
ReseatName = Literal["standings", "rotation"]


class EventPerson(_Model):
    name: str
    left: bool = Field(default=False, description="left the event (a bot plays their seat)")
    stand_in: bool = Field(default=False, description="the host had a bot play for them")


class EventTableInfo(_Model):
    """One table of a round: its room (to watch) and who sits where (``null``: a bot)."""

    table: int
    room: str | None = Field(description="the table's room code, once it is open")
    seats: list[str | None]
    played: int = Field(description="hands this table has played this round")


class EventRoundInfo(_Model):
    tables: list[EventTableInfo]


class EventStanding(_Model):
    name: str
    rank: int
    units: int
    against: float = Field(description="duplicate: units against the field, summed")
    matchpoints: float = Field(description="duplicate: matchpoints, summed")
    hands: int


class EventDealSeat(_Model):
    """One seat of one table in one deal, against the same seat at the other tables."""

    name: str | None = Field(description="who sat there (null: a bot)")
    units: int
    against: float
    matchpoints: float


class EventDealTable(_Model):
    table: int
    room: str | None
    game: int = Field(description="the game's index in the room's history (its replay)")
    result: dict[str, object] | None = Field(description="the game's result, as its history")
    seats: list[EventDealSeat]


class EventDeal(_Model):
    """One duplicate deal across the tables of its round."""

    round: int
    hand: int
    tables: list[EventDealTable]


class EventInfo(_Model):
    """An event's public state, sent on every change and served at ``/api/events/CODE``."""

    code: str
    game: GameName
    table_size: int
    rounds: int
    hands: int
    duplicate: bool
    reseat: ReseatName
    options: dict[str, object]
    phase: EventPhaseName
    host: str | None = Field(description="the host's name")
    paused: bool
    round: int = Field(description="the round being played or last played, from 0 (-1: none)")
    hands_left: int = Field(description="hands the slowest table still plays this round")
    commitment: str = Field(description="SHA-256 of the event's seed, hex, from its creation")
    rated: bool = Field(default=False, description="its tables' games move ratings")
    start_at: float | None = Field(
        default=None, description="when it starts by itself (Unix seconds; null: the host's start)"
    )
    seed: str | None = Field(description="the event's seed, hex, once it is over")
    people: list[EventPerson]
    seatings: list[EventRoundInfo] = Field(description="each round's tables, round 1 first")
    standings: list[EventStanding] = Field(
        description="duplicate: counting only the deals every table of its round has played"
    )
    deals: list[EventDeal] = Field(
        default_factory=list, description="duplicate, once over: each deal across its tables"
    )


EventOpName = Literal["start", "pause", "resume", "replace", "end"]


class EventCreate(_Strict):
    """Open an event (several tables and rounds, docs/events.md) and join it as its host."""

    type: Literal["event_create"] = "event_create"
    id: RequestId
    name: PlayerName
    game: GameName
    # bounded here, checked by the server (``bad_event``)
    table_size: Annotated[int, Field(ge=0, le=64)]
    rounds: Annotated[int, Field(ge=0, le=64)]
    hands: Annotated[int, Field(ge=0, le=64)]
    duplicate: bool = False
    reseat: ReseatName = "standings"
    options: GameOptions = Field(default_factory=ShitheadOptions)
    rated: bool = Field(default=False, description="the book's rules only (rated_not_allowed)")
    # Unix seconds (UTC), within MAX_START_AHEAD of now: checked by the server (bad_event)
    start_at: Annotated[float, Field(ge=0, le=1e11, allow_inf_nan=False)] | None = Field(
        default=None, description="when the event starts by itself (null: the host's start)"
    )

    _game_options = model_validator(mode="before")(_options_of_game)


class EventJoin(_Strict):
    """Join an event in its lobby (then watch it: its frames follow)."""

    type: Literal["event_join"] = "event_join"
    id: RequestId
    event: RoomCode
    name: PlayerName


class EventWatch(_Strict):
    """Follow an event's frames (anyone: its page)."""

    type: Literal["event_watch"] = "event_watch"
    id: RequestId
    event: RoomCode


class EventLeave(_Strict):
    type: Literal["event_leave"] = "event_leave"
    id: RequestId
    event: RoomCode


class EventHost(_Strict):
    """A command of the event's host; ``target``: the name of the player to ``replace``."""

    type: Literal["event_host"] = "event_host"
    id: RequestId
    event: RoomCode
    op: EventOpName
    target: PlayerName | None = None


ClientMessage = Annotated[
    Hello
    | Create
    | Join
    | Watch
    | Resume
    | Act
    | Host
    | Chat
    | React
    | Leave
    | Hint
    | Ping
    | Leaderboard
    | Identify
    | Contribute
    | MoveCode
    | MoveClaim
    | Queue
    | QueueCancel
    | EventCreate
    | EventJoin
    | EventWatch
    | EventLeave
    | EventHost,
    Field(discriminator="type"),
]


# ----------------------------------------------------------------------------- server -> client


class Work(_Model):
    """A proof of work that earns an identity once an address's free ones are spent for the
    day: a ``nonce`` such that SHA-256 of ``challenge + ":" + nonce`` starts with ``bits``
    zero bits (``identify``)."""

    challenge: Annotated[str, StringConstraints(max_length=160)]
    bits: int


class Welcome(_Model):
    type: Literal["welcome"] = "welcome"
    ref: RequestId
    protocol: int
    server: str
    games: list[GameName]
    device: DeviceToken | None = Field(
        default=None,
        description="the device identity this server issued (or the hello's, if the server "
        "issued it): keep it and say it in every hello; null: this connection is not ranked",
    )
    work: Work | None = Field(
        default=None,
        description="no identity was issued (this address's free ones are spent today): this "
        "work earns one (identify)",
    )
    player: str | None = Field(
        default=None, description="the identity's player id (its page: /p/ID); null: none"
    )
    bot: bool = Field(default=False, description="the identity is a bot identity (the ladder's)")


class Identified(_Model):
    """Reply to ``identify``: the identity the work earned (keep it as a welcome's)."""

    type: Literal["identified"] = "identified"
    ref: RequestId
    device: DeviceToken


class Error(_Model):
    """A refusal, sent only to the connection whose message caused it."""

    type: Literal["error"] = "error"
    code: str = Field(description="one of protocol.errors.ERROR_CODES (schema: error_codes)")
    message: str
    ref: RequestId | None = None


class Joined(_Model):
    """Reply to create / join / watch / resume: your seat (None: spectator) and its token."""

    type: Literal["joined"] = "joined"
    ref: RequestId
    room: str
    seat: int | None
    token: str | None = Field(
        default=None,
        repr=False,
        description="the seat's secret; a fresh one after every resume (the old one is void)",
    )
    waiting: bool = Field(
        default=False,
        description="a join with wait: watching now, seated when the game ends if a seat is free",
    )


class Ack(_Model):
    """An accepted request; for ``act``, the new state version."""

    type: Literal["ack"] = "ack"
    ref: RequestId
    version: int | None = None


class Room(_Model):
    type: Literal["room"] = "room"
    room: RoomInfo


class State(_Model):
    """Your view of the game after a change: only what your seat may see."""

    type: Literal["state"] = "state"
    room: str
    version: int
    seat: int | None
    view: Annotated[View, Field(discriminator="game")] = Field(
        description="your view: protocol/views.py, one form per game (``game`` says which)"
    )
    events: list[EventWire] = Field(default_factory=list)
    deadline: float | None = Field(default=None, description="unix time the turn timer ends")
    commitment: str | None = Field(
        default=None, description="SHA-256 of this game's server seed, hex (fair deals)"
    )


class LogEntry(_Model):
    game: int = Field(description="index of the game of the match it happened in (0: first)")
    event: EventWire


class Log(_Model):
    """The room's recent events (the last 60 of the match, oldest first), sent on ``join``,
    ``watch`` and ``resume`` just before that connection's first ``state``: the log of the
    table so far, the same on every device. Events are public (never a hidden card)."""

    type: Literal["log"] = "log"
    room: str
    version: int = Field(description="the state version the log is complete up to")
    entries: list[LogEntry]


class ChatLine(_Model):
    type: Literal["chat"] = "chat"
    room: str
    seat: int | None
    name: str
    text: str
    at: float
    spectator: int | None = Field(
        default=None, description="a spectator's number in the room (the host may mute it)"
    )


class Reaction(_Model):
    """A seat's quick reaction (``react``), to everyone in the room."""

    type: Literal["reaction"] = "reaction"
    room: str
    seat: int
    emote: Emote
    at: float


class Pong(_Model):
    type: Literal["pong"] = "pong"
    ref: RequestId


class Closing(_Model):
    """The server is going away (shutdown or room closed); reconnect later with your token."""

    type: Literal["closing"] = "closing"
    reason: str


class Moved(_Model):
    """The room just created lives on another process (several behind a proxy):
    sent just before the ``joined`` that answers a ``create`` on a ``/ws`` connection, whose
    token then resumes the seat at ``/ws/CODE``; this connection is in no room."""

    type: Literal["moved"] = "moved"
    room: str


class StandingsEntry(_Model):
    rank: int = Field(description="equal scores share a rank (1, 2, 2, 4)")
    player: str = Field(description="a digest of the player's device token")
    name: str
    score: int = Field(description="daily and sheepshead: units; shithead: games got out of")
    games: int


class Standings(_Model):
    """A leaderboard: its best entries, and yours (by your hello's ``device``) if you are on it.

    Only results the server computed are ever on a board: no message submits a score.
    """

    type: Literal["standings"] = "standings"
    ref: RequestId
    board: str
    entries: list[StandingsEntry]
    you: StandingsEntry | None = None
    players: int = Field(default=0, description="how many players the board holds")


class Reason(_Model):
    """Why a hint suggests its action, for people: ``text`` in English, and a stable ``key``
    with ``params`` for a client that shows it in another language (card params are codes)."""

    key: Annotated[str, StringConstraints(pattern=r"^[a-z_]+\.[a-z_]+$")]
    params: dict[str, str | int] = Field(default_factory=dict)
    text: str


class Advice(_Model):
    """The answer to ``hint``, sent only to the player who asked: the ``strong`` bot's choice
    for your own view at ``version`` (send ``action`` unchanged in an ``act``), and why.
    ``level`` is the bot that answered: ``basic`` when the strong one ran out of time."""

    type: Literal["hint"] = "hint"
    ref: RequestId
    room: str
    version: int
    seat: int
    action: ActionModel
    reason: Reason
    level: BotLevel


class MoveOffer(_Model):
    """A one-time code for ``move_claim`` on another device, and when it expires."""

    type: Literal["move_offer"] = "move_offer"
    ref: RequestId
    code: str = Field(repr=False)  # a secret while it lasts: never in logs
    expires: float = Field(description="unix time the code stops working")


class Identity(_Model):
    """The identity a ``move_claim`` brought to this connection (the same as the device the
    code came from): keep it and say it in every hello."""

    type: Literal["identity"] = "identity"
    ref: RequestId
    device: DeviceToken = Field(repr=False)
    player: str = Field(description="its player id (its page: /p/ID)")


class Queued(_Model):
    """You are waiting for a table of ``game`` (the answer to ``queue``, and again on every
    change of the count and every few seconds until ``seated``)."""

    type: Literal["queued"] = "queued"
    ref: RequestId | None = Field(default=None, description="the queue request's id, once")
    game: GameName
    ladder: bool = Field(default=False, description="the bots' ladder's line")
    waiting: int = Field(description="how many wait for this game now, you included")
    waited: float = Field(description="seconds you have waited")
    fill_in: float = Field(
        description="seconds until your table starts with bots in the seats nobody took"
    )


class Seated(_Model):
    """A table was found: send ``resume`` with ``room`` and ``token`` (at ``/ws/ROOM``
    behind a proxy) to take ``seat``; the game is dealt, and a stand-in plays for you until
    you do. You are no longer queued."""

    type: Literal["seated"] = "seated"
    game: GameName
    room: str
    seat: int
    token: str = Field(repr=False, description="the seat's secret, as in ``joined``")


class EventYou(_Model):
    """Your place in the event (only in the frames sent to you): your table's room, your seat
    and the token that resumes it (``resume``)."""

    name: str
    room: str | None = None
    seat: int | None = None
    token: str | None = None


class EventFrame(_Model):
    """An event's public state, on every change, to whoever joined or watches it."""

    type: Literal["event"] = "event"
    info: EventInfo
    you: EventYou | None = None


ServerMessage = Annotated[
    Welcome
    | Error
    | Joined
    | Ack
    | Room
    | State
    | Log
    | ChatLine
    | Reaction
    | Pong
    | Closing
    | Standings
    | Advice
    | Identified
    | Moved
    | MoveOffer
    | Identity
    | Queued
    | Seated
    | EventFrame,
    Field(discriminator="type"),
]

CLIENT_ADAPTER: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)
#: The ``type`` of every client message, read from the union itself (one list, not two).
CLIENT_TYPES: frozenset[str] = frozenset(
    cls.model_fields["type"].default for cls in get_args(get_args(ClientMessage)[0])
)
SERVER_ADAPTER: TypeAdapter[ServerMessage] = TypeAdapter(ServerMessage)


def parse_client(data: str | bytes) -> ClientMessage:
    """Parse one client frame (raises :class:`pydantic.ValidationError`)."""
    return CLIENT_ADAPTER.validate_json(data)


def parse_server(data: str | bytes) -> ServerMessage:
    """Parse one server frame (raises :class:`pydantic.ValidationError`)."""
    return SERVER_ADAPTER.validate_json(data)


def dump(message: BaseModel) -> str:
    """One message as a compact JSON text frame."""
    return message.model_dump_json(exclude_none=False)


def dump_state(
    room: str,
    version: int,
    seat: int | None,
    view: View | Serialised,
    events: list[EventWire] | Serialised,
    deadline: float | None,
    commitment: str | None = None,
) -> str:
    """A :class:`State` frame built by the server itself, serialised straight from its parts:
    the same text as ``dump(State(...))`` without building and validating a model for every
    recipient of every action (the server made the view; nothing in it needs checking). The
    view and the events may come serialised (:func:`serialised_view`, :func:`serialised`).
    """
    frame = {
        "type": "state",
        "room": room,
        "version": version,
        "seat": seat,
        "view": view,
        "events": events,
        "deadline": deadline,
        "commitment": commitment,
    }
    return orjson.dumps(frame, option=orjson.OPT_NON_STR_KEYS).decode()


#: A value already serialised, placed in a frame as its JSON text.
Serialised = orjson.Fragment


def json_bytes(value: Any) -> bytes:
    """``value`` as :func:`dump_state` writes it inside a frame."""
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)


def serialised(value: Any) -> Serialised:
    """``value`` serialised once as :func:`dump_state` would write it, for several frames."""
    return orjson.Fragment(json_bytes(value))


def serialised_view(shared: bytes, own: Mapping[str, object]) -> Serialised:
    """A view written as :func:`dump_state` would write the object ``{**shared_fields, **own}``,
    where ``shared`` is the shared fields' object already serialised (:func:`json_bytes`, once per
    state for all its recipients) and ``own`` the recipient's own fields, serialised here."""
    mine = json_bytes(own)
    if len(mine) == 2:  # {}
        return orjson.Fragment(shared)
    if len(shared) == 2:
        return orjson.Fragment(mine)
    return orjson.Fragment(shared[:-1] + b"," + mine[1:])


class StateWriter:
    """The :class:`State` frames of one state, one per recipient, spliced from bytes: what all
    of them share (the frame's fields but ``seat``, and the view's shared fields, serialised
    once) around each recipient's seat and own fields. Each frame is the text of
    ``dump_state(room, version, seat, serialised_view(shared, own), events, deadline,
    commitment)`` without building and serialising that frame's object again for every
    recipient of every action (some five per action; a test checks the bytes are the same).

    >>> w = StateWriter("ABCDE", 3, json_bytes({"a": 1}), [], None)
    >>> w.text(0, {"seat": 0})
    '{"type":"state","room":"ABCDE","version":3,"seat":0,"view":{"a":1,"seat":0},"events":[],\
"deadline":null,"commitment":null}'
    """

    __slots__ = ("_head", "_shared", "_tail", "_view")

    def __init__(
        self,
        room: str,
        version: int,
        shared: bytes,
        events: list[EventWire] | Serialised,
        deadline: float | None,
        commitment: str | None = None,
    ) -> None:
        dumps = orjson.dumps
        self._head = b'{"type":"state","room":' + dumps(room) + b',"version":%d,"seat":' % version
        self._shared = shared
        # the shared fields, open for the recipient's own (``{}``: none to open)
        self._view = b',"view":' + (shared[:-1] + b"," if len(shared) > 2 else b"{")
        self._tail = (
            b',"events":'
            + json_bytes(events)
            + b',"deadline":'
            + dumps(deadline)
            + b',"commitment":'
            + dumps(commitment)
            + b"}"
        )

    def text(self, seat: int | None, own: Mapping[str, object]) -> str:
        """``seat``'s frame (``None``: a spectator's), ``own`` its own fields of the view."""
        mine = orjson.dumps(own, option=orjson.OPT_NON_STR_KEYS)  # json_bytes, one call less
        seat_text = b"null" if seat is None else b"%d" % seat
        if len(mine) == 2:  # {}: the view is the shared fields alone
            return b"".join((self._head, seat_text, b',"view":', self._shared, self._tail)).decode()
        rest = memoryview(mine)[1:]  # past its "{", joined without a copy of its own
        return b"".join((self._head, seat_text, self._view, rest, self._tail)).decode()


def dump_room(info: dict[str, Any]) -> str:
    """A :class:`Room` frame from the fields of its :class:`RoomInfo` as plain data, serialised
    straight: the same text as ``dump(Room(room=RoomInfo(**info)))`` (sent to everyone in a
    room at each change of its seats or status, and at the end of every game)."""
    return orjson.dumps({"type": "room", "room": info}).decode()


def dump_ack(ref: RequestId, version: int | None = None) -> str:
    """An :class:`Ack` the server built, serialised straight: the same text as
    ``dump(Ack(ref=ref, version=version))`` (one per accepted action, so it is on the hot path).
    """
    return orjson.dumps({"type": "ack", "ref": ref, "version": version}).decode()
