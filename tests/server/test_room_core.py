"""The room core without sockets: messages in, outputs out (ARCHITECTURE: sans-I/O rooms)."""

from __future__ import annotations

import json
from typing import Any

from protocol import messages as m
from server.bots.base import make_bot
from server.rooms.core import RoomCore
from server.rooms.inputs import BotMove, CreateHost, Disconnect, Request, RoomRequest, TimerFired
from server.rooms.outputs import (
    CloseRoom,
    GraceTimer,
    IdleTimer,
    Output,
    Persist,
    PersistAction,
    RunBot,
    Send,
    SetTimer,
    TimerKey,
    TurnTimer,
)
from server.rooms.seats import RoomSettings, Seat

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


def test_create_join_watch_start_and_bots_fill_empty_seats() -> None:
    h = Harness()
    create_shithead(h)
    joined = h.send(2, type="join", name="Bob")
    assert joined[0] == {
        "type": "joined",
        "ref": 2,
        "room": "ABCDE",
        "seat": 1,
        "token": joined[0]["token"],
    }
    assert h.send(3, type="watch")[0]["seat"] is None
    info = h.last(1, "room")["room"]
    assert [s["kind"] for s in info["seats"]] == ["human", "human", "empty"]
    assert info["spectators"] == 1 and info["status"] == "lobby"
    assert h.send(2, type="host", op="start")[0]["code"] == "not_host"
    replies = h.send(1, type="host", op="start")
    assert replies[0] == {"type": "ack", "ref": 5, "version": 1}
    assert h.last(1, "room")["room"]["seats"][2]["kind"] == "bot"
    # each seat gets its own view; the spectator gets the public one
    assert h.last(1, "state")["view"]["seat"] == 0
    assert h.last(2, "state")["view"]["seat"] == 1
    assert h.last(3, "state")["view"]["hand"] is None
    assert [b.seat for b in h.bots] == [2] and h.bots[0].delay == SETTINGS.bot_delay


def test_stale_version_wrong_turn_and_spectator_refused_without_change() -> None:
    h = Harness()
    create_shithead(h)
    h.send(2, type="watch")
    h.send(1, type="host", op="start")
    h.run_bots()
    version = h.room.version
    record = h.room.record()
    stale = h.send(1, type="act", version=version - 1, action={"kind": "ready"})
    assert stale[0]["code"] == "stale_version" and stale[1]["type"] == "state"
    assert stale[1]["version"] == version
    assert h.send(2, type="act", version=version, action={"kind": "ready"})[0]["code"] == (
        "not_seated"
    )
    assert h.send(9, type="act", version=version, action={"kind": "ready"})[0]["code"] == (
        "not_in_room"
    )
    bad = h.send(1, type="act", version=version, action={"kind": "play", "cards": ["2C"]})
    # the swap phase is checked before the cards (rule SH-2.3: only swaps and ready)
    assert bad[0]["type"] == "error" and bad[0]["code"] == "wrong_phase"
    assert h.room.record() == record and h.room.version == version


def test_human_turn_timer_runs_out_and_a_stand_in_bot_plays() -> None:
    h = Harness(turn_timer=20)
    create_shithead(h)
    h.send(1, type="host", op="start")
    h.run_bots()
    # swap phase: the human's timer declares them ready (SH-2.3)
    key = TurnTimer(h.room.version)
    assert key in h.timers and h.room.deadline == h.now + 20
    h.fire(key)
    assert h.room.match is not None and h.room.match.current.phase == "play"
    for _ in range(50):
        h.run_bots()
        game = h.room.match.current
        if game.is_over() or game.to_act() == (0,):
            break
    # with this seed the bots leave the human a turn in play: the stand-in is exercised
    assert h.room.match.current.to_act() == (0,), "the game ended before the human's turn"
    version = h.room.version
    h.fire(TurnTimer(version))
    assert [b.seat for b in h.bots] == [0]
    h.run_bots()
    assert h.room.version > version  # the stand-in played the human's turn


