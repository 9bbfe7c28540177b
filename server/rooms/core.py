"""The room as a sans-I/O state machine: typed inputs (:mod:`server.rooms.inputs`: requests,
disconnections, timers, bot moves) go in through :meth:`RoomCore.handle`; frames to send, timers
to set, bots to run and records to persist (:mod:`server.rooms.outputs`) come out.

The asyncio actor (:mod:`server.runtime.actor`) owns the queue, the clock and the sockets and does
what the outputs say, in order; a :class:`Persist` is awaited before anything after it is sent,
so nothing is acknowledged before it is saved. Tests drive this class directly, without sockets.

:class:`RoomCore` holds a room's fixed facts and its state, and dispatches each input to its
handler; every handler returns its outputs. The parts are modules of their own: what changes
(:mod:`~server.rooms.state`, its seats in :mod:`~server.rooms.seats`), what each client request
does (:mod:`~server.rooms.requests`), how play moves on (:mod:`~server.rooms.play`), the turn
clock (:mod:`~server.rooms.clock`), the frames (:mod:`~server.rooms.frames`), the stored record
(:mod:`~server.rooms.record`), rollback (:mod:`~server.rooms.rollback`), the host's
commands (:mod:`~server.rooms.host`), the settings (:mod:`~server.rooms.settings`) and the
refusal of a bad request (:mod:`~server.rooms.refusal`).

An input that fails with an unexpected exception changes nothing: the room is put back as it
was before the input (its match rebuilt from the action log) and the sender gets
``internal_error``.

>>> from protocol.messages import Watch
>>> from server.rooms.inputs import Request
>>> room = RoomCore("ABCDE", "shithead", 3, seed=1, settings=RoomSettings())
>>> out = room.handle(Request(7, Watch(id="w", room="ABCDE")), now=0.0)
>>> [type(o).__name__ for o in out][:2]
['Send', 'Send']
"""

from __future__ import annotations

import datetime
import logging
import operator
import secrets
from collections.abc import Callable, Hashable, Sequence, Set
from typing import TYPE_CHECKING, Any, Generic, TypeVar, overload

from protocol import messages as m
from protocol.errors import ErrorCode
from protocol.records import ActionEntry, RoomMeta, RoomRecord
from server.bots.base import DEFAULT_LEVEL
from server.rooms import bot_seats, frames, play, requests, rollback
from server.rooms import record as records
from server.rooms.event_table import EventTable
from server.rooms.inputs import (
    BotMove,
    BotPlaysFor,
    CreateHost,
    Disconnect,
    HintReady,
    RatingsShown,
    Request,
    RoomInput,
    TakeBotSeat,
    TimerFired,
    sender,
)
from server.rooms.limits import TokenBucket
from server.rooms.matches import DealSource, Match
from server.rooms.matchmaker import Reserved
from server.rooms.outputs import (
    CloseRoom,
    ConnId,
    DealTimer,
    Detach,
    FrameTimer,
    GraceTimer,
    IdleTimer,
    Output,
    Persist,
    Send,
    SetTimer,
    TimerKey,
    TurnTimer,
)
from server.rooms.refusal import Refusal, error_frame
from server.rooms.requests import hint_seed, to_rules_action
from server.rooms.seats import SeatTable
from server.rooms.seeds import new_nonce, process_keys
from server.rooms.settings import RoomSettings
from server.rooms.state import MAX_MODERATED, Person, RoomState
from server.rooms.status import RoomStatus
from server.rules.registry import game_spec

#: Chat senders a room keeps a budget for; beyond, those back to a full budget are forgotten,
#: and a new sender waits while all are spending.
MAX_CHAT_SENDERS = 256

__all__ = [
    "MAX_MODERATED",
    "RoomCore",
    "check_create",
    "check_rated",
    "hint_seed",
    "to_rules_action",
]

log = logging.getLogger(__name__)
T = TypeVar("T")


