"""The room core without sockets: messages in, outputs out (ARCHITECTURE: sans-I/O rooms)."""

from __future__ import annotations

import json

from server.rooms.core import RoomCore
from server.rooms.outputs import (
    GraceTimer,
    IdleTimer,
    TurnTimer,
)
from tests.support.room_core import SETTINGS, Harness, create_shithead


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
        "waiting": False,
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