def test_disconnect_holds_the_seat_then_a_bot_plays_and_resume_takes_it_back() -> None:
    h = Harness()
    create_shithead(h)
    token_bob = h.send(2, type="join", name="Bob")[0]["token"]
    h.send(1, type="host", op="start")
    h.disconnect(2)
    assert GraceTimer(1) in h.timers
    assert h.last(1, "room")["room"]["seats"][1]["connected"] is False
    h.fire(GraceTimer(1))
    assert h.room.seats[1].away
    # Ann readies; bots (and Bob's stand-in) play until it is Ann's turn again
    h.send(1, type="act", version=h.room.version, action={"kind": "ready"})
    h.run_bots()
    assert h.room.match is not None
    assert h.room.match.current.phase == "play"
    assert h.send(3, type="resume", token="wrong-token-123")[0]["code"] == "bad_token"
    replies = h.send(3, type="resume", token=token_bob)
    assert replies[0]["type"] == "joined" and replies[0]["seat"] == 1
    assert any(r["type"] == "state" and r["view"]["seat"] == 1 for r in replies)
    assert not h.room.seats[1].away and h.room.seats[1].conn == 3


def test_no_human_connected_pauses_bots_and_idle_room_closes() -> None:
    h = Harness()
    create_shithead(h)
    h.send(1, type="host", op="start")
    h.bots.clear()
    h.disconnect(1)
    assert h.room.status() == "paused"
    assert h.bots == []
    assert IdleTimer() in h.timers
    h.fire(IdleTimer())
    assert h.closed


def test_record_round_trip_rebuilds_the_room() -> None:
    h = Harness()
    create_shithead(h)
    h.send(1, type="host", op="start")
    h.send(1, type="act", version=h.room.version, action={"kind": "ready"})
    h.run_bots()
    record = h.room.record()
    again = RoomCore.from_record(json.loads(json.dumps(record)), SETTINGS)
    assert again.record() == record
    assert again.match is not None and h.room.match is not None
    assert again.match.current.view(0) == h.room.match.current.view(0)


def test_chat_goes_to_everyone_in_the_room() -> None:
    h = Harness()
    create_shithead(h)
    h.send(2, type="watch")
    h.send(2, type="chat", text="  hello all  ")
    line = h.last(1, "chat")
    assert line["text"] == "hello all" and line["name"] == "spectator" and line["seat"] is None
    assert h.last(2, "chat") == line


def test_host_operations() -> None:
    h = Harness()
    create_shithead(h)
    assert h.send(1, type="host", op="add_bot", seat=2, level="random")[0]["type"] == "ack"
    assert h.seat(2).kind == "bot" and h.seat(2).level == "random"
    assert h.send(1, type="host", op="add_bot", seat=2)[0]["code"] == "seat_taken"
    h.send(1, type="host", op="set_bot_level", seat=2, level="strong")
    assert h.seat(2).level == "strong"
    h.send(1, type="host", op="remove_bot", seat=2)
    assert h.seat(2).kind == "empty"
    h.send(1, type="host", op="lock")
    assert h.send(2, type="join", name="Bob")[0]["code"] == "room_locked"
    h.send(1, type="host", op="unlock")
    h.send(2, type="join", name="Bob")
    h.send(1, type="host", op="kick", seat=1)
    assert h.last(2, "error")["code"] == "removed"
    assert h.room.seats[1].kind == "empty"
    h.send(1, type="host", op="fill_bots")
    assert [s.kind for s in h.room.seats] == ["human", "bot", "bot"]
    assert h.send(1, type="host", op="next_game")[0]["code"] == "not_between_games"


def test_a_spectator_arriving_does_not_extend_the_turn_deadline() -> None:
    h = Harness(turn_timer=20)
    create_shithead(h)
    h.send(1, type="host", op="start")
    h.run_bots()
    deadline = h.room.deadline
    assert deadline is not None
    h.now += 5
    h.send(2, type="watch")
    assert h.room.deadline == deadline
    assert h.last(2, "state")["deadline"] == deadline
    # a paused table re-arms the timer when a player returns
    h.disconnect(1)
    assert h.room.deadline is None
