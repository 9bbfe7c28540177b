"""The room as a sans-I/O state machine: typed inputs (:mod:`server.rooms.inputs`: requests,
disconnections, timers, bot moves) go in through :meth:`RoomCore.handle`; frames to send, timers
to set, bots to run and records to persist (:mod:`server.rooms.outputs`) come out.

The asyncio actor (:mod:`server.runtime.actor`) owns the queue, the clock and the sockets and does
what the outputs say, in order; a :class:`Persist` is awaited before anything after it is sent,
so nothing is acknowledged before it is saved. Tests drive this class directly, without sockets.

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

import copy
import dataclasses
import datetime
import logging
import secrets
from collections.abc import Callable
from typing import Any

from protocol import messages as m
from protocol.cards import parse_card
from protocol.errors import ErrorCode, rules_code
from protocol.views import EventWire
from server.bots.base import DEFAULT_LEVEL
from server.rooms import host as host_ops
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
    PersistAction,
    RunBot,
    RunHint,
    Send,
    SetTimer,
    TurnTimer,
)
from server.rooms.seats import (
    Refusal,
    RoomSettings,
    Seat,
    error_frame,
    stored_digest,
    token_digest,
    token_matches,
)
from server.rooms.seeds import new_nonce, process_keys
from server.rooms.status import BETWEEN_GAMES, RoomStatus
from server.rules.base import Action, Event, IllegalAction
from server.rules.registry import game_spec

log = logging.getLogger(__name__)


def to_rules_action(action: m.ActionModel) -> Action:
    """The rules core's action for a wire action (codes already validated by pydantic)."""
    return Action(
        action.kind,
        tuple(parse_card(c) for c in action.cards),
        -1 if action.slot is None else action.slot,
    )


# What a failed input may have changed (besides seats and the match), for _save/_restore.
_PLAIN_FIELDS = (
    "host",
    "locked",
    "version",
    "closed",
    "deadline",
    "_due",
    "_deadline_version",
    "_armed",
    "_idle_armed",
    "daily_date",
    "_next_watcher",
    "_seatings",
)
_COPIED_FIELDS = (
    "spectators",
    "where",
    "_pending",
    "_stand_in",
    "_hints",
    "banned",
    "muted_seats",
    "muted_devices",
    "muted_watchers",
    "watchers",
    "_watch_devices",
    "_contributed",
)
#: Device digests a room keeps banned (kick) or muted; beyond, the oldest are forgotten.
MAX_MODERATED = 64
# What an act or a bot's move may change besides the match: its version and deadline, the bots
# asked and the idle timer (never the seats, who is in the room, the host, locks or hints), so
# the snapshot taken before one, the inputs of almost every turn, copies only these.
_MOVE_FIELDS = ("version", "deadline", "_due", "_deadline_version", "_armed", "_idle_armed")
_MOVE_COPIED = ("_pending", "_stand_in")


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


@dataclasses.dataclass(frozen=True, slots=True)
class _Saved:
    """What :meth:`RoomCore.handle` needs to put the room back after a failed input: the room's
    own fields, and where the match's append-only logs stood."""

    fields: dict[str, Any]
    # copies of the seats (every field a value, so a shallow copy is whole, whatever fields a
    # seat gains); None: a move's snapshot, whose seats are the same objects, unchanged
    seats: list[Seat] | None
    match: Match | None
    log_at: tuple[int, int]


