"""The load tester's counting, frame by frame (no sockets): actions come from acks of its own
requests, never from state versions; refusals are counted by code and never as actions."""

from __future__ import annotations

from typing import Any

import orjson

from server.tools.bench.players import EchoMember, Player
from server.tools.bench.tally import Tally

ROOM = "ABCDE"


def state(version: int, to_act: list[int], events: list[dict[str, Any]] | None = None,
          phase: str = "play") -> dict[str, Any]:  # fmt: skip
    view = {"phase": phase, "to_act": to_act, "legal": [{"kind": "play", "cards": ["7D"]}]}
    return {"type": "state", "room": ROOM, "version": version, "view": view, "events": events or []}


def seated(tally: Tally, seat: int = 0, host: bool = False) -> Player:
    p = Player(tally, host=host)
    p.receive({"type": "joined", "ref": "s1", "room": ROOM, "seat": seat}, 0.0)
    return p


def measuring() -> Tally:
    t = Tally()
    t.start()
    return t


def test_an_action_counts_once_its_ack_arrives_and_latency_ends_at_the_state_it_produced() -> None:
    t = measuring()
    p = seated(t)
    p.receive(state(3, [0]), 1.0)
    assert p.due
    sent = orjson.loads(p.act(1.0))
    assert sent["version"] == 3 and sent["type"] == "act"
    assert t.accepted == 0 and not p.due  # in flight: not counted yet, not sent twice
    p.receive({"type": "ack", "ref": sent["id"], "version": 4}, 1.002)
    assert t.accepted == 1 and t.latencies == []
    p.receive(state(4, [1]), 1.010)
    assert t.latencies == [1.010 - 1.0]
    assert t.sent == 1


def test_version_bumps_without_our_ack_are_not_actions() -> None:
    t = measuring()
    p = seated(t, host=True)
    # start, other seats' moves, next_game: versions move, nothing of ours was acknowledged
    for v in range(1, 20):
        p.receive(state(v, [1]), float(v))
    p.receive({"type": "ack", "ref": "s2", "version": 20}, 21.0)  # the ack of a host request
    p.receive({"type": "ack", "ref": "a99", "version": 21}, 22.0)  # no such request of ours
    assert t.accepted == 0 and t.latencies == []
    assert t.frames == 22  # the joined frame, 19 states and 2 acks


def test_a_refused_action_is_counted_by_code_and_not_as_an_action() -> None:
    t = measuring()
    p = seated(t)
    p.receive(state(5, [0]), 1.0)
    first = orjson.loads(p.act(1.0))
    p.receive({"type": "error", "ref": first["id"], "code": "stale_version", "message": "."}, 1.1)
    assert t.accepted == 0 and t.refused == {"stale_version": 1} and t.latencies == []
    p.receive(state(6, [0]), 1.2)  # the fresh state that follows: act again
    second = orjson.loads(p.act(1.2))
    assert second["version"] == 6
    p.receive({"type": "error", "ref": second["id"], "code": "not_your_turn", "message": "."}, 1.3)
    assert t.accepted == 0 and t.refused == {"stale_version": 1, "not_your_turn": 1}


def test_nothing_is_counted_outside_the_window_and_the_window_starts_from_zero() -> None:
    t = Tally()
    p = seated(t)
    p.receive(state(1, [0]), 0.0)
    ident = orjson.loads(p.act(0.0))["id"]
    p.receive({"type": "ack", "ref": ident, "version": 2}, 0.001)
    assert (t.accepted, t.sent, t.frames) == (0, 0, 0)
    t.start()
    p.receive(state(2, [0]), 0.002)  # the state of an action sent before the window
    assert t.latencies == [0.002] and t.accepted == 0


def test_bot_moves_are_counted_from_the_events_of_their_states_and_timed_apart() -> None:
    t = measuring()
    p = seated(t, host=True)
    p.bots = frozenset({1, 2})
    p.receive(state(1, [1]), 1.0)  # start: no events, bot 1 to act
    p.receive(state(2, [2], [{"kind": "played", "seat": 1}]), 1.003)
    p.receive(state(3, [0], [{"kind": "played", "seat": 2}, {"kind": "trick_won"}]), 1.004)
    p.receive(state(4, [1], [{"kind": "played", "seat": 0}]), 1.010)  # a human's move
    assert t.bot_moves == 2 and t.accepted == 0
    assert [round(x, 6) for x in t.bot_times] == [0.003, 0.001]


def test_the_host_asks_for_the_next_game_once_per_hand_and_notices_the_end_of_the_match() -> None:
    t = measuring()
    p = seated(t, host=True)
    p.receive(state(40, [], phase="over"), 1.0)

    def room(status: str) -> dict[str, Any]:
        return {"type": "room", "room": {"room": ROOM, "status": status}}

    out = p.receive(room("between"), 1.0)
    assert [orjson.loads(f)["op"] for f in out] == ["next_game"]
    assert p.receive(room("between"), 1.1) == []  # the same hand: asked already
    assert not p.match_over
    p.receive(room("over"), 2.0)
    assert p.match_over
    assert t.accepted == 0
    assert seated(t).receive(room("between"), 1.0) == []  # only the host asks


def test_an_echo_member_counts_its_own_answers_only() -> None:
    t = measuring()
    members = [EchoMember(t, k, 3) for k in range(3)]
    assert [m.receive(b"go", 0.0) for m in members] == [True, False, False]
    members[0].request(0.0)
    assert [m.receive(b"x", 0.002) for m in members] == [False, True, False]
    members[1].request(0.002)
    assert [m.receive(b"x", 0.003) for m in members] == [False, False, True]
    assert t.accepted == 2 and t.frames == 6 and t.sent == 2
    assert [round(x, 6) for x in t.latencies] == [0.002, 0.001]
