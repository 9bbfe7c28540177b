"""The room as a sans-I/O state machine: requests, disconnections, timers and bot moves go in;
frames to send, timers to set, bots to run and records to persist come out.

The asyncio actor (:mod:`server.rooms.actor`) owns the queue, the clock and the sockets and does
what the outputs say, in order; a :class:`Persist` is awaited before anything after it is sent,
so nothing is acknowledged before it is saved. Tests drive this class directly, without sockets.

>>> from protocol.messages import Watch
>>> room = RoomCore("ABCDE", "shithead", 3, seed=1, settings=RoomSettings())
>>> out = room.request(7, Watch(id="w", room="ABCDE"), now=0.0)
>>> [type(o).__name__ for o in out][:2]
['Send', 'Send']
"""

from __future__ import annotations

import datetime
import secrets
from collections.abc import Callable
from typing import Any

from protocol import messages as m
from protocol.cards import parse_card
from server.bots.base import DEFAULT_LEVEL
from server.rooms.matches import Match
from server.rooms.outputs import (
    CancelTimer,
    CloseRoom,
    ConnId,
    Detach,
    Output,
    Persist,
    PersistAction,
    RunBot,
    Send,
    SetTimer,
    TimerKey,
)
from server.rooms.seats import Refusal, RoomSettings, Seat, error_frame
from server.rules.base import Action, Event, IllegalAction


def to_rules_action(action: m.ActionModel) -> Action:
    """The rules core's action for a wire action (codes already validated by pydantic)."""
    return Action(
        action.kind,
        tuple(parse_card(c) for c in action.cards),
        -1 if action.slot is None else action.slot,
    )