class RoomCore:
    """One room: seats, spectators, the match, its version, and the timers it wants."""

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
        self._contributed: dict[int, bytes] = {}  # seat -> its value for the next deal
        self.options: m.GameOptions = options or m.ShitheadOptions()
        self._options = self.options.model_dump()  # as the room frame writes them
        self.turn_timer = turn_timer
        self.daily = daily
        self.hints = hints  # seated players may ask for hints; results are not ranked
        self.daily_date: datetime.date | None = None
        self.make_token = make_token or (lambda: secrets.token_urlsafe(24))
        self.seats = [Seat() for _ in range(players)]
        self.host: int | None = None
        self.locked = False
        self.spectators: set[ConnId] = set()
        self.where: dict[ConnId, int | None] = {}  # connection -> seat (None: spectator)
        self.match: Match | None = None
        self.version = 0
        self.closed = False
        self.deadline: float | None = None  # the turn deadline states show (a person must act)
        self._due: float | None = None  # the deadline of _deadline_version, shown or not
        self._deadline_version = -1
        self._armed = -1  # the version whose turn timer is set now
        self._pending: dict[int, int] = {}  # seat -> version a bot was asked to move at
        self._stand_in: set[int] = set()  # humans out of time this turn: a bot may move for them
        self._hints: dict[int, int] = {}  # seat -> version of the hint it is waiting for
        self._idle_armed = False
        self._before: _Saved | None = None  # the room before the last input, for undo()
        # moderation: devices the host removed (kick) may not come back; muted ones not chat
        self.banned: list[str] = []  # device digests, oldest first (at most MAX_MODERATED)
        self.muted_seats: set[int] = set()
        self.muted_devices: list[str] = []  # device digests, oldest first (MAX_MODERATED)
        self.muted_watchers: set[ConnId] = set()
        self.watchers: dict[ConnId, int] = {}  # spectator -> its number in chat lines
        self._watch_devices: dict[ConnId, str] = {}  # spectator -> its device digest
        self._next_watcher = 0
        self._seatings = 0  # people seated so far: the order the host role passes in
        self._chat: TokenBucket | None = None  # the room's chat budget, all senders together

    # ------------------------------------------------------------------ queries

    def status(self) -> RoomStatus:
        if self.closed:
            return RoomStatus.CLOSED
        if self.match is None:
            return RoomStatus.LOBBY
        if self.match.current.is_over():
            # past max_games the room deals no more: its history stays bounded
            full = self.match.games_played() >= self.settings.max_games
            return RoomStatus.OVER if full or self.match.is_over() else RoomStatus.BETWEEN
        if not self.humans_connected():
            return RoomStatus.PAUSED
        return RoomStatus.PLAYING

    def humans_connected(self) -> bool:
        for s in self.seats:  # noqa: SIM110  # a loop, not any(): asked several times per input
            if s.conn is not None and s.kind == "human":
                return True
        return False

    def anyone_connected(self) -> bool:
        return bool(self.where)

    def info(self) -> dict[str, Any]:
        """The room's public state: the fields of :class:`~protocol.messages.RoomInfo`, in
        its order, as plain data (the room frame is written straight from it, as states are:
        a test checks it is the model's own text)."""
        match = self.match
        seats = []
        current = match.current if match else None
        acting = set(current.to_act()) if current else set()
        for i, seat in enumerate(self.seats):
            info = seat.info(i, self.host, self._seat_muted(i))
            if seat.kind == "human" and seat.away and i in acting:
                info["playing_for"] = self.settings.stand_in_level
            seats.append(info)
        return {
            "room": self.code,
            "game": self.game,
            "status": self.status().value,
            "seats": seats,
            "spectators": len(self.spectators),
            "locked": self.locked,
            "turn_timer": self.turn_timer,
            "options": self._options,
            "games_played": match.games_played() if match else 0,
            "totals": match.totals() if match else [0] * self.players,
            "match_length": match.match_length if match else game_spec(self.game).match_length,
            "daily": self.daily_date.isoformat() if self.daily_date else None,
            "hints": self.hints,
            "next_deal": self._next_deal_info(),
        }

    def _next_deal(self) -> int | None:
        """The index of the game the host deals next, while it takes contributions (never a
        daily match's: every player of the day gets the same cards, SS-9.2)."""
        if self.seed is not None or self.closed or (self.daily and game_spec(self.game).daily):
            return None
        if self.match is None:
            return 0
        if self.match.current.is_over() and not self.match.is_over():
            return self.match.game_index + 1
        return None

    def _next_deal_info(self) -> dict[str, Any] | None:
        game = self._next_deal()
        if game is None:
            return None
        return {"game": game, "commitment": self.source.proof(game, None, ()).commitment}

    def _contributions(self) -> list[bytes | None]:
        """The next deal's contributions in seat order (a seat a person no longer holds has
        none)."""
        return [
            self._contributed.get(i) if s.kind == "human" else None
            for i, s in enumerate(self.seats)
        ]

    def deal_next(self) -> None:
        """Deal the match's next game with the players' values (host ``next_game``; raises
        :class:`IllegalAction` as :meth:`Match.next_game` does, changing nothing)."""
        assert self.match is not None
        self.match.next_game(self._contributions())
        self._contributed = {}

    # ------------------------------------------------------------------ inputs

    def handle(self, item: RoomInput, now: float) -> list[Output]:
        """Everything that happens to a room comes through here, one input at a time.

        The room computes and commits in one go; if anything unexpected goes wrong it is put
        back as it was, and the sender (if any) gets ``internal_error``.
        """
        moves = isinstance(item, BotMove) or (isinstance(item, Request) and type(item.msg) is m.Act)
        saved = self._save(moves)
        self._before = saved
        try:
            return self._dispatch(item, now)
        except Exception:
            log.exception("room %s: %s failed; the room is put back", self.code, item)
            try:
                self._restore(saved)
            except Exception:  # the log itself no longer replays: close rather than drift
                log.exception("room %s could not be put back; closing it", self.code)
                self.closed = True
                return [CloseRoom("internal error")]
            conn = sender(item)
            if conn is None:
                return []
            ref = item.msg.id if isinstance(item, Request | CreateHost) else None
            message = "the server failed to handle that; nothing changed"
            return [error_frame(conn, ref, ErrorCode.INTERNAL_ERROR, message)]

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
                return self._bot_move(seat, version, action, now)
            case HintReady():
                return self._hint_ready(item)

    def _request(
        self, conn: ConnId, msg: m.ClientMessage, device: str | None, now: float
    ) -> list[Output]:
        out: list[Output] = []
        try:
            match msg:
                case m.Join():
                    self._on_join(conn, msg, device, now, out)
                case m.Watch():
                    self._on_watch(conn, msg, device, now, out)
                case m.Resume():
                    self._on_resume(conn, msg, device, now, out)
                case m.Act():
                    self._on_act(conn, msg, now, out)
                case m.Host():
                    self._on_host(conn, msg, now, out)
                case m.Chat():
                    self._on_chat(conn, msg, now, out)
                case m.Leave():
                    self._on_leave(conn, msg, now, out)
                case m.Hint():
                    self._on_hint(conn, msg, out)
                case m.Contribute():
                    self._on_contribute(conn, msg, out)
                case _:
                    raise Refusal(ErrorCode.UNKNOWN_TYPE, "not a room message")
        except Refusal as r:
            return [error_frame(conn, msg.id, r.code, r.message)]
        return out

    def _create_host(
        self, conn: ConnId, msg: m.Create, device: str | None, now: float
    ) -> list[Output]:
        """Seat the creator in seat 0 as the host."""
        out: list[Output] = []
        try:
            name = clean_name(msg.name, [])
        except Refusal as r:
            return [error_frame(conn, msg.id, r.code, r.message)]
        token = self._seat_human(0, conn, name, device)
        self.host = 0
        self.where[conn] = 0
        out.append(Persist(self.meta()))
        out.append(Send(conn, m.dump(m.Joined(ref=msg.id, room=self.code, seat=0, token=token))))
        self._send_room(out)
        self._schedule(now, out)
        return out

    def _disconnected(self, conn: ConnId, now: float) -> list[Output]:
        out: list[Output] = []
        seat = self.where.pop(conn, None)
        self._forget_watcher(conn)
        if seat is not None and self.seats[seat].conn == conn:
            self.seats[seat].conn = None
            out.append(SetTimer(GraceTimer(seat), now + self.settings.grace))
        self._send_room(out)
        self._schedule(now, out)
        return out

    def _timer(self, key: GraceTimer | TurnTimer | IdleTimer, now: float) -> list[Output]:
        out: list[Output] = []
        match key:
            case GraceTimer(seat=index):
                seat = self.seats[index]
                if seat.kind == "human" and seat.conn is None:
                    if self.match is None:
                        self.seats[index] = Seat()  # a lobby seat is freed
                        self.muted_seats.discard(index)
                        self._pass_host_from(index)
                        out.append(Persist(self.meta()))
                    else:
                        seat.away = True
                        if self.host == index:  # gone past grace: a present person hosts
                            self._pass_host_from(index)
                            out.append(Persist(self.meta()))
                    self._send_room(out)
                    self._schedule(now, out)
            case TurnTimer(version=version):
                if version == self.version and self.status() is RoomStatus.PLAYING:
                    self._turn_expired(now, out)
            case IdleTimer():
                self._idle_armed = False
                if not self.anyone_connected() and not self.closed:
                    self.closed = True
                    out.append(CloseRoom("idle"))
        return out

    def _bot_move(self, seat: int, version: int, action: Action, now: float) -> list[Output]:
        """A bot's move for ``seat`` chosen against ``version``. It is dropped (and the bot asked
        again if still due) when the game moved on, except in a simultaneous phase, where other
        seats' moves do not change this seat's choice."""
        if self._pending.get(seat) == version:
            del self._pending[seat]
        out: list[Output] = []
        if self.status() is RoomStatus.PLAYING and self.match is not None:
            game = self.match.current
            s = self.seats[seat]
            due = s.kind == "bot" or (s.kind == "human" and (s.away or seat in self._stand_in))
            fresh = version == self.version or game.simultaneous()
            if due and fresh and seat in game.to_act():
                try:
                    self._apply(seat, action, now, out)
                    return out
                except IllegalAction:
                    pass  # a stale choice no longer legal: ask again below
        self._schedule(now, out)
        return out

    # ------------------------------------------------------------------ requests

    def _taken_names(self, skip: int | None = None) -> list[str]:
        return [s.name for i, s in enumerate(self.seats) if s.name and i != skip]

    def _on_join(
        self, conn: ConnId, msg: m.Join, device: str | None, now: float, out: list[Output]
    ) -> None:
        self._not_here(conn)
        self._not_banned(device)
        if self.daily and self.settings.daily_alone:  # one person against the day's bots
            why = "a daily game is played alone against four fixed bots; you can watch"
            raise Refusal(ErrorCode.DAILY_FIXED, why)
        if self.locked:
            why = "the host has locked this room; you can still watch"
            raise Refusal(ErrorCode.ROOM_LOCKED, why)
        if self.status() not in BETWEEN_GAMES:
            raise Refusal(ErrorCode.GAME_IN_PROGRESS, "seats open between games; you can watch now")
        free = [i for i, s in enumerate(self.seats) if s.kind != "human"]  # empty, or a bot's
        if msg.seat is not None:
            if msg.seat >= self.players:
                raise Refusal(ErrorCode.BAD_SEAT, f"this room has seats 0 to {self.players - 1}")
            if msg.seat not in free:
                raise Refusal(ErrorCode.SEAT_TAKEN, f"seat {msg.seat} is not free")
            index = msg.seat
        elif free:
            # a truly empty seat before a bot's
            index = min(free, key=lambda i: (self.seats[i].kind != "empty", i))
        else:
            raise Refusal(ErrorCode.ROOM_FULL, "no free seat; you can watch")
        name = clean_name(msg.name, self._taken_names(skip=index))
        token = self._seat_human(index, conn, name, device)
        self.where[conn] = index
        self._take_host_if_gone(index)
        out.append(Persist(self.meta()))
        out.append(
            Send(conn, m.dump(m.Joined(ref=msg.id, room=self.code, seat=index, token=token)))
        )
        self._send_room(out)
        self._send_state_to(conn, index, out)
        self._schedule(now, out)

    def _on_watch(
        self, conn: ConnId, msg: m.Watch, device: str | None, now: float, out: list[Output]
    ) -> None:
        self._not_here(conn)
        self._not_banned(device)
        self.spectators.add(conn)
        self.where[conn] = None
        self.watchers[conn] = self._next_watcher
        self._next_watcher += 1
        if device is not None:
            self._watch_devices[conn] = device
        out.append(Send(conn, m.dump(m.Joined(ref=msg.id, room=self.code, seat=None))))
        self._send_room(out)
        self._send_state_to(conn, None, out)
        self._schedule(now, out)

    def _seat_with_token(self, token: str, now: float) -> tuple[int, bool] | None:
        """The seat ``token`` resumes, and whether it is the seat's current token: the one a
        resume replaced still works for a seat nobody holds, for ``token_overlap`` seconds."""
        for i, s in enumerate(self.seats):
            if s.kind != "human":
                continue
            if token_matches(token, s.token_sha256):
                return i, True
            held = s.previous
            if held and s.conn is None and now < held[1] and token_matches(token, held[0]):
                return i, False
        return None

    def _on_resume(
        self, conn: ConnId, msg: m.Resume, device: str | None, now: float, out: list[Output]
    ) -> None:
        found = self._seat_with_token(msg.token, now)
        if found is None:
            raise Refusal(ErrorCode.BAD_TOKEN, "that token holds no seat in this room")
        index, current = found
        if conn in self.where and self.where[conn] != index:
            raise Refusal(ErrorCode.ALREADY_IN_ROOM, "leave your current place in this room first")
        seat = self.seats[index]
        if device is not None and device != seat.device:
            seat.device = device  # results are recorded for this device from now on
        # a fresh token for every resume: the one just used is void once this is stored, so
        # of two devices resuming with one token the second is refused (bad_token)
        token = self.make_token()
        if current and seat.token_sha256 is not None:  # else the client still holds previous
            seat.previous = (seat.token_sha256, now + self.settings.token_overlap)
        seat.token_sha256 = token_digest(token)
        old = seat.conn
        if old is not None and old != conn:
            # the same player from a new connection: the old one is replaced
            self.where.pop(old, None)
            out.append(
                error_frame(old, None, ErrorCode.REPLACED, "this seat was resumed from elsewhere")
            )
            out.append(Detach(old))
        seat.conn = conn
        seat.away = False
        self.where[conn] = index
        self._take_host_if_gone(index)
        out.append(Persist(self.meta()))  # before the new token goes out
        out.append(CancelTimer(GraceTimer(index)))
        self._refresh_deadline(now, out)  # back from a pause: the state shows the deadline
        out.append(
            Send(conn, m.dump(m.Joined(ref=msg.id, room=self.code, seat=index, token=token)))
        )
        self._send_room(out)
        self._send_state_to(conn, index, out)
        self._schedule(now, out)

    def _on_act(self, conn: ConnId, msg: m.Act, now: float, out: list[Output]) -> None:
        seat = self._seat_of(conn)
        if self.match is None:
            raise Refusal(ErrorCode.NOT_STARTED, "the game has not started")
        if msg.version != self.version:
            message = f"the game is at version {self.version}; here is the current view"
            out.append(error_frame(conn, msg.id, ErrorCode.STALE_VERSION, message))
            self._send_state_to(conn, seat, out)
            return
        try:
            action = to_rules_action(msg.action)
        except ValueError as exc:
            raise Refusal(ErrorCode.MALFORMED_ACTION, str(exc)) from None
        if action.kind == "swap" and self._swaps(seat) >= self.settings.max_swaps:
            why = f"{self.settings.max_swaps} swaps are the most one game takes: say ready"
            raise Refusal(ErrorCode.TOO_MANY_SWAPS, why)
        try:
            self._apply(seat, action, now, out, ref=msg.id)
        except IllegalAction as exc:
            raise Refusal(rules_code(exc.code), exc.message) from None

    def _swaps(self, seat: int) -> int:
        """The swaps ``seat`` made in the current game (they come first in its log)."""
        assert self.match is not None
        return sum(1 for who, a in self.match.current.log if who == seat and a.kind == "swap")

    def _on_host(self, conn: ConnId, msg: m.Host, now: float, out: list[Output]) -> None:
        if conn not in self.where:
            raise Refusal(ErrorCode.NOT_IN_ROOM, "join this room first")
        if self.where[conn] is None or self.where[conn] != self.host:
            raise Refusal(ErrorCode.NOT_HOST, "only the host can do that")
        host_ops.perform(self, conn, msg, now, out)
        if msg.op in ("start", "next_game"):
            self._refresh_deadline(now, out)  # a new version: its deadline is in the record
        out.append(Persist(self.meta()))
        out.append(Send(conn, m.dump(m.Ack(ref=msg.id, version=self.version))))
        self._send_room(out)
        if msg.op in ("start", "next_game"):
            self._send_states([], out)
        self._schedule(now, out)

    def _on_chat(self, conn: ConnId, msg: m.Chat, now: float, out: list[Output]) -> None:
        if conn not in self.where:
            raise Refusal(ErrorCode.NOT_IN_ROOM, "join or watch this room first")
        seat = self.where[conn]
        if self._chat_muted(conn, seat):
            raise Refusal(ErrorCode.MUTED, "the host has muted you in this room")
        if self._chat is None:
            per_second = self.settings.chat_per_minute / 60.0
            self._chat = TokenBucket(per_second, self.settings.chat_burst, now)
        if not self._chat.allow(now):
            raise Refusal(ErrorCode.CHAT_BUSY, "this room's chat is busy; wait a moment")
        name = (self.seats[seat].name or f"Seat {seat + 1}") if seat is not None else "spectator"
        watcher = self.watchers.get(conn) if seat is None else None
        line = m.dump(
            m.ChatLine(
                room=self.code, seat=seat, name=name, text=msg.text, at=now, spectator=watcher
            )
        )
        out.append(Send(conn, m.dump(m.Ack(ref=msg.id))))
        out.extend(Send(c, line) for c in self.where)

    def _on_hint(self, conn: ConnId, msg: m.Hint, out: list[Output]) -> None:
        """A seated player asks what the strong bot would do in their seat: it thinks
        elsewhere (:class:`RunHint`); nothing in the room changes."""
        if conn not in self.where:
            raise Refusal(ErrorCode.NOT_IN_ROOM, "join this room first")
        if not self.hints:
            raise Refusal(ErrorCode.HINTS_OFF, "this room was opened without hints")
        seat = self.where[conn]
        if seat is None:
            raise Refusal(ErrorCode.NOT_SEATED, "only a seated player can ask for a hint")
        if self.match is None:
            raise Refusal(ErrorCode.NOT_STARTED, "the game has not started")
        game = self.match.current
        view = game.view(seat) if seat in game.to_act() else None
        if view is None or not view["legal"]:
            raise Refusal(ErrorCode.NOT_YOUR_TURN, "there is nothing for you to decide now")
        if seat in self._hints:
            raise Refusal(ErrorCode.HINT_PENDING, "your last hint is still being worked out")
        self._hints[seat] = self.version
        seed = hint_seed(self.bot_seed, seat, self.version)
        out.append(RunHint(conn, seat, self.game, view, self.version, seed, msg.id))

    def _on_contribute(self, conn: ConnId, msg: m.Contribute, out: list[Output]) -> None:
        """A seated player's client sends its random value for the next deal (once per seat
        per deal): kept, unseen by anyone, until the deal, then revealed in the history."""
        seat = self._seat_of(conn)
        game = self._next_deal()
        if game is None:
            why = (
                "a daily deal takes no contributions: every player of the day gets the same cards"
                if self.daily
                else "contributions are taken before a deal, in the lobby or between games"
            )
            raise Refusal(ErrorCode.BAD_CONTRIBUTION, why)
        if msg.game != game:
            raise Refusal(ErrorCode.BAD_CONTRIBUTION, f"the next deal is game {game}")
        if seat in self._contributed:
            raise Refusal(ErrorCode.BAD_CONTRIBUTION, "your seat has contributed to this deal")
        self._contributed[seat] = bytes.fromhex(msg.value)
        out.append(Persist(self.meta()))
        out.append(Send(conn, m.dump(m.Ack(ref=msg.id))))

    def _hint_ready(self, item: HintReady) -> list[Output]:
        """A hint is ready: only the connection that asked gets it, if it still holds the seat
        (a stale one still goes: it names its version)."""
        if self._hints.get(item.seat) == item.version:
            del self._hints[item.seat]
        if self.where.get(item.conn) != item.seat:
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

    def _on_leave(self, conn: ConnId, msg: m.Leave, now: float, out: list[Output]) -> None:
        if conn not in self.where:
            raise Refusal(ErrorCode.NOT_IN_ROOM, "you are not in this room")
        seat = self.where.pop(conn)
        self._forget_watcher(conn)
        if seat is not None:
            self._replace_human(seat)
            out.append(Persist(self.meta()))
        out.append(Send(conn, m.dump(m.Ack(ref=msg.id))))
        out.append(Detach(conn))
        self._send_room(out)
        self._schedule(now, out)

    # ------------------------------------------------------------------ helpers

    def _not_here(self, conn: ConnId) -> None:
        if conn in self.where:
            raise Refusal(ErrorCode.ALREADY_IN_ROOM, "you are already in this room")

    def _seat_of(self, conn: ConnId) -> int:
        if conn not in self.where:
            raise Refusal(ErrorCode.NOT_IN_ROOM, "join this room first")
        seat = self.where[conn]
        if seat is None:
            raise Refusal(ErrorCode.NOT_SEATED, "spectators cannot act")
        return seat

    def _seat_human(self, index: int, conn: ConnId, name: str, device: str | None) -> str:
        token = self.make_token()
        self._contributed.pop(index, None)  # a new person: their own value, if any
        self._seatings += 1
        self.seats[index] = Seat(
            kind="human",
            name=name,
            token_sha256=token_digest(token),
            conn=conn,
            device=device,
            since=self._seatings,
        )
        return token

    def _not_banned(self, device: str | None) -> None:
        if device is not None and device in self.banned:
            raise Refusal(ErrorCode.BANNED, "the host removed you from this room")

    def ban(self, index: int) -> None:
        """Keep the device of seat ``index`` out of this room (the host kicked it)."""
        device = self.seats[index].device
        if device is not None and device not in self.banned:
            self.banned = [*self.banned, device][-MAX_MODERATED:]

    def _seat_muted(self, index: int) -> bool:
        device = self.seats[index].device
        return index in self.muted_seats or (device is not None and device in self.muted_devices)

    def _chat_muted(self, conn: ConnId, seat: int | None) -> bool:
        if seat is not None:
            return self._seat_muted(seat)
        device = self._watch_devices.get(conn)
        return conn in self.muted_watchers or (device is not None and device in self.muted_devices)

    def mute_device(self, device: str | None, muted: bool) -> None:
        if device is None:
            return
        kept = [d for d in self.muted_devices if d != device]
        self.muted_devices = [*kept, device][-MAX_MODERATED:] if muted else kept

    def _forget_watcher(self, conn: ConnId) -> None:
        self.spectators.discard(conn)
        self.watchers.pop(conn, None)
        self._watch_devices.pop(conn, None)
        self.muted_watchers.discard(conn)

    def _replace_human(self, index: int) -> None:
        """A human leaves a seat: empty before play, a bot once the match has begun."""
        if self.match is None:
            self.seats[index] = Seat()
        else:
            self.seats[index] = Seat.bot(index, self.settings.stand_in_level)
        self.muted_seats.discard(index)
        self._pass_host_from(index)

    def _fill_empty(self, level: str) -> None:
        for i, s in enumerate(self.seats):
            if s.kind == "empty":
                self.seats[i] = Seat.bot(i, level)

    def _pass_host_from(self, index: int) -> None:
        """Seat ``index`` was left, or its person is away past grace: if it hosts, the role
        passes to the connected person seated longest (nobody connected: to whoever has sat
        longest, who may come back; the next person to join or resume takes it then)."""
        if self.host != index:
            return
        humans = sorted((s.since, i) for i, s in enumerate(self.seats) if s.kind == "human")
        present = [i for _, i in humans if self.seats[i].conn is not None]
        present = [i for i in present if not self.seats[i].away]
        if present:
            self.host = present[0]
        else:
            self.host = humans[0][1] if humans else None

    def _take_host_if_gone(self, index: int) -> bool:
        """Seat ``index``'s person is here: they host if the host's person is gone (away past
        grace, or no host at all); ``True`` if the role came to them."""
        host = self.seats[self.host] if self.host is not None else None
        if self.host == index or (host is not None and host.kind == "human" and not host.away):
            return False
        self.host = index
        return True

    def _start_match(self, now: float) -> None:
        daily = None
        if self.daily and self.game == "sheepshead":
            daily = datetime.datetime.fromtimestamp(now, datetime.UTC).date()
            self.daily_date = daily
        self.match = Match(
            self.game,
            self.players,
            seed=self.seed,
            daily=daily,
            source=self.source,
            contributions=self._contributions(),
            dealer=int(self.nonce, 16) % self.players if self.seed is None else 0,
        )
        self._contributed = {}
        self.version += 1

    def _apply(
        self,
        seat: int,
        action: Action,
        now: float,
        out: list[Output],
        ref: m.RequestId | None = None,
        schedule: bool = True,
    ) -> None:
        assert self.match is not None
        events = self.match.apply(seat, action)  # raises IllegalAction before any change
        self.version += 1
        self._stand_in.clear()
        self._refresh_deadline(now, out)  # the states below carry this version's deadline
        entry = {"v": self.version, "g": self.match.game_index, "s": seat, "a": action.to_str()}
        if self._due is not None and self._deadline_version == self.version:
            entry["d"] = self._due  # stored with the action: a takeover keeps the deadline
        out.append(PersistAction(entry))
        if ref is not None:
            human = self.seats[seat].conn
            if human is not None:
                out.append(Send(human, m.dump_ack(ref, self.version)))
        self._send_states(events, out)
        if self.match.current.is_over():
            self._send_room(out)
        if schedule:
            self._schedule(now, out)

    def _turn_expired(self, now: float, out: list[Output]) -> None:
        """The turn timer ran out: slow humans are declared ready (SH-2.3) or a stand-in bot
        plays their turn."""
        assert self.match is not None
        game = self.match.current
        humans = [s for s in game.to_act() if self.seats[s].kind == "human"]
        if game.phase == "swap":
            for seat in humans:
                self._apply(seat, Action("ready"), now, out, schedule=False)
            self._schedule(now, out)
            return
        for seat in humans:
            self._stand_in.add(seat)
            self._ask_bot(seat, self.settings.stand_in_level, 0.0, out)

    def _ask_bot(self, seat: int, level: str, delay: float, out: list[Output]) -> None:
        assert self.match is not None
        asked = self._pending.get(seat)
        if asked is not None and (asked == self.version or self.match.current.simultaneous()):
            return  # that bot is still thinking
        self._pending[seat] = self.version
        view = self.match.current.view(seat)
        out.append(RunBot(seat, level, self.game, view, self.version, delay))

    def _schedule(self, now: float, out: list[Output]) -> None:
        """After any change: bots to run, the turn timer, and the idle timer."""
        if not self.anyone_connected() and not self.closed:
            if not self._idle_armed:
                self._idle_armed = True
                idle = self.settings.idle_timeout
                if self.match is None:  # an empty lobby: nothing to come back to, it goes soon
                    idle = min(idle, self.settings.lobby_timeout)
                out.append(SetTimer(IdleTimer(), now + idle))
        elif self._idle_armed:
            self._idle_armed = False
            out.append(CancelTimer(IdleTimer()))
        self._refresh_deadline(now, out)
        if self.status() is not RoomStatus.PLAYING:
            return  # lobby, between games, over, or paused: no bots
        assert self.match is not None
        for seat in self.match.current.to_act():
            s = self.seats[seat]
            if s.kind == "bot":
                self._ask_bot(seat, s.level or DEFAULT_LEVEL, self.settings.bot_delay, out)
            elif s.away or seat in self._stand_in:
                self._ask_bot(seat, self.settings.stand_in_level, self.settings.bot_delay, out)

    def _human_waiting(self) -> bool:
        """Whether a person (not a bot, not a stand-in) must act in the current version."""
        if self.status() is not RoomStatus.PLAYING:
            return False
        assert self.match is not None
        return any(
            self.seats[seat].kind == "human"
            and not self.seats[seat].away
            and seat not in self._stand_in
            for seat in self.match.current.to_act()
        )

    def _human_to_act(self) -> bool:
        """Whether a human's seat (present or not) must act in the current version."""
        if self.match is None or self.match.current.is_over():
            return False
        return any(self.seats[seat].kind == "human" for seat in self.match.current.to_act())

    def _refresh_deadline(self, now: float, out: list[Output]) -> None:
        """The turn timer of the current version, set before any state of it is rendered.

        One deadline per version, fixed when the version begins if a human's seat must act in
        it, and stored with it: joins, chat, reconnections, pauses, restarts and takeovers
        never move it. It is shown and armed while a person must act; a deadline that passed
        meanwhile (the room paused, or rebuilt elsewhere) fires as soon as one must act again.
        """
        if self._deadline_version != self.version:
            self._deadline_version = self.version
            self._due = now + self.turn_timer if self.turn_timer and self._human_to_act() else None
        # (whether a person must act is asked only when there is a deadline to show)
        shown = self._due if self._due is not None and self._human_waiting() else None
        if shown is None:
            self._armed = -1
        elif self._armed != self.version:
            self._armed = self.version
            out.append(SetTimer(TurnTimer(self.version), shown))
        self.deadline = shown

    def _send_room(self, out: list[Output]) -> None:
        text = m.dump_room(self.info())
        out.extend(Send(c, text) for c in self.where)

    def _state_text(
        self,
        seat: int | None,
        events: list[EventWire] | m.Serialised,
        shared: bytes | None = None,
    ) -> str:
        """``seat``'s state frame (``shared``: this state's shared view, serialised)."""
        assert self.match is not None
        game = self.match.current
        # the room built every part itself: serialised straight, no model per recipient
        view = game.view(seat) if shared is None else m.serialised_view(shared, game.own_view(seat))
        commitment = self.match.commitment(self.match.game_index)
        return m.dump_state(self.code, self.version, seat, view, events, self.deadline, commitment)

    def _send_state_to(self, conn: ConnId, seat: int | None, out: list[Output]) -> None:
        if self.match is not None:
            out.append(Send(conn, self._state_text(seat, [])))

    def _send_states(self, events: list[Event], out: list[Output]) -> None:
        """Each seated connection its own view; every spectator the one spectator view."""
        assert self.match is not None
        # what every view of this state has in common, built and serialised once for all
        shared = m.json_bytes(self.match.current.shared_view())
        ev = m.serialised([e.to_json() for e in events])
        for i, s in enumerate(self.seats):
            if s.kind == "human" and s.conn is not None:
                out.append(Send(s.conn, self._state_text(i, ev, shared)))
        if self.spectators:
            text = self._state_text(None, ev, shared)
            out.extend(Send(c, text) for c in self.spectators)

    # ------------------------------------------------------------------ rollback

    def undo(self) -> None:
        """Put the room back as it was before the last input: its outputs could not be stored
        (the store is away), so nothing of it may stand or be sent."""
        if self._before is not None:
            self._restore(self._before)

    def _save(self, move: bool = False) -> _Saved:
        """A cheap snapshot: the room's own fields, and how far the match's logs reached.
        ``move``: before an act or a bot's move, only what those may change (see
        :data:`_MOVE_FIELDS`)."""
        match = self.match
        log_at = (match.game_index + 1, len(match.current.log)) if match else (0, 0)
        if move:
            fields = {name: getattr(self, name) for name in _MOVE_FIELDS}
            for name in _MOVE_COPIED:
                fields[name] = getattr(self, name).copy()
            return _Saved(fields, None, match, log_at)
        fields = {name: getattr(self, name) for name in _PLAIN_FIELDS}
        for name in _COPIED_FIELDS:
            fields[name] = getattr(self, name).copy()
        return _Saved(fields, [copy.copy(s) for s in self.seats], match, log_at)

    def _restore(self, saved: _Saved) -> None:
        """Put the room back as :meth:`_save` found it; the match is rebuilt from its log
        prefix, since a failure inside the rules may have left it half changed."""
        for name, value in saved.fields.items():
            setattr(self, name, value)
        if saved.seats is not None:
            self.seats = saved.seats
        match = saved.match
        if match is None:
            self.match = None
            return
        games, moves = saved.log_at
        logs = [list(g) for g in match.logs[:games]]
        logs[-1] = logs[-1][:moves]
        record = {
            **match.meta(),
            "games": games,
            "logs": [[[seat, a.to_str()] for seat, a in g] for g in logs],
        }
        self.match = Match.from_record(record, match.source)

    # ------------------------------------------------------------------ persistence

    def record(self) -> dict[str, Any]:
        """The room as plain data, every action included: enough to rebuild it anywhere."""
        return {**self.meta(), "match": self.match.record() if self.match else None}

    def meta(self) -> dict[str, Any]:
        """The room's record without the actions (those are stored one by one)."""
        return {
            "code": self.code,
            "game": self.game,
            "players": self.players,
            "seed": self.seed,  # None: dealt fairly (from the server's keys and the nonce)
            "nonce": self.nonce,
            # each seat's value for the next deal, until it is dealt (then in the match's record)
            "contributed": {str(seat): value.hex() for seat, value in self._contributed.items()},
            "options": self.options.model_dump(),
            "turn_timer": self.turn_timer,
            "daily": self.daily,
            "hints": self.hints,
            "daily_date": self.daily_date.isoformat() if self.daily_date else None,
            "locked": self.locked,
            "host": self.host,
            "banned": self.banned,
            "muted_seats": sorted(self.muted_seats),
            "muted_devices": self.muted_devices,
            "version": self.version,
            # the current version's turn deadline, [version, unix time] (actions carry later ones)
            "deadline": [self._deadline_version, self._due] if self._due is not None else None,
            "seats": [
                {
                    "kind": s.kind,
                    "name": s.name,
                    "token_sha256": s.token_sha256,
                    "level": s.level,
                    "device": s.device,  # a digest of the player's device token, for results
                    "since": s.since,
                    "previous": list(s.previous) if s.previous else None,
                }
                for s in self.seats
            ],
            "match": self.match.meta() if self.match else None,
        }

    @classmethod
    def from_stored(
        cls, meta: dict[str, Any], actions: list[dict[str, Any]], settings: RoomSettings
    ) -> RoomCore:
        """Rebuild a room from a store's :meth:`meta` and action entries."""
        record = dict(meta)
        if meta["match"] is not None:
            logs: list[list[list[Any]]] = [[] for _ in range(meta["match"]["games"])]
            last = meta["version"]
            for entry in sorted(actions, key=lambda e: e["v"]):
                while entry["g"] >= len(logs):
                    logs.append([])
                logs[entry["g"]].append([entry["s"], entry["a"]])
                if entry["v"] >= last:
                    last = entry["v"]
                    if entry["v"] > meta["version"]:  # the action's deadline is the latest
                        record["deadline"] = [last, entry["d"]] if "d" in entry else None
            record["match"] = {**meta["match"], "logs": logs}
            record["version"] = last
        return cls.from_record(record, settings)

    @classmethod
    def from_record(cls, record: dict[str, Any], settings: RoomSettings) -> RoomCore:
        """Rebuild a room (everyone disconnected; players resume with their tokens)."""
        room = cls(
            record["code"],
            record["game"],
            record["players"],
            settings=settings,
            seed=record["seed"],
            nonce=record.get("nonce"),  # records from before fair deals have a seed only
            options=m.ShitheadOptions.model_validate(record["options"] or {}),
            turn_timer=record["turn_timer"],
            daily=record["daily"],
            hints=record.get("hints", False),  # records from before hints have none
        )
        room.locked = record["locked"]
        room.host = record["host"]
        room.version = record["version"]
        room.seats = [
            Seat(
                kind=s["kind"],
                name=s["name"],
                token_sha256=stored_digest(s),
                level=s["level"],
                device=s.get("device"),
                since=s.get("since", i),  # records from before host passing: seat order
                previous=tuple(s["previous"]) if s.get("previous") else None,
            )
            for i, s in enumerate(record["seats"])
        ]
        room._seatings = max((s.since for s in room.seats), default=0)
        room.banned = list(record.get("banned", []))
        room.muted_seats = set(record.get("muted_seats", []))
        room.muted_devices = list(record.get("muted_devices", []))
        deadline = record.get("deadline")
        if deadline is not None and deadline[0] == room.version:  # the turn timer goes on
            room._deadline_version, room._due = deadline
        if record["daily_date"]:
            room.daily_date = datetime.date.fromisoformat(record["daily_date"])
        room._contributed = {
            int(seat): bytes.fromhex(value) for seat, value in record.get("contributed", {}).items()
        }
        if record["match"] is not None:
            room.match = Match.from_record(record["match"], room.source)
        return room

    def restored(self, now: float) -> list[Output]:
        """Timers a freshly restored room needs (held seats, idle close; the turn timer is
        armed with its stored deadline once a person must act)."""
        out: list[Output] = []
        for i, s in enumerate(self.seats):
            if s.kind == "human":
                out.append(SetTimer(GraceTimer(i), now + self.settings.grace))
        self._schedule(now, out)
        return out