def check_create(
    game: m.GameName,
    players: int,
    *,
    daily: bool,
    hints: bool,
    options: m.GameOptions | None = None,
    rated: bool = False,
) -> None:
    """Refuse a room that cannot be opened, before anything is claimed or stored for it.

    Raises:
        Refusal: ``bad_seats``, ``hints_not_allowed``, ``invalid_message`` (another game's
            options), ``daily_options``, ``rated_not_allowed``.
    """
    spec = game_spec(game)
    try:
        spec.check_players(players)  # the game registry knows the seat counts
    except ValueError as exc:
        raise Refusal(ErrorCode.BAD_SEATS, str(exc)) from None
    if hints and daily:
        why = "hints are not offered in a daily game: everyone plays it on their own"
        raise Refusal(ErrorCode.HINTS_NOT_ALLOWED, why)
    try:
        rules = spec.check_options(options)
    except ValueError as exc:
        raise Refusal(ErrorCode.INVALID_MESSAGE, str(exc)) from None
    if daily and rules != spec.options():
        # SS-10.1: the daily match is the same game for everyone, so always the book's
        why = "the daily match plays the default rules: create it without options"
        raise Refusal(ErrorCode.DAILY_OPTIONS, why)
    if rated:
        check_rated(daily=daily, hints=hints, book=rules == spec.options())


def check_rated(*, daily: bool, hints: bool, book: bool) -> None:
    """Refuse a rated room that may not be: ratings count the book's game, played unaided.

    Raises:
        Refusal: ``rated_not_allowed``.
    """
    if not book:
        raise Refusal(ErrorCode.RATED_NOT_ALLOWED, "a rated room plays the book's rules only")
    if hints:
        raise Refusal(ErrorCode.RATED_NOT_ALLOWED, "a rated room offers no hints")
    if daily:
        raise Refusal(ErrorCode.RATED_NOT_ALLOWED, "the daily match has its own board")


class _StateField(property, Generic[T]):
    """A read-only attribute of the room that is a field of its state (``path``: dotted): a
    property whose getter is an ``operator.attrgetter``, so a read runs in C with no Python
    frame (the actor and the core read the state some ten times an input). A write raises
    AttributeError: the state changes only through the room's inputs."""

    def __init__(self, path: str, doc: str) -> None:
        super().__init__(operator.attrgetter(f"state.{path}"), doc=doc)

    if TYPE_CHECKING:  # the type of what the inherited getter returns; nothing here runs

        @overload
        def __get__(self, room: None, owner: type, /) -> _StateField[T]: ...
        @overload
        def __get__(self, room: RoomCore, owner: type | None = None, /) -> T: ...
        def __get__(
            self, room: RoomCore | None, owner: type | None = None, /
        ) -> T | _StateField[T]: ...


