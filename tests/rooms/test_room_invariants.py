"""Room-core invariants, without sockets: deadlines of their own version, names,
and an unexpected failure that changes nothing."""

from __future__ import annotations

from typing import Any

import pytest

from server.rooms import frames
from server.rooms.inputs import BotMove
from server.rules.base import Action
from tests.support.room_core import Harness, create_shithead
from tests.support.server import choose


def states_to(h: Harness, conn: int) -> list[dict[str, Any]]:
    return [msg for msg in h.inbox.get(conn, []) if msg["type"] == "state"]


def test_every_state_carries_the_deadline_of_its_own_version() -> None:
    h = Harness(turn_timer=20)
    create_shithead(h)
    h.send(2, type="watch")
    h.send(1, type="host", op="start")
    first = states_to(h, 1)[0]
    assert first["version"] == 1 and first["deadline"] == h.now + 20  # the first state too
    for _ in range(400):
        h.run_bots()
        room = h.room
        assert room.match is not None
        game = room.match.current
        if game.is_over():
            break
        assert game.to_act() and 0 in game.to_act(), "bots stopped before the human's turn"
        view = states_to(h, 1)[-1]
        assert view["version"] == room.version
        h.now += 1
        h.send(1, type="act", version=room.version, action=choose(view["view"]))
    else:
        pytest.fail("the game did not end")
    checked = 0
    for conn in (1, 2):  # the seat, and a spectator: the same deadline at each version
        for state in states_to(h, conn):
            human_acts = 0 in state["view"]["to_act"] and state["view"]["phase"] != "over"
            if human_acts:
                assert state["deadline"] is not None, state["version"]
                checked += 1
            else:  # only bots act: no deadline, not the previous one
                assert state["deadline"] is None, state["version"]
    assert checked > 5


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("Bot 2", "bad_name"),
        ("bot", "bad_name"),
        ("BOT-3", "bad_name"),
        ("Ｂｏｔ 2", "bad_name"),  # fullwidth look-alike
        ("Ev\u202eil", "bad_name"),  # right-to-left override
        ("Nu\x00l", "bad_name"),
        ("Zero\u200bwidth", "bad_name"),
        ("n" * 25, "bad_name"),
        ("ANN", "name_taken"),
        ("  ann ", "name_taken"),
    ],
)
def test_names_that_are_refused(name: str, code: str) -> None:
    h = Harness()
    create_shithead(h)  # "Ann" in seat 0
    reply = h.send(2, type="join", name=name)[0]
    assert reply["type"] == "error" and reply["code"] == code
    assert h.room.seats[1].kind == "empty" and 2 not in h.room.where


def test_names_are_normalised_and_botticelli_is_fine() -> None:
    h = Harness()
    create_shithead(h)
    h.send(2, type="join", name="Jose\u0301")  # e + combining acute
    h.send(3, type="join", name="Botticelli")
    seats = h.last(1, "room")["room"]["seats"]
    assert seats[1]["name"] == "Jos\u00e9" and seats[2]["name"] == "Botticelli"
    # the NFC form of the same name is the same name
    assert h.send(4, type="watch")[0]["type"] == "joined"


def test_an_unexpected_failure_changes_nothing_and_answers_internal_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    h = Harness(turn_timer=20)
    create_shithead(h)
    h.send(2, type="join", name="Bob")
    h.send(1, type="host", op="start")
    h.run_bots()
    room = h.room
    record, version, deadline = room.record(), room.version, room.deadline
    persisted, bots = h.persisted, list(h.bots)
    assert room.match is not None
    game = room.match.current
    real_apply = type(game).apply

    def applies_then_fails(self: Any, seat: int, action: Action) -> Any:
        events = real_apply(self, seat, action)  # the rules changed the game...
        if self is game:
            raise RuntimeError("injected failure")  # ...then something broke
        return events  # the game rebuilt from the log is not affected

    monkeypatch.setattr(type(game), "apply", applies_then_fails)
    reply = h.send(1, type="act", version=version, action={"kind": "ready"})
    assert [r["type"] for r in reply] == ["error"]
    assert reply[0]["code"] == "internal_error" and reply[0]["ref"] == h.n
    assert h.inbox[2][-1]["type"] != "error"  # only the sender is told
    # the room is as it was: the same record, version, deadline; nothing persisted or asked
    assert room.record() == record and room.version == version and room.deadline == deadline
    assert h.persisted == persisted and h.bots == bots
    # and it goes on: the same request succeeds once the fault is gone
    monkeypatch.undo()
    reply = h.send(1, type="act", version=version, action={"kind": "ready"})
    assert reply[0] == {"type": "ack", "ref": h.n, "version": version + 1}


def test_a_failing_view_rolls_a_bot_move_back(monkeypatch: pytest.MonkeyPatch) -> None:
    h = Harness()
    create_shithead(h)
    h.send(1, type="host", op="start")
    assert h.bots
    record, version = h.room.record(), h.room.version
    job = h.bots.pop(0)
    monkeypatch.setattr(frames, "state_frames", lambda *a: (_ for _ in ()).throw(KeyError("view")))
    out = h.room.handle(BotMove(job.seat, job.version, Action("ready")), h.now)
    assert out == []  # no sender to tell; the failure is logged
    assert h.room.record() == record and h.room.version == version
