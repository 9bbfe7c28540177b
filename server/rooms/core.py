"""The room as a sans-I/O state machine: typed inputs (:mod:`server.rooms.inputs`: requests,
disconnections, timers, bot moves) go in through :meth:`RoomCore.handle`; frames to send, timers
to set, bots to run and records to persist (:mod:`server.rooms.outputs`) come out.

The asyncio actor (:mod:`server.rooms.actor`) owns the queue, the clock and the sockets and does
what the outputs say, in order; a :class:`Persist` is awaited before anything after it is sent,
so nothing is acknowledged before it is saved. Tests drive this class directly, without sockets.

This module holds the dispatch and the handlers, each returning its outputs; the room's parts
are modules of their own: what changes (:mod:`~server.rooms.state`, its seats in
:mod:`~server.rooms.seats`), the turn clock (:mod:`~server.rooms.clock`), the frames
(:mod:`~server.rooms.frames`), the stored record (:mod:`~server.rooms.record`), rollback
(:mod:`~server.rooms.rollback`) and the host's commands (:mod:`~server.rooms.host`).

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
from collections.abc import Callable
from typing import Any, Generic, TypeVar, cast, overload

from protocol import messages as m
from protocol.cards import parse_card
from protocol.errors import ErrorCode, rules_code
from protocol.records import ActionEntry, RoomMeta, RoomRecord
from server.rooms import frames, play, rollback
from server.rooms import host as host_ops
from server.rooms import record as records
from server.rooms.inputs import (
    BotMove,
    CreateHost,
    Disconnect,
    HintReady,
    Request,
    RoomInput,
    TimerFired,
    sender,
)
from server.rooms.limits import TokenBucket
from server.rooms.matches import DealSource, Match
from server.rooms.names import clean_name
from server.rooms.outputs import (
    CancelTimer,
    CloseRoom,
    ConnId,
    Detach,
    GraceTimer,
    IdleTimer,
    Output,
    Persist,
    RunHint,
    Send,
    SetTimer,
    TurnTimer,
)
from server.rooms.seats import (
    Refusal,
    RoomSettings,
    SeatTable,
    error_frame,
    token_digest,
)
from server.rooms.seeds import new_nonce, process_keys
from server.rooms.state import MAX_MODERATED, RoomState
from server.rooms.status import BETWEEN_GAMES, RoomStatus
from server.rules.base import Action, IllegalAction
from server.rules.registry import game_spec

__all__ = ["MAX_MODERATED", "RoomCore", "check_create", "hint_seed", "to_rules_action"]

log = logging.getLogger(__name__)
T = TypeVar("T")


def to_rules_action(action: m.ActionModel) -> Action:
    """The rules core's action for a wire action (codes already validated by pydantic)."""
    return Action(
        action.kind,
        tuple(parse_card(c) for c in action.cards),
        -1 if action.slot is None else action.slot,
    )


def hint_seed(seed: int, seat: int, version: int) -> int:
    """The hint bot's seed for ``seat`` at state ``version`` of a room whose bots are seeded
    ``seed`` (never its deals' seeds): the same question in the same room always gets the same
    answer."""
    return (seed * 1_000_003 + seat * 7919 + version * 104_729) % 2**63


def check_create(game: m.GameName, players: int, *, daily: bool, hints: bool) -> None:
    """Refuse a room that cannot be opened, before anything is claimed or stored for it.

    Raises:
        Refusal: ``bad_seats``, ``hints_not_allowed``.
    """
    try:
        game_spec(game).check_players(players)  # the game registry knows the seat counts
    except ValueError as exc:
        raise Refusal(ErrorCode.BAD_SEATS, str(exc)) from None
    if hints and daily:
        why = "hints are not offered in a daily game: everyone plays it on their own"
        raise Refusal(ErrorCode.HINTS_NOT_ALLOWED, why)