class RoomCore:
    """One room: seats, spectators, the match, its version, and the timers it wants."""

    def __init__(
        self,
        code: str,
        game: str,
        players: int,
        *,
        settings: RoomSettings,
        seed: int | None = None,
        options: dict[str, Any] | None = None,
        turn_timer: int | None = None,
        daily: bool = False,
        make_token: Callable[[], str] | None = None,
    ) -> None:
        if game == "sheepshead" and players != 5:
            raise Refusal("bad_seats", "Sheepshead is played by five")
        if game == "shithead" and not 2 <= players <= 5:
            raise Refusal("bad_seats", "Shithead is played by two to five")
        self.code = code
        self.game = game
        self.players = players
        self.settings = settings
        self.seed = secrets.randbits(63) if seed is None else seed
        self.options = dict(options or {})
        self.turn_timer = turn_timer
        self.daily = daily
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
        self.deadline: float | None = None
        self._deadline_version = -1
        self._pending: dict[int, int] = {}  # seat -> version a bot was asked to move at
        self._stand_in: set[int] = set()  # humans out of time this turn: a bot may move for them
        self._idle_armed = False

    # ------------------------------------------------------------------ queries

    def status(self) -> str:
        if self.closed:
            return "closed"
        if self.match is None:
            return "lobby"
        if self.match.current.is_over():
            return "over" if self.match.is_over() else "between"
        if not self.humans_connected():
            return "paused"
        return "playing"

    def humans_connected(self) -> bool:
        return any(s.kind == "human" and s.conn is not None for s in self.seats)

    def anyone_connected(self) -> bool:
        return bool(self.where)

    def info(self) -> m.RoomInfo:
        match = self.match
        seats = []
        current = match.current if match else None
        acting = set(current.to_act()) if current else set()
        for i, seat in enumerate(self.seats):
            info = seat.info(i, self.host)
            if seat.kind == "human" and seat.away and i in acting:
                info = info.model_copy(update={"playing_for": self.settings.stand_in_level})
            seats.append(info)
        return m.RoomInfo(
            room=self.code,
            game=self.game,  # type: ignore[arg-type]
            status=self.status(),  # type: ignore[arg-type]
            seats=seats,
            spectators=len(self.spectators),
            locked=self.locked,
            turn_timer=self.turn_timer,
            options=self.options,
            games_played=match.games_played() if match else 0,
            totals=match.totals() if match else [0] * self.players,
            match_length=match.match_length
            if match
            else (10 if self.game == "sheepshead" else None),
            daily=self.daily_date.isoformat() if self.daily_date else None,
        )

    # ------------------------------------------------------------------ inputs

    def request(self, conn: ConnId, msg: Any, now: float) -> list[Output]:
        """Handle one parsed client message addressed to this room."""
        out: list[Output] = []
        try:
            handler = getattr(self, f"_on_{msg.type}")
        except AttributeError:
            return [
                error_frame(conn, getattr(msg, "id", None), "unknown_type", "not a room message")
            ]
        try:
            handler(conn, msg, now, out)
        except Refusal as r:
            return [error_frame(conn, msg.id, r.code, r.message)]
        return out

    def create_host(self, conn: ConnId, msg: m.Create, now: float) -> list[Output]:
        """Seat the creator in seat 0 as the host."""
        out: list[Output] = []
        token = self._seat_human(0, conn, msg.name)
        self.host = 0
        self.where[conn] = 0
        out.append(Persist(self.meta()))
        out.append(Send(conn, m.dump(m.Joined(ref=msg.id, room=self.code, seat=0, token=token))))
        self._send_room(out)
        return out

    def disconnected(self, conn: ConnId, now: float) -> list[Output]:
        out: list[Output] = []
        seat = self.where.pop(conn, None)
        self.spectators.discard(conn)
        if seat is not None and self.seats[seat].conn == conn:
            self.seats[seat].conn = None
            out.append(SetTimer(("grace", seat), now + self.settings.grace))
        self._send_room(out)
        self._schedule(now, out)
        return out

    def timer(self, key: TimerKey, now: float) -> list[Output]:
        out: list[Output] = []
        kind = key[0]
        if kind == "grace":
            seat = self.seats[key[1]]
            if seat.kind == "human" and seat.conn is None:
                if self.match is None:
                    self.seats[key[1]] = Seat()  # a lobby seat is freed
                    self._pass_host_from(key[1])
                    out.append(Persist(self.meta()))
                else:
                    seat.away = True
                self._send_room(out)
                self._schedule(now, out)
        elif kind == "turn":
            if key[1] == self.version and self.status() == "playing":
                self._turn_expired(now, out)
        elif kind == "idle":
            self._idle_armed = False
            if not self.anyone_connected() and not self.closed:
                self.closed = True
                out.append(CloseRoom("idle"))
        return out

    def bot_action(self, seat: int, version: int, action: Action, now: float) -> list[Output]:
        """A bot's move for ``seat`` chosen against ``version``. It is dropped (and the bot asked
        again if still due) when the game moved on, except in a simultaneous phase, where other
        seats' moves do not change this seat's choice."""
        if self._pending.get(seat) == version:
            del self._pending[seat]
        out: list[Output] = []
        if self.status() == "playing" and self.match is not None:
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

    def _on_join(self, conn: ConnId, msg: m.Join, now: float, out: list[Output]) -> None:
        self._not_here(conn)
        if self.locked:
            raise Refusal("room_locked", "the host has locked this room; you can still watch")
        if self.match is not None and self.status() not in ("between", "over"):
            raise Refusal("game_in_progress", "seats open between games; you can watch now")
        free = [i for i, s in enumerate(self.seats) if s.kind != "human"]  # empty, or a bot's
        if msg.seat is not None:
            if msg.seat >= self.players:
                raise Refusal("bad_seat", f"this room has seats 0 to {self.players - 1}")
            if msg.seat not in free:
                raise Refusal("seat_taken", f"seat {msg.seat} is not free")
            index = msg.seat
        elif free:
            # a truly empty seat before a bot's
            index = min(free, key=lambda i: (self.seats[i].kind != "empty", i))
        else:
            raise Refusal("room_full", "no free seat; you can watch")
        token = self._seat_human(index, conn, msg.name)
        self.where[conn] = index
        out.append(Persist(self.meta()))
        out.append(
            Send(conn, m.dump(m.Joined(ref=msg.id, room=self.code, seat=index, token=token)))
        )
        self._send_room(out)
        self._send_state_to(conn, index, out)
        self._schedule(now, out)

    def _on_watch(self, conn: ConnId, msg: m.Watch, now: float, out: list[Output]) -> None:
        self._not_here(conn)
        self.spectators.add(conn)
        self.where[conn] = None
        out.append(Send(conn, m.dump(m.Joined(ref=msg.id, room=self.code, seat=None))))
        self._send_room(out)
        self._send_state_to(conn, None, out)
        self._schedule(now, out)

    def _on_resume(self, conn: ConnId, msg: m.Resume, now: float, out: list[Output]) -> None:
        index = next(
            (
                i
                for i, s in enumerate(self.seats)
                if s.kind == "human"
                and s.token is not None
                and secrets.compare_digest(s.token, msg.token)
            ),
            None,
        )
        if index is None:
            raise Refusal("bad_token", "that token holds no seat in this room")
        current = self.where.get(conn, "absent")
        if current != "absent" and current != index:
            raise Refusal("already_in_room", "leave your current place in this room first")
        seat = self.seats[index]
        old = seat.conn
        if old is not None and old != conn:
            # the same player from a new connection: the old one is replaced
            self.where.pop(old, None)
            out.append(error_frame(old, None, "replaced", "this seat was resumed from elsewhere"))
            out.append(Detach(old))
        seat.conn = conn
        seat.away = False
        self.where[conn] = index
        out.append(CancelTimer(("grace", index)))
        out.append(
            Send(conn, m.dump(m.Joined(ref=msg.id, room=self.code, seat=index, token=seat.token)))
        )
        self._send_room(out)
        self._send_state_to(conn, index, out)
        self._schedule(now, out)

    def _on_act(self, conn: ConnId, msg: m.Act, now: float, out: list[Output]) -> None:
        seat = self._seat_of(conn)
        if self.match is None:
            raise Refusal("not_started", "the game has not started")
        if msg.version != self.version:
            out.append(
                error_frame(
                    conn,
                    msg.id,
                    "stale_version",
                    f"the game is at version {self.version}; here is the current view",
                )
            )
            self._send_state_to(conn, seat, out)
            return
        try:
            action = to_rules_action(msg.action)
        except ValueError as exc:
            raise Refusal("malformed_action", str(exc)) from None
        try:
            self._apply(seat, action, now, out, ref=msg.id)
        except IllegalAction as exc:
            raise Refusal(exc.code, exc.message) from None

    def _on_host(self, conn: ConnId, msg: m.Host, now: float, out: list[Output]) -> None:
        seat = self._seat_of(conn)
        if seat != self.host:
            raise Refusal("not_host", "only the host can do that")
        op = msg.op
        between = self.match is None or self.status() in ("between", "over")
        level = msg.level or DEFAULT_LEVEL
        target = Seat()
        if op in ("add_bot", "remove_bot", "set_bot_level", "kick"):
            if msg.seat is None or msg.seat >= self.players:
                raise Refusal("bad_seat", f"name a seat from 0 to {self.players - 1}")
            target = self.seats[msg.seat]
        if op == "add_bot":
            assert msg.seat is not None
            if not between:
                raise Refusal("game_in_progress", "bots are added between games")
            if target.kind != "empty":
                raise Refusal("seat_taken", f"seat {msg.seat} is not empty")
            self.seats[msg.seat] = Seat.bot(msg.seat, level)
        elif op == "remove_bot":
            assert msg.seat is not None
            if target.kind != "bot":
                raise Refusal("not_a_bot", f"seat {msg.seat} holds no bot")
            if self.match is not None:
                raise Refusal(
                    "game_in_progress",
                    "once play has begun a bot keeps its seat until a person takes it",
                )
            self.seats[msg.seat] = Seat()
        elif op == "set_bot_level":
            if target.kind != "bot":
                raise Refusal("not_a_bot", f"seat {msg.seat} holds no bot")
            target.level = level
        elif op == "fill_bots":
            if not between:
                raise Refusal("game_in_progress", "bots are added between games")
            self._fill_empty(level)
        elif op == "kick":
            assert msg.seat is not None
            if target.kind != "human" or msg.seat == self.host:
                raise Refusal("bad_seat", "the host can remove another player only")
            if target.conn is not None:
                self.where.pop(target.conn, None)
                out.append(error_frame(target.conn, None, "removed", "the host removed you"))
                out.append(Detach(target.conn))
            self._replace_human(msg.seat)
        elif op in ("lock", "unlock"):
            self.locked = op == "lock"
        elif op == "start":
            if self.match is not None:
                raise Refusal("already_started", "the game has started; use next_game after it")
            self._fill_empty(DEFAULT_LEVEL)  # empty seats are filled with bots
            self._start_match(now)
        elif op == "next_game":
            status = self.status()
            if self.match is None or status != "between":
                why = {
                    "lobby": "the first game has not started",
                    "over": "the match is over",
                }.get(status, "the next game starts once this one is over")
                raise Refusal("not_between_games", why)
            self._fill_empty(DEFAULT_LEVEL)
            self.match.next_game()
            self.version += 1
        out.append(Persist(self.meta()))
        out.append(Send(conn, m.dump(m.Ack(ref=msg.id, version=self.version))))
        self._send_room(out)
        if op in ("start", "next_game"):
            self._send_states([], out)
        self._schedule(now, out)

    def _on_chat(self, conn: ConnId, msg: m.Chat, now: float, out: list[Output]) -> None:
        if conn not in self.where:
            raise Refusal("not_in_room", "join or watch this room first")
        seat = self.where[conn]
        name = (self.seats[seat].name or f"Seat {seat + 1}") if seat is not None else "spectator"
        line = m.dump(m.ChatLine(room=self.code, seat=seat, name=name, text=msg.text, at=now))
        out.append(Send(conn, m.dump(m.Ack(ref=msg.id))))
        out.extend(Send(c, line) for c in self.where)

    def _on_leave(self, conn: ConnId, msg: m.Leave, now: float, out: list[Output]) -> None:
        if conn not in self.where:
            raise Refusal("not_in_room", "you are not in this room")
        seat = self.where.pop(conn)
        self.spectators.discard(conn)
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
            raise Refusal("already_in_room", "you are already in this room")

    def _seat_of(self, conn: ConnId) -> int:
        if conn not in self.where:
            raise Refusal("not_in_room", "join this room first")
        seat = self.where[conn]
        if seat is None:
            raise Refusal("not_seated", "spectators cannot act")
        return seat

    def _seat_human(self, index: int, conn: ConnId, name: str) -> str:
        token = self.make_token()
        self.seats[index] = Seat(kind="human", name=name, token=token, conn=conn)
        return token

    def _replace_human(self, index: int) -> None:
        """A human leaves a seat: empty before play, a bot once the match has begun."""
        if self.match is None:
            self.seats[index] = Seat()
        else:
            self.seats[index] = Seat.bot(index, self.settings.stand_in_level)
        self._pass_host_from(index)

    def _fill_empty(self, level: str) -> None:
        for i, s in enumerate(self.seats):
            if s.kind == "empty":
                self.seats[i] = Seat.bot(i, level)

    def _pass_host_from(self, index: int) -> None:
        if self.host == index:
            self.host = next((i for i, s in enumerate(self.seats) if s.kind == "human"), None)

    def _start_match(self, now: float) -> None:
        daily = None
        if self.daily and self.game == "sheepshead":
            daily = datetime.datetime.fromtimestamp(now, datetime.UTC).date()
            self.daily_date = daily
        self.match = Match.create(self.game, self.players, seed=self.seed, daily=daily)
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
        entry = {"v": self.version, "g": self.match.game_index, "s": seat, "a": action.to_str()}
        out.append(PersistAction(entry))
        if ref is not None:
            human = self.seats[seat].conn
            if human is not None:
                out.append(Send(human, m.dump(m.Ack(ref=ref, version=self.version))))
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
                out.append(SetTimer(("idle",), now + self.settings.idle_timeout))
        elif self._idle_armed:
            self._idle_armed = False
            out.append(CancelTimer(("idle",)))
        if self.status() != "playing":
            self.deadline = None  # lobby, between games, over, or paused: no bots, no timers
            return
        assert self.match is not None
        game = self.match.current
        humans_waiting = False
        for seat in game.to_act():
            s = self.seats[seat]
            if s.kind == "bot":
                self._ask_bot(seat, s.level or DEFAULT_LEVEL, self.settings.bot_delay, out)
            elif s.away or seat in self._stand_in:
                self._ask_bot(seat, self.settings.stand_in_level, self.settings.bot_delay, out)
            else:
                humans_waiting = True
        if not (humans_waiting and self.turn_timer):
            self.deadline = None
        elif self.deadline is None or self._deadline_version != self.version:
            # one deadline per version: joins, chat or reconnections do not extend it
            self.deadline = now + self.turn_timer
            self._deadline_version = self.version
            out.append(SetTimer(("turn", self.version), self.deadline))

    def _send_room(self, out: list[Output]) -> None:
        text = m.dump(m.Room(room=self.info()))
        out.extend(Send(c, text) for c in self.where)

    def _state_text(self, seat: int | None, events: list[dict[str, Any]]) -> str:
        assert self.match is not None
        return m.dump(
            m.State(
                room=self.code,
                version=self.version,
                seat=seat,
                view=self.match.current.view(seat),
                events=events,
                deadline=self.deadline,
            )
        )

    def _send_state_to(self, conn: ConnId, seat: int | None, out: list[Output]) -> None:
        if self.match is not None:
            out.append(Send(conn, self._state_text(seat, [])))

    def _send_states(self, events: list[Event], out: list[Output]) -> None:
        """Each seated connection its own view; every spectator the one spectator view."""
        ev = [e.to_json() for e in events]
        for i, s in enumerate(self.seats):
            if s.kind == "human" and s.conn is not None:
                out.append(Send(s.conn, self._state_text(i, ev)))
        if self.spectators:
            text = self._state_text(None, ev)
            out.extend(Send(c, text) for c in self.spectators)

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
            "seed": self.seed,
            "options": self.options,
            "turn_timer": self.turn_timer,
            "daily": self.daily,
            "daily_date": self.daily_date.isoformat() if self.daily_date else None,
            "locked": self.locked,
            "host": self.host,
            "version": self.version,
            "seats": [
                {"kind": s.kind, "name": s.name, "token": s.token, "level": s.level}
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
                last = max(last, entry["v"])
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
            options=record["options"],
            turn_timer=record["turn_timer"],
            daily=record["daily"],
        )
        room.locked = record["locked"]
        room.host = record["host"]
        room.version = record["version"]
        room.seats = [
            Seat(kind=s["kind"], name=s["name"], token=s["token"], level=s["level"])
            for s in record["seats"]
        ]
        if record["daily_date"]:
            room.daily_date = datetime.date.fromisoformat(record["daily_date"])
        if record["match"] is not None:
            room.match = Match.from_record(record["match"])
        return room

    def restored(self, now: float) -> list[Output]:
        """Timers a freshly restored room needs (held seats, idle close)."""
        out: list[Output] = []
        for i, s in enumerate(self.seats):
            if s.kind == "human":
                out.append(SetTimer(("grace", i), now + self.settings.grace))
        self._schedule(now, out)
        return out
