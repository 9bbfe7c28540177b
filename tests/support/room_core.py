"""The room core fed by hand: a harness that sends messages, collects the outputs, runs the bots
and fires the timers; and a room's whole state, to compare before and after a refusal."""

from __future__ import annotations

import copy
import dataclasses
import json
from typing import Any

import pytest

from protocol import messages as m
from server.bots.base import make_bot
from server.rooms.core import RoomCore
from server.rooms.inputs import BotMove, CreateHost, Disconnect, Request, RoomRequest, TimerFired
from server.rooms.outputs import (
    CloseRoom,
    Output,
    Persist,
    PersistAction,
    RunBot,
    Send,
    SetTimer,
    TimerKey,
)
from server.rooms.seats import Seat
from server.rooms.settings import RoomSettings
from server.rooms.state import FIELDS
from tests.support.server import choose

SETTINGS = RoomSettings(grace=30, idle_timeout=100, bot_delay=0.5)


class Harness:
    """Feeds a core, collects what it sends per connection, runs bots on request."""

    def __init__(
        self, game: m.GameName = "shithead", players: int = 3, turn_timer: int | None = None
    ):
        self.room = RoomCore(
            "ABCDE", game, players, settings=SETTINGS, seed=42, turn_timer=turn_timer
        )
        self.inbox: dict[int, list[dict[str, Any]]] = {}
        self.bots: list[RunBot] = []
        self.timers: dict[TimerKey, float] = {}
        self.persisted = 0
        self.closed = False
        self.now = 1000.0
        self.n = 0

    def feed(self, outputs: list[Output]) -> list[Output]:
        for o in outputs:
            if isinstance(o, Send):
                self.inbox.setdefault(o.conn, []).append(json.loads(o.text))
            elif isinstance(o, RunBot):
                self.bots.append(o)
            elif isinstance(o, SetTimer):
                self.timers[o.key] = o.at
            elif isinstance(o, Persist | PersistAction):
                self.persisted += 1
            elif isinstance(o, CloseRoom):
                self.closed = True
        return outputs

    def send(self, conn: int, **fields: Any) -> list[dict[str, Any]]:
        self.n += 1
        room = {} if fields["type"] == "create" else {"room": "ABCDE"}
        msg = m.CLIENT_ADAPTER.validate_python({"id": self.n, **room, **fields})
        before = len(self.inbox.get(conn, []))
        if isinstance(msg, m.Create):
            self.feed(self.room.handle(CreateHost(conn, msg), self.now))
        else:
            assert isinstance(msg, RoomRequest)  # hello, ping, leaderboard stop at the server
            self.feed(self.room.handle(Request(conn, msg), self.now))
        return self.inbox.get(conn, [])[before:]

    def seat(self, index: int) -> Seat:
        # a call, so mypy does not carry a seat's narrowed kind past the messages that change it
        return self.room.seats[index]

    def run_bots(self) -> int:
        """Let every requested bot move (as the actor would), until none is asked."""
        moves = 0
        while self.bots:
            job = self.bots.pop(0)
            action = make_bot("random", job.game, seed=moves).choose(job.view)
            self.feed(self.room.handle(BotMove(job.seat, job.version, action), self.now))
            moves += 1
        return moves

    def fire(self, key: TimerKey) -> None:
        self.now = max(self.now, self.timers.pop(key))
        self.feed(self.room.handle(TimerFired(key), self.now))

    def disconnect(self, conn: int) -> None:
        self.feed(self.room.handle(Disconnect(conn), self.now))

    def last(self, conn: int, kind: str) -> dict[str, Any]:
        return next(msg for msg in reversed(self.inbox[conn]) if msg["type"] == kind)


def create_shithead(h: Harness) -> None:
    replies = h.send(1, type="create", game="shithead", seats=3, name="Ann")
    assert replies[0]["type"] == "joined" and replies[0]["seat"] == 0 and replies[0]["token"]


def whole(room: RoomCore) -> dict[str, Any]:
    """Every field of the room (its state's one by one), the match as its record and its
    current game's full view."""
    state: dict[str, Any] = {}
    fields = [*vars(room).items(), *((f, getattr(room.state, f)) for f in FIELDS)]
    for name, value in fields:
        if name in ("_before", "make_token", "state"):
            continue
        if name == "match":
            state[name] = None if value is None else (value.record(), value.current.view(None))
        elif name == "seats":
            state[name] = [dataclasses.astuple(s) for s in value]
        else:
            state[name] = copy.deepcopy(value)
    return state


def playing() -> Harness:
    """Shithead: Ann (1) and Bob (2) seated, a bot in seat 2, a spectator (3), turn timer on,
    in the play phase with Ann to act and the bot asked for a move once it is due."""
    h = Harness(turn_timer=20)
    create_shithead(h)
    h.send(2, type="join", name="Bob")
    h.send(3, type="watch")
    h.send(1, type="host", op="start")
    for _ in range(200):
        room = h.room
        assert room.match is not None
        game = room.match.current
        if game.phase == "play" and game.to_act() == (0,):
            return h
        if h.bots:
            h.run_bots()
            continue
        seat = game.to_act()[0]
        view = h.last(seat + 1, "state")["view"]
        h.send(seat + 1, type="act", version=room.version, action=choose(view))
    pytest.fail("Ann never came to play")