class RoomCore:
    """One room: its fixed facts (code, game, seats, settings, seeds) and its changing
    :class:`~server.rooms.state.RoomState` (seats, spectators, the match, its version, the
    timers it wants)."""

    def __init__(
        self,
        code: str,
        game: m.GameName,
        players: int,
        *,
        settings: RoomSettings,
        seed: int | None = None,
        nonce: str | None = None,
        options: m.GameOptions | None = None,
        turn_timer: int | None = None,
        time_bank: int | None = None,
        daily: bool = False,
        hints: bool = False,
        rated: bool = False,
        ladder: bool = False,
        opener: str | None = None,
        make_token: Callable[[], str] | None = None,
        table: EventTable | None = None,
    ) -> None:
        check_create(game, players, daily=daily, hints=hints, options=options, rated=rated)
        self.code = code
        self.game: m.GameName = game
        self.players = players
        self.settings = settings
        # Deals: fair (server.rules.deal) from the server's keys and this room's nonce, or,
        # given a ``seed`` (sims, tests), from random.Random(seed), proving nothing.
        self.seed = seed
        self.nonce = nonce or (new_nonce() if seed is None else str(seed))
        keys = settings.keys or process_keys()
        # an event's table: its deals are the event's when duplicate (server.rooms.event_table)
        self.table = table
        duplicate = (table.event, table.nonce, table.round) if table and table.duplicate else None
        self.source = DealSource(keys, code, self.nonce, duplicate)
        # the bots' and hints' own stream, never derivable from a deal's seed
        self.bot_seed = keys.bots(code, self.nonce) if seed is None else seed
        self.options: m.GameOptions = game_spec(game).check_options(options)
        self.options_frame = self.options.model_dump()  # as the room frame writes them
        self.turn_timer = turn_timer
        self.time_bank = time_bank if turn_timer else None  # each seat's reserve for a match
        self.daily = daily
        self.hints = hints  # seated players may ask for hints; results are not ranked
        self.ladder = ladder  # a table of the bots' ladder: its games move ladder ratings
        # who opened the room (a keyed digest of their address): kept in its record, so the
        # bot pool's fairness and the room caps count it for them wherever it is loaded
        self.opener = opener
        self.make_token = make_token or (lambda: secrets.token_urlsafe(24))
        self.state = RoomState(SeatTable(players), rated=rated)
        # a rated Sheepshead match is rated whole (a hand is mostly the luck of its deal); an
        # open-ended Shithead series game by game
        self.rated_per_match = game_spec(game).match_length is not None
        self._before: rollback.Saved | None = None  # the room before the last input, for undo()
        # the room's chat budget, all senders together: spent, like a connection's budget,
        # by whatever input asked, so not part of the state a failed input gives back
        self._chat: TokenBucket | None = None
        self._chat_each: dict[Hashable, TokenBucket] = {}  # a seat, or a spectator's address

    # ------------------------------------------------------------------ the state, read

    seats = _StateField[SeatTable]("seats", "The room's seats.")
    match = _StateField[Match | None]("match", "The match (None before the host starts it).")
    version = _StateField[int]("version", "The state's version.")
    host = _StateField[int | None]("host", "The host's seat (None: nobody hosts).")
    locked = _StateField[bool]("locked", "Whether the room takes no one new.")
    again = _StateField[tuple[str, int, str] | None](
        "again", "Where the table plays again after its match: code, the host's seat and name."
    )
    closed = _StateField[bool]("closed", "Whether the room is closed.")
    rated = _StateField[bool]("rated", "Whether the room's games move ratings.")
    rated_seats = _StateField[list[str | None]](
        "rated_seats", "Each seat's rated identity when its rated game or match was dealt."
    )
    deserted = _StateField[dict[int, str]](
        "deserted", "Seats whose rated player left during it, and the names they played under."
    )
    deadline = _StateField[float | None]("clock.shown", "The turn deadline states show.")
    daily_date = _StateField[datetime.date | None]("daily_date", "The day of a daily match.")
    daily_ranked = _StateField[bool | None](
        "daily_ranked", "Whether this daily match may rank (None: not a daily, or not started)."
    )
    spectators = _StateField[set[ConnId]]("spectators", "The spectators' connections.")
    where = _StateField[dict[ConnId, int | None]](
        "where", "Connection -> seat (None: a spectator)."
    )
    watchers = _StateField[dict[ConnId, int]]("watchers", "Spectator -> its number in chat lines.")
    banned = _StateField[list[str]](
        "banned", "Digests of the devices kept out of the room, oldest first."
    )
    muted_seats = _StateField[set[int]]("muted_seats", "The muted seats.")
    muted_devices = _StateField[list[str]](
        "muted_devices", "Digests of the muted devices, oldest first."
    )
    muted_watchers = _StateField[set[ConnId]]("muted_watchers", "The muted spectators.")

    # ------------------------------------------------------------------ queries

    def status(self) -> RoomStatus:
        state = self.state
        if state.closed:
            return RoomStatus.CLOSED
        match = state.match
        if match is None:
            return RoomStatus.LOBBY
        if match.current.is_over():
            # past max_games the room deals no more: its history stays bounded
            full = match.games_played() >= self.settings.max_games
            if self.table is not None:  # an event's table plays its round's hands
                full = full or match.games_played() >= self.table.hands
            return RoomStatus.OVER if full or match.is_over() else RoomStatus.BETWEEN
        if not state.seats.humans_connected() and self.table is None:
            return RoomStatus.PAUSED  # (an event's table plays on: its stand-ins play)
        return RoomStatus.PLAYING

    def humans_connected(self) -> bool:
        return self.state.seats.humans_connected()

    def anyone_connected(self) -> bool:
        return bool(self.state.where)

    def info(self) -> dict[str, Any]:
        """The room's public state (:func:`server.rooms.frames.info`)."""
        return frames.info(self)

    def seat_muted(self, index: int) -> bool:
        return self.state.seat_muted(index)

    def next_deal(self) -> int | None:
        """The index of the game the host deals next, while it takes contributions (never a
        daily match's: every player of the day gets the same cards, SS-9.2)."""
        state = self.state
        if self.seed is not None or state.closed or (self.daily and game_spec(self.game).daily):
            return None
        if self.source.duplicate is not None:  # the event's deals, the same at every table
            return None
        if state.match is None:
            return 0
        if state.match.current.is_over() and not state.match.is_over():
            return state.match.game_index + 1
        return None

    def next_deal_info(self) -> dict[str, Any] | None:
        game = self.next_deal()
        if game is None:
            return None
        match = self.state.match
        dealer = self.first_dealer() if match is None else match.dealer_of(game)
        return {"game": game, "commitment": self.source.proof(game, None, (), dealer).commitment}

    def first_dealer(self) -> int:
        """The dealer of the match's first game (fixed by the room's nonce before anyone
        contributes; committed to with the seed: docs/protocol.md, "Fair deals"); seat 0 at an
        event's table, as at every table of its round."""
        if self.seed is not None or self.table is not None:
            return 0
        return int(self.nonce, 16) % self.players

    # ------------------------------------------------------------------ what the host does

    def deal_next(self) -> None:
        """Deal the match's next game with the players' values, a new version (host
        ``next_game``; raises :class:`IllegalAction` as :meth:`Match.next_game` does, changing
        nothing)."""
        state = self.state
        assert state.match is not None
        state.match.next_game(self.state.contributions())
        state.contributed = {}
        state.banks, state.banking = {}, None  # every seat's whole time bank, each match
        state.rate_lineup(self.rated_per_match)
        state.ratings = None
        state.version += 1

    def starts_daily(self, item: RoomInput) -> bool:
        """Whether ``item`` is the host's ``start`` of a daily Sheepshead match not yet dealt:
        the runtime asks the store first whether it is its player's first daily match of the
        day (:meth:`set_daily_ranked`), so that the room says so before the first card."""
        return (
            self.daily
            and self.game == "sheepshead"
            and self.state.match is None
            and isinstance(item, Request)
            and isinstance(item.msg, m.Host)
            and item.msg.op == "start"
            and self.state.host is not None
            and self.state.where.get(item.conn) == self.state.host
        )

    def daily_player(self) -> str | None:
        """The device digest of the person a daily match is played by (``None``: none)."""
        for seat in self.state.seats:
            if seat.kind == "human" and seat.device:
                return seat.device
        return None

    def set_daily_ranked(self, ranked: bool) -> None:
        """Whether the daily match about to start may rank (its player's first of the day)."""
        self.state.daily_ranked = ranked

    def start_match(self, now: float) -> None:
        """Deal the first game (host ``start``): a new version."""
        state = self.state
        daily = None
        if self.daily and self.game == "sheepshead":
            daily = datetime.datetime.fromtimestamp(now, datetime.UTC).date()
            state.daily_date = daily
        state.match = Match(
            self.game,
            self.players,
            seed=self.seed,
            daily=daily,
            source=self.source,
            contributions=self.state.contributions(),
            dealer=self.first_dealer(),
            options=self.options,
        )
        state.contributed = {}
        state.rated_seats = []
        state.rate_lineup(self.rated_per_match)
        state.ratings = None
        state.version += 1

    def seat_table(self, people: Sequence[Reserved], levels: tuple[str, ...], now: float) -> None:
        """Play now's table (server/runtime/queue_service.py): ``people`` in the first seats,
        each held for them until they resume with the token its digest was made from (then
        a stand-in plays for whoever is not back within grace), bots of ``levels`` in the
        rest, in order (the last level again if they run out); the first person hosts, nobody
        joins by the room's code (it is locked; anyone may watch) and the first game is
        dealt."""
        state = self.state
        for index, person in enumerate(people):
            who = Person(person.device, person.origin)
            state.seat_human(index, None, person.name, person.token_sha256, who)
        for index in range(len(people), self.players):
            state.seats.fill_empty(levels[min(index - len(people), len(levels) - 1)], index)
        state.host = 0 if people else None
        state.locked = True
        self.start_match(now)

    def seat_event_table(
        self, people: Sequence[tuple[str, str, str | None] | None], stand_ins: Set[int], now: float
    ) -> None:
        """Seat an event's table and deal its first hand: each person (name, their seat
        token's digest, their device's) who is not here yet, a bot where nobody is, and the
        stand-in for those the event's host replaced."""
        seats = self.state.seats
        for index, person in enumerate(people):
            if person is not None:
                name, digest, device = person
                seats.reserve(index, name, digest, device)
                if index in stand_ins:
                    seats.mark_away(index)
        seats.fill_empty(DEFAULT_LEVEL)
        self.start_match(now)

    def take_host_if_gone(self, index: int) -> None:
        """Seat ``index``'s person is here: they host if the host's person is gone; never at an
        event's table, which the event's host runs (nobody there may remove a player, lock
        the room or change its bots)."""
        if self.table is None:
            self.state.take_host_if_gone(index)

    def fill_empty(self, level: str) -> None:
        """A bot of ``level`` in every empty seat."""
        self.state.seats.fill_empty(level)

    def set_locked(self, locked: bool) -> None:
        self.state.locked = locked

    def set_rated(self, rated: bool) -> None:
        """Rate the room's games, or not (the host, before the start).

        Raises:
            Refusal: ``rated_not_allowed`` (house rules, hints, daily), ``same_address`` (two
                people here from one address).
        """
        if rated:
            book = self.options == game_spec(self.game).options()
            check_rated(daily=self.daily, hints=self.hints, book=book)
            seats = self.state.seats
            if any(self.state.same_address(s.origin, i) for i, s in enumerate(seats)):
                why = "two people here come from one address: a rated table seats one"
                raise Refusal(ErrorCode.SAME_ADDRESS, why)
        self.state.rated = rated

    def match_done(self) -> bool:
        """Whether the match is over: all its hands, or an event's table's hands of the
        round (what a rated Sheepshead table rates whole)."""
        match = self.state.match
        if match is None:
            return False
        if self.table is not None and match.current.is_over():
            return match.is_over() or match.games_played() >= self.table.hands
        return match.is_over()

    def desert(self, index: int) -> None:
        """Seat ``index``'s person left (or is gone past the grace): if a rated game or match
        is under way, they are ranked last in it."""
        match = self.state.match
        if not self.state.rated or match is None:
            return
        if not match.current.is_over() or (self.rated_per_match and not self.match_done()):
            self.state.desert(index)

    def show_ratings(self, shifts: tuple[m.RatingShift, ...]) -> list[Output]:
        """The last rated game's rating changes, once recorded: shown to everyone here."""
        self.state.ratings = shifts
        return list(frames.room_frames(self))

    def play_again_in(self, code: str) -> None:
        """The table plays again in room ``code``, as the host (of now) says."""
        host = self.state.host
        assert host is not None
        self.state.again = (code, host, self.state.seats[host].name or "")

    def ban(self, index: int) -> None:
        """Keep the device of seat ``index`` out of this room (the host kicked it)."""
        self.state.ban(index)

    def mute_device(self, device: str | None, muted: bool) -> None:
        self.state.mute_device(device, muted)

    def mute_seat(self, index: int, muted: bool) -> None:
        """Mute (or unmute) seat ``index`` and its person's device."""
        self.state.mute_seat(index, muted)

    def mute_watcher(self, number: int | None, muted: bool) -> bool:
        """Mute (or unmute) the spectator whose chat lines carry ``number``; ``False`` if there
        is none."""
        return self.state.mute_watcher(number, muted)

    def expel(self, conn: ConnId, code: ErrorCode, message: str) -> list[Output]:
        """``conn`` is out of the room, told why."""
        self.state.where.pop(conn, None)
        return [error_frame(conn, None, code, message), Detach(conn)]

    def chat_allowed(self, now: float, sender: Hashable, spectator: bool) -> bool:
        """Whether the chat budgets take one more line from ``sender`` now (and spend it): the
        sender's own, and for a spectator the spectators' budget together."""
        s = self.settings
        own = self._chat_each.get(sender)
        if own is None:
            if len(self._chat_each) >= MAX_CHAT_SENDERS:  # forget those back to a full budget
                self._chat_each = {k: b for k, b in self._chat_each.items() if not b.full(now)}
                if len(self._chat_each) >= MAX_CHAT_SENDERS:
                    return False
            own = TokenBucket(s.chat_each_per_minute / 60.0, s.chat_each_burst, now)
            self._chat_each[sender] = own
        if not own.allow(now):
            return False
        if not spectator:
            return True
        if self._chat is None:
            self._chat = TokenBucket(s.chat_per_minute / 60.0, s.chat_burst, now)
        return self._chat.allow(now)

    def seat_waiting(self, now: float) -> list[Output]:
        """The game ended: spectators who asked to play take the free seats
        (:func:`server.rooms.requests.seat_waiting`)."""
        return requests.seat_waiting(self, now)

    def hand_to_bot(self, index: int) -> bool:
        """Seat ``index``'s person is gone past grace (or the host would not wait): a stand-in
        bot plays their turns until they come back. ``True`` if the host's role passed on."""
        self.state.seats.mark_away(index)
        if self.state.host != index:
            return False
        self.state.pass_host_from(index)  # a present person hosts
        return True

    def replace_human(self, index: int) -> None:
        """A human leaves a seat: empty before play, a bot once the match has begun."""
        self.state.replace_human(index, self.settings.stand_in_level)

    # ------------------------------------------------------------------ inputs

    def handle(self, item: RoomInput, now: float) -> list[Output]:
        """Everything that happens to a room comes through here, one input at a time.

        The room computes and commits in one go; if anything unexpected goes wrong it is put
        back as it was, and the sender (if any) gets ``internal_error``.
        """
        saved = rollback.save(self.state)
        self._before = saved
        try:
            return self._dispatch(item, now)
        except Exception:
            log.exception("room %s: %s failed; the room is put back", self.code, item)
            try:
                self.state = rollback.restore(saved)
            except Exception:  # the log itself no longer replays: close rather than drift
                log.exception("room %s could not be put back; closing it", self.code)
                self.state.closed = True
                return [CloseRoom("internal error")]
            conn = sender(item)
            if conn is None:
                return []
            ref = item.msg.id if isinstance(item, Request | CreateHost) else None
            message = "the server failed to handle that; nothing changed"
            return [error_frame(conn, ref, ErrorCode.INTERNAL_ERROR, message)]

    def undo(self) -> None:
        """Put the room back as it was before the last input: its outputs could not be stored
        (the store is away), so nothing of it may stand or be sent."""
        if self._before is not None:
            self.state = rollback.restore(self._before)

    def settled(self) -> None:
        """The last input's outputs are stored: nothing undoes it now, so its snapshot need not
        live until the next input (each room's, a state and 13 containers, was visited by
        every young collection, which stops the server while it runs)."""
        self._before = None

    def _dispatch(self, item: RoomInput, now: float) -> list[Output]:
        match item:
            case Request(conn=conn, msg=msg, device=device, origin=origin):
                return requests.request(self, conn, msg, Person(device, origin), now)
            case CreateHost(conn=conn, msg=msg, device=device, origin=origin):
                return requests.create_host(self, conn, msg, Person(device, origin), now)
            case Disconnect(conn=conn):
                return self._disconnected(conn, now)
            case TimerFired(key=key):
                return self._timer(key, now)
            case BotMove(seat=seat, version=version, action=action):
                return play.bot_move(self, seat, version, action, now)
            case HintReady():
                return self._hint_ready(item)
            case RatingsShown(shifts=shifts):
                return self.show_ratings(shifts)
            case BotPlaysFor(seat=seat):
                if not 0 <= seat < self.players or self.state.seats[seat].kind != "human":
                    return []
                self.state.seats.mark_away(seat)
                return [*frames.room_frames(self), *play.schedule(self, now)]
            case TakeBotSeat():
                return bot_seats.take_outputs(self, item, now)

    def _disconnected(self, conn: ConnId, now: float) -> list[Output]:
        state = self.state
        out: list[Output] = []
        seat = state.where.pop(conn, None)
        state.forget_watcher(conn)
        if seat is not None and state.seats[seat].conn == conn:
            state.seats.disconnect(seat, now + self.settings.grace)
            out.append(SetTimer(GraceTimer(seat), now + self.settings.grace))
        out += (
            frames.room_frames(self) if seat is not None else frames.spectators_changed(self, now)
        )
        out += play.schedule(self, now)
        return out

    def _timer(self, key: TimerKey, now: float) -> list[Output]:
        state = self.state
        match key:
            case GraceTimer(seat=index):
                seat = state.seats[index]
                if seat.kind != "human" or seat.conn is not None:
                    return []
                out: list[Output] = []
                if state.match is None:
                    state.seats.empty(index)  # a lobby seat is freed
                    state.muted_seats.discard(index)
                    state.pass_host_from(index)
                    out.append(Persist(self.meta()))
                else:
                    passed = self.hand_to_bot(index)  # (the host's role passed on too)
                    deserted = state.rated and index not in state.deserted
                    if deserted:  # gone past the grace in a rated game: ranked last in it
                        self.desert(index)
                    if passed or deserted:
                        out.append(Persist(self.meta()))
                return [*out, *frames.room_frames(self), *play.schedule(self, now)]
            case TurnTimer(version=version):
                if version == state.version and self.status() is RoomStatus.PLAYING:
                    return play.turn_expired(self, now)
                return []
            case FrameTimer():
                return list(frames.held_frame(self, now))
            case DealTimer(game=game):
                match = state.match
                if self.status() is not RoomStatus.BETWEEN or match is None:
                    return []
                if match.game_index + 1 != game:
                    return []
                self.deal_next()
                return [
                    *play.refresh_deadline(self, now),
                    Persist(self.meta()),
                    *frames.room_frames(self),
                    *frames.state_frames(self, []),
                    *play.schedule(self, now),
                ]
            case IdleTimer():
                state.idle_armed = False
                if not self.anyone_connected() and not state.closed:
                    state.closed = True
                    return [CloseRoom("idle")]
                return []

    def _hint_ready(self, item: HintReady) -> list[Output]:
        """A hint is ready: only the connection that asked gets it, if it still holds the seat
        (a stale one still goes: it names its version)."""
        state = self.state
        if state.hints.get(item.seat) == item.version:
            del state.hints[item.seat]
        if state.where.get(item.conn) != item.seat:
            return []
        action = item.action.to_json()
        advice = m.Advice(
            ref=item.ref,
            room=self.code,
            version=item.version,
            seat=item.seat,
            action=m.ActionModel.model_validate(action),
            reason=m.Reason(key=item.reason.key, params=item.reason.params, text=item.reason.text),
            level=item.level,
        )
        return [Send(item.conn, m.dump(advice))]

    # ------------------------------------------------------------------ persistence

    def record(self) -> RoomRecord:
        """The room as plain data, every action included: enough to rebuild it anywhere."""
        return records.record(self)

    def meta(self) -> RoomMeta:
        """The room's record without the actions (those are stored one by one)."""
        return records.meta(self)

    @classmethod
    def from_stored(
        cls, meta: RoomMeta, actions: list[ActionEntry], settings: RoomSettings
    ) -> RoomCore:
        """Rebuild a room from a store's :meth:`meta` and action entries."""
        return cls.from_record(records.with_actions(meta, actions), settings)

    @classmethod
    def from_record(cls, record: RoomRecord, settings: RoomSettings) -> RoomCore:
        """Rebuild a room (everyone disconnected; players resume with their tokens)."""
        room = cls(
            record["code"],
            record["game"],
            record["players"],
            settings=settings,
            seed=record["seed"],
            nonce=record.get("nonce"),  # records from before fair deals have a seed only
            options=records.options_from(record),
            turn_timer=record["turn_timer"],
            time_bank=record.get("time_bank"),  # records from before time banks have none
            daily=record["daily"],
            hints=record.get("hints", False),  # records from before hints have none
            rated=record.get("rated", False),
            ladder=record.get("ladder", False),  # records from before the ladder have none
            opener=record.get("opener"),
            table=records.table_from(record),
        )
        room.state = records.state_from(record, room.source)
        return room

    def restored(self, now: float) -> list[Output]:
        """Timers a freshly restored room needs (held seats, idle close; the turn timer is
        armed with its stored deadline once a person must act)."""
        out: list[Output] = []
        for i, s in enumerate(self.state.seats):
            if s.kind == "human":
                self.state.seats.disconnect(i, now + self.settings.grace)
                out.append(SetTimer(GraceTimer(i), now + self.settings.grace))
        return out + play.schedule(self, now)