class _Read(Generic[T]):
    """A read-only attribute of the room: a field of its state (``path``: dotted)."""

    __slots__ = ("_get",)

    def __init__(self, path: str) -> None:
        self._get = operator.attrgetter(f"state.{path}")

    @overload
    def __get__(self, room: None, owner: type) -> _Read[T]: ...
    @overload
    def __get__(self, room: RoomCore, owner: type) -> T: ...
    def __get__(self, room: RoomCore | None, owner: type) -> T | _Read[T]:
        return self if room is None else cast(T, self._get(room))

    def __set__(self, room: RoomCore, value: T) -> None:
        raise AttributeError("a room's state changes through its inputs")


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
        daily: bool = False,
        hints: bool = False,
        make_token: Callable[[], str] | None = None,
    ) -> None:
        check_create(game, players, daily=daily, hints=hints)
        self.code = code
        self.game: m.GameName = game
        self.players = players
        self.settings = settings
        # Deals: fair (server.rules.deal) from the server's keys and this room's nonce, or,
        # given a ``seed`` (sims, tests), from random.Random(seed), proving nothing.
        self.seed = seed
        self.nonce = nonce or (new_nonce() if seed is None else str(seed))
        keys = settings.keys or process_keys()
        self.source = DealSource(keys, code, self.nonce)
        # the bots' and hints' own stream, never derivable from a deal's seed
        self.bot_seed = keys.bots(code, self.nonce) if seed is None else seed
        self.options: m.GameOptions = options or m.ShitheadOptions()
        self.options_frame = self.options.model_dump()  # as the room frame writes them
        self.turn_timer = turn_timer
        self.daily = daily
        self.hints = hints  # seated players may ask for hints; results are not ranked
        self.make_token = make_token or (lambda: secrets.token_urlsafe(24))
        self.state = RoomState(SeatTable(players))
        self._before: rollback.Saved | None = None  # the room before the last input, for undo()
        # the room's chat budget, all senders together: spent, like a connection's budget,
        # by whatever input asked, so not part of the state a failed input gives back
        self._chat: TokenBucket | None = None

    # ------------------------------------------------------------------ the state, read

    seats = _Read[SeatTable]("seats")
    match = _Read[Match | None]("match")
    version = _Read[int]("version")
    host = _Read[int | None]("host")
    locked = _Read[bool]("locked")
    closed = _Read[bool]("closed")
    deadline = _Read[float | None]("clock.shown")  # the turn deadline states show
    daily_date = _Read[datetime.date | None]("daily_date")
    spectators = _Read[set[ConnId]]("spectators")
    where = _Read[dict[ConnId, int | None]]("where")  # connection -> seat (None: spectator)
    watchers = _Read[dict[ConnId, int]]("watchers")  # spectator -> its number in chat lines
    banned = _Read[list[str]]("banned")
    muted_seats = _Read[set[int]]("muted_seats")
    muted_devices = _Read[list[str]]("muted_devices")
    muted_watchers = _Read[set[ConnId]]("muted_watchers")

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
            return RoomStatus.OVER if full or match.is_over() else RoomStatus.BETWEEN
        if not state.seats.humans_connected():
            return RoomStatus.PAUSED
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
        if state.match is None:
            return 0
        if state.match.current.is_over() and not state.match.is_over():
            return state.match.game_index + 1
        return None

    def next_deal_info(self) -> dict[str, Any] | None:
        game = self.next_deal()
        if game is None:
            return None
        return {"game": game, "commitment": self.source.proof(game, None, ()).commitment}

    # ------------------------------------------------------------------ what the host does

    def deal_next(self) -> None:
        """Deal the match's next game with the players' values, a new version (host
        ``next_game``; raises :class:`IllegalAction` as :meth:`Match.next_game` does, changing
        nothing)."""
        state = self.state
        assert state.match is not None
        state.match.next_game(self.state.contributions())
        state.contributed = {}
        state.version += 1

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
            dealer=int(self.nonce, 16) % self.players if self.seed is None else 0,
        )
        state.contributed = {}
        state.version += 1

    def fill_empty(self, level: str) -> None:
        """A bot of ``level`` in every empty seat."""
        self.state.seats.fill_empty(level)

    def set_locked(self, locked: bool) -> None:
        self.state.locked = locked

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

    def _dispatch(self, item: RoomInput, now: float) -> list[Output]:
        match item:
            case Request(conn=conn, msg=msg, device=device):
                return self._request(conn, msg, device, now)
            case CreateHost(conn=conn, msg=msg, device=device):
                return self._create_host(conn, msg, device, now)
            case Disconnect(conn=conn):
                return self._disconnected(conn, now)
            case TimerFired(key=key):
                return self._timer(key, now)
            case BotMove(seat=seat, version=version, action=action):
                return play.bot_move(self, seat, version, action, now)
            case HintReady():
                return self._hint_ready(item)

    def _request(
        self, conn: ConnId, msg: m.ClientMessage, device: str | None, now: float
    ) -> list[Output]:
        try:
            match msg:
                case m.Join():
                    return self._on_join(conn, msg, device, now)
                case m.Watch():
                    return self._on_watch(conn, msg, device, now)
                case m.Resume():
                    return self._on_resume(conn, msg, device, now)
                case m.Act():
                    return self._on_act(conn, msg, now)
                case m.Host():
                    return self._on_host(conn, msg, now)
                case m.Chat():
                    return self._on_chat(conn, msg, now)
                case m.Leave():
                    return self._on_leave(conn, msg, now)
                case m.Hint():
                    return self._on_hint(conn, msg)
                case m.Contribute():
                    return self._on_contribute(conn, msg)
                case _:
                    raise Refusal(ErrorCode.UNKNOWN_TYPE, "not a room message")
        except Refusal as r:
            return [error_frame(conn, msg.id, r.code, r.message)]

    def _create_host(
        self, conn: ConnId, msg: m.Create, device: str | None, now: float
    ) -> list[Output]:
        """Seat the creator in seat 0 as the host."""
        try:
            name = clean_name(msg.name, [])
        except Refusal as r:
            return [error_frame(conn, msg.id, r.code, r.message)]
        state = self.state
        token = self._seat_human(0, conn, name, device)
        state.host = 0
        state.where[conn] = 0
        return [
            Persist(self.meta()),
            Send(conn, m.dump(m.Joined(ref=msg.id, room=self.code, seat=0, token=token))),
            *frames.room_frames(self),
            *play.schedule(self, now),
        ]

    def _disconnected(self, conn: ConnId, now: float) -> list[Output]:
        state = self.state
        out: list[Output] = []
        seat = state.where.pop(conn, None)
        state.forget_watcher(conn)
        if seat is not None and state.seats[seat].conn == conn:
            state.seats.disconnect(seat)
            out.append(SetTimer(GraceTimer(seat), now + self.settings.grace))
        out += frames.room_frames(self)
        out += play.schedule(self, now)
        return out

    def _timer(self, key: GraceTimer | TurnTimer | IdleTimer, now: float) -> list[Output]:
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
                    state.seats.mark_away(index)
                    if state.host == index:  # gone past grace: a present person hosts
                        state.pass_host_from(index)
                        out.append(Persist(self.meta()))
                return [*out, *frames.room_frames(self), *play.schedule(self, now)]
            case TurnTimer(version=version):
                if version == state.version and self.status() is RoomStatus.PLAYING:
                    return play.turn_expired(self, now)
                return []
            case IdleTimer():
                state.idle_armed = False
                if not self.anyone_connected() and not state.closed:
                    state.closed = True
                    return [CloseRoom("idle")]
                return []

    # ------------------------------------------------------------------ requests

    def _on_join(self, conn: ConnId, msg: m.Join, device: str | None, now: float) -> list[Output]:
        state = self.state
        self._not_here(conn)
        if state.is_banned(device):
            raise Refusal(ErrorCode.BANNED, "the host removed you from this room")
        if self.daily and self.settings.daily_alone:  # one person against the day's bots
            why = "a daily game is played alone against four fixed bots; you can watch"
            raise Refusal(ErrorCode.DAILY_FIXED, why)
        if state.locked:
            why = "the host has locked this room; you can still watch"
            raise Refusal(ErrorCode.ROOM_LOCKED, why)
        if self.status() not in BETWEEN_GAMES:
            raise Refusal(ErrorCode.GAME_IN_PROGRESS, "seats open between games; you can watch now")
        free = state.seats.free()  # empty, or a bot's
        if msg.seat is not None:
            if msg.seat >= self.players:
                raise Refusal(ErrorCode.BAD_SEAT, f"this room has seats 0 to {self.players - 1}")
            if msg.seat not in free:
                raise Refusal(ErrorCode.SEAT_TAKEN, f"seat {msg.seat} is not free")
            index = msg.seat
        elif free:
            # a truly empty seat before a bot's
            index = min(free, key=lambda i: (state.seats[i].kind != "empty", i))
        else:
            raise Refusal(ErrorCode.ROOM_FULL, "no free seat; you can watch")
        name = clean_name(msg.name, state.seats.names(skip=index))
        token = self._seat_human(index, conn, name, device)
        state.where[conn] = index
        state.take_host_if_gone(index)
        return [
            Persist(self.meta()),
            Send(conn, m.dump(m.Joined(ref=msg.id, room=self.code, seat=index, token=token))),
            *frames.room_frames(self),
            *frames.state_to(self, conn, index),
            *play.schedule(self, now),
        ]

    def _on_watch(self, conn: ConnId, msg: m.Watch, device: str | None, now: float) -> list[Output]:
        state = self.state
        self._not_here(conn)
        if state.is_banned(device):
            raise Refusal(ErrorCode.BANNED, "the host removed you from this room")
        state.add_watcher(conn, device)
        return [
            Send(conn, m.dump(m.Joined(ref=msg.id, room=self.code, seat=None))),
            *frames.room_frames(self),
            *frames.state_to(self, conn, None),
            *play.schedule(self, now),
        ]

    def _on_resume(
        self, conn: ConnId, msg: m.Resume, device: str | None, now: float
    ) -> list[Output]:
        state = self.state
        found = state.seats.with_token(msg.token, now)
        if found is None:
            raise Refusal(ErrorCode.BAD_TOKEN, "that token holds no seat in this room")
        index, current = found
        if conn in state.where and state.where[conn] != index:
            raise Refusal(ErrorCode.ALREADY_IN_ROOM, "leave your current place in this room first")
        out: list[Output] = []
        if device is not None and device != state.seats[index].device:
            state.seats.set_device(index, device)  # results are recorded for it from now on
        # a fresh token for every resume: the one just used is void once this is stored, so
        # of two devices resuming with one token the second is refused (bad_token); the
        # replaced one still resumes for a while (else the client still holds the previous)
        token = self.make_token()
        overlap = now + self.settings.token_overlap if current else None
        state.seats.rotate_token(index, token_digest(token), overlap)
        old = state.seats[index].conn
        if old is not None and old != conn:
            # the same player from a new connection: the old one is replaced
            out += self.expel(old, ErrorCode.REPLACED, "this seat was resumed from elsewhere")
        state.seats.connect(index, conn)
        state.where[conn] = index
        state.take_host_if_gone(index)
        out.append(Persist(self.meta()))  # before the new token goes out
        out.append(CancelTimer(GraceTimer(index)))
        out += play.refresh_deadline(self, now)  # back from a pause: the state shows the deadline
        out.append(
            Send(conn, m.dump(m.Joined(ref=msg.id, room=self.code, seat=index, token=token)))
        )
        out += frames.room_frames(self)
        out += frames.state_to(self, conn, index)
        out += play.schedule(self, now)
        return out

    def _on_act(self, conn: ConnId, msg: m.Act, now: float) -> list[Output]:
        state = self.state
        seat = self._seat_of(conn)
        if state.match is None:
            raise Refusal(ErrorCode.NOT_STARTED, "the game has not started")
        if msg.version != state.version:
            message = f"the game is at version {state.version}; here is the current view"
            stale = error_frame(conn, msg.id, ErrorCode.STALE_VERSION, message)
            return [stale, *frames.state_to(self, conn, seat)]
        try:
            action = to_rules_action(msg.action)
        except ValueError as exc:
            raise Refusal(ErrorCode.MALFORMED_ACTION, str(exc)) from None
        if action.kind == "swap" and self._swaps(seat) >= self.settings.max_swaps:
            why = f"{self.settings.max_swaps} swaps are the most one game takes: say ready"
            raise Refusal(ErrorCode.TOO_MANY_SWAPS, why)
        try:
            return play.apply(self, seat, action, now, ref=msg.id)
        except IllegalAction as exc:
            raise Refusal(rules_code(exc.code), exc.message) from None

    def _swaps(self, seat: int) -> int:
        """The swaps ``seat`` made in the current game (they come first in its log)."""
        assert self.state.match is not None
        log = self.state.match.current.log
        return sum(1 for who, a in log if who == seat and a.kind == "swap")

    def _on_host(self, conn: ConnId, msg: m.Host, now: float) -> list[Output]:
        state = self.state
        if conn not in state.where:
            raise Refusal(ErrorCode.NOT_IN_ROOM, "join this room first")
        if state.where[conn] is None or state.where[conn] != state.host:
            raise Refusal(ErrorCode.NOT_HOST, "only the host can do that")
        out = host_ops.perform(self, msg, now)
        dealt = msg.op in ("start", "next_game")
        if dealt:
            out += play.refresh_deadline(self, now)  # a new version: its deadline is in the record
        out.append(Persist(self.meta()))
        out.append(Send(conn, m.dump(m.Ack(ref=msg.id, version=state.version))))
        out += frames.room_frames(self)
        if dealt:
            out += frames.state_frames(self, [])
        out += play.schedule(self, now)
        return out

    def _on_chat(self, conn: ConnId, msg: m.Chat, now: float) -> list[Output]:
        state = self.state
        if conn not in state.where:
            raise Refusal(ErrorCode.NOT_IN_ROOM, "join or watch this room first")
        seat = state.where[conn]
        if state.chat_muted(conn, seat):
            raise Refusal(ErrorCode.MUTED, "the host has muted you in this room")
        if self._chat is None:
            per_second = self.settings.chat_per_minute / 60.0
            self._chat = TokenBucket(per_second, self.settings.chat_burst, now)
        if not self._chat.allow(now):
            raise Refusal(ErrorCode.CHAT_BUSY, "this room's chat is busy; wait a moment")
        name = (state.seats[seat].name or f"Seat {seat + 1}") if seat is not None else "spectator"
        watcher = state.watchers.get(conn) if seat is None else None
        line = m.dump(
            m.ChatLine(
                room=self.code, seat=seat, name=name, text=msg.text, at=now, spectator=watcher
            )
        )
        return [Send(conn, m.dump(m.Ack(ref=msg.id))), *(Send(c, line) for c in state.where)]

    def _on_hint(self, conn: ConnId, msg: m.Hint) -> list[Output]:
        """A seated player asks what the strong bot would do in their seat: it thinks
        elsewhere (:class:`RunHint`); nothing in the room changes."""
        state = self.state
        if conn not in state.where:
            raise Refusal(ErrorCode.NOT_IN_ROOM, "join this room first")
        if not self.hints:
            raise Refusal(ErrorCode.HINTS_OFF, "this room was opened without hints")
        seat = state.where[conn]
        if seat is None:
            raise Refusal(ErrorCode.NOT_SEATED, "only a seated player can ask for a hint")
        if state.match is None:
            raise Refusal(ErrorCode.NOT_STARTED, "the game has not started")
        game = state.match.current
        view = game.view(seat) if seat in game.to_act() else None
        if view is None or not view["legal"]:
            raise Refusal(ErrorCode.NOT_YOUR_TURN, "there is nothing for you to decide now")
        if seat in state.hints:
            raise Refusal(ErrorCode.HINT_PENDING, "your last hint is still being worked out")
        state.hints[seat] = state.version
        seed = hint_seed(self.bot_seed, seat, state.version)
        return [RunHint(conn, seat, self.game, view, state.version, seed, msg.id)]

    def _on_contribute(self, conn: ConnId, msg: m.Contribute) -> list[Output]:
        """A seated player's client sends its random value for the next deal (once per seat
        per deal): kept, unseen by anyone, until the deal, then revealed in the history."""
        state = self.state
        seat = self._seat_of(conn)
        game = self.next_deal()
        if game is None:
            why = (
                "a daily deal takes no contributions: every player of the day gets the same cards"
                if self.daily
                else "contributions are taken before a deal, in the lobby or between games"
            )
            raise Refusal(ErrorCode.BAD_CONTRIBUTION, why)
        if msg.game != game:
            raise Refusal(ErrorCode.BAD_CONTRIBUTION, f"the next deal is game {game}")
        if seat in state.contributed:
            raise Refusal(ErrorCode.BAD_CONTRIBUTION, "your seat has contributed to this deal")
        state.contributed[seat] = bytes.fromhex(msg.value)
        return [Persist(self.meta()), Send(conn, m.dump(m.Ack(ref=msg.id)))]

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

    def _on_leave(self, conn: ConnId, msg: m.Leave, now: float) -> list[Output]:
        state = self.state
        if conn not in state.where:
            raise Refusal(ErrorCode.NOT_IN_ROOM, "you are not in this room")
        out: list[Output] = []
        seat = state.where.pop(conn)
        state.forget_watcher(conn)
        if seat is not None:
            self.replace_human(seat)
            out.append(Persist(self.meta()))
        out.append(Send(conn, m.dump(m.Ack(ref=msg.id))))
        out.append(Detach(conn))
        out += frames.room_frames(self)
        out += play.schedule(self, now)
        return out

    # ------------------------------------------------------------------ helpers

    def _not_here(self, conn: ConnId) -> None:
        if conn in self.state.where:
            raise Refusal(ErrorCode.ALREADY_IN_ROOM, "you are already in this room")

    def _seat_of(self, conn: ConnId) -> int:
        where = self.state.where
        if conn not in where:
            raise Refusal(ErrorCode.NOT_IN_ROOM, "join this room first")
        seat = where[conn]
        if seat is None:
            raise Refusal(ErrorCode.NOT_SEATED, "spectators cannot act")
        return seat

    def _seat_human(self, index: int, conn: ConnId, name: str, device: str | None) -> str:
        token = self.make_token()
        self.state.seat_human(index, conn, name, token_digest(token), device)
        return token

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
            daily=record["daily"],
            hints=record.get("hints", False),  # records from before hints have none
        )
        room.state = records.state_from(record, room.source)
        return room

    def restored(self, now: float) -> list[Output]:
        """Timers a freshly restored room needs (held seats, idle close; the turn timer is
        armed with its stored deadline once a person must act)."""
        out: list[Output] = [
            SetTimer(GraceTimer(i), now + self.settings.grace)
            for i, s in enumerate(self.state.seats)
            if s.kind == "human"
        ]
        return out + play.schedule(self, now)
