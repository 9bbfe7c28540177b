"""Hints: a room option chosen at create time; a seated player asks what the strong bot would
do in their seat and gets the answer alone. First the room core without sockets, then a real
server over loopback WebSockets."""

from __future__ import annotations

from typing import Any

import pytest

from clients import CardroomClient, CardroomError
from protocol import messages as m
from server.bots.reasons import TEXTS, Reason
from server.net.server import CardroomServer
from server.rooms.core import RoomCore, hint_seed
from server.rooms.inputs import HintReady, Request
from server.rooms.outputs import Persist, PersistAction, RunHint
from server.rooms.refusal import Refusal
from server.rules.base import Action
from server.store.leaderboard import Board
from tests.support.room_core import SETTINGS, Harness
from tests.support.server import (
    act_fresh,
    two_ranked_people_play,
)

# ------------------------------------------------------------------------------ room core


def hints_harness(players: int = 3) -> Harness:
    h = Harness(players=players)
    h.room.hints = True
    return h


def started(h: Harness) -> None:
    """Ann (conn 1, seat 0, host) and Bob (conn 2, seat 1); a spectator (conn 3); a bot."""
    h.send(1, type="create", game="shithead", seats=h.room.players, name="Ann")
    h.send(2, type="join", name="Bob")
    h.send(3, type="watch")
    h.send(1, type="host", op="start")


def hint_jobs(outputs: list[Any]) -> list[RunHint]:
    return [o for o in outputs if isinstance(o, RunHint)]


def test_the_option_is_off_by_default_and_shown_in_the_public_info() -> None:
    plain = Harness()
    plain.send(1, type="create", game="shithead", seats=3, name="Ann")
    assert plain.last(1, "room")["room"]["hints"] is False
    h = hints_harness()
    started(h)
    for conn in (1, 2, 3):  # players and the spectator see it
        assert h.last(conn, "room")["room"]["hints"] is True


def test_a_daily_room_refuses_hints() -> None:
    with pytest.raises(Refusal) as refused:
        RoomCore("ABCDE", "sheepshead", 5, settings=SETTINGS, daily=True, hints=True)
    assert refused.value.code == "hints_not_allowed"
    assert refused.value.message


def test_the_option_survives_a_rebuild_from_the_record() -> None:
    h = hints_harness()
    started(h)
    again = RoomCore.from_record(h.room.record(), SETTINGS)
    assert again.hints is True
    old = h.room.record()
    del old["hints"]  # a record written before hints existed
    assert RoomCore.from_record(old, SETTINGS).hints is False


def test_refusals_are_typed_and_change_nothing() -> None:
    off = Harness()
    off.send(1, type="create", game="shithead", seats=3, name="Ann")
    off.send(1, type="host", op="start")
    assert off.send(1, type="hint")[0]["code"] == "hints_off"

    h = hints_harness()
    h.send(1, type="create", game="shithead", seats=3, name="Ann")
    assert h.send(1, type="hint")[0]["code"] == "not_started"
    assert h.send(9, type="hint")[0]["code"] == "not_in_room"
    h.send(2, type="join", name="Bob")
    h.send(3, type="watch")
    h.send(1, type="host", op="start")
    assert h.send(3, type="hint")[0]["code"] == "not_seated"  # a spectator
    # Ann declares ready: nothing is left for her to decide in the swap phase (SH-2.3)
    version = h.room.version
    h.send(1, type="act", version=version, action={"kind": "ready"})
    before = (h.room.version, h.persisted)
    answer = h.send(1, type="hint")
    assert answer[0]["type"] == "error" and answer[0]["code"] == "not_your_turn"
    # one hint at a time per seat
    first = h.room.handle(m_request(2, {"type": "hint", "id": "a", "room": "ABCDE"}), h.now)
    assert len(hint_jobs(first)) == 1
    second = h.send(2, type="hint")
    assert second[0]["code"] == "hint_pending"
    assert (h.room.version, h.persisted) == before
    for reply in (answer[0], second[0]):
        assert reply["message"] and reply["ref"] is not None


def m_request(conn: int, frame: dict[str, Any]) -> Request:
    msg = m.CLIENT_ADAPTER.validate_python(frame)
    assert isinstance(msg, m.Hint)
    return Request(conn, msg)


def test_a_hint_is_worked_out_from_the_askers_view_and_answered_to_them_alone() -> None:
    h = hints_harness()
    started(h)
    version = h.room.version
    outputs = h.room.handle(m_request(2, {"type": "hint", "id": "h1", "room": "ABCDE"}), h.now)
    jobs = hint_jobs(outputs)
    assert len(jobs) == 1 and len(outputs) == 1  # nothing sent, saved or scheduled
    assert not any(isinstance(o, Persist | PersistAction) for o in outputs)
    job = jobs[0]
    assert h.room.match is not None
    assert job.view == h.room.match.current.view(1)  # exactly Bob's own view
    assert (job.seat, job.conn, job.version) == (1, 2, version)
    assert job.seed == hint_seed(h.room.bot_seed, 1, version)
    reason = Reason("hint.sh_ready")
    ready = HintReady(2, 1, version, "h1", Action("ready"), "strong", reason)
    sent = h.feed(h.room.handle(ready, h.now))
    assert [getattr(o, "conn", None) for o in sent] == [2]
    advice = m.parse_server(_raw(sent[0]))
    assert isinstance(advice, m.Advice)
    assert advice.ref == "h1" and advice.seat == 1 and advice.version == version
    assert advice.action == m.ActionModel(kind="ready")
    assert advice.reason.key == "hint.sh_ready"
    assert advice.reason.text == TEXTS["hint.sh_ready"]
    assert h.room.version == version
    # the seat may ask again once answered
    again = h.room.handle(m_request(2, {"type": "hint", "id": "h2", "room": "ABCDE"}), h.now)
    assert len(hint_jobs(again)) == 1


def _raw(output: Any) -> str:
    return str(output.text)


def test_a_hint_for_someone_who_left_the_seat_goes_nowhere() -> None:
    h = hints_harness()
    started(h)
    version = h.room.version
    h.room.handle(m_request(2, {"type": "hint", "id": "h1", "room": "ABCDE"}), h.now)
    h.disconnect(2)
    ready = HintReady(2, 1, version, "h1", Action("ready"), "strong", Reason("hint.sh_ready"))
    assert h.room.handle(ready, h.now) == []


def test_the_hint_seed_depends_on_room_seat_and_version() -> None:
    seeds = {hint_seed(s, seat, v) for s in (1, 2) for seat in (0, 1) for v in (3, 4)}
    assert len(seeds) == 8
    assert hint_seed(7, 1, 5) == hint_seed(7, 1, 5)


# ------------------------------------------------------------------------------ over WebSockets


async def open_table(
    server: CardroomServer,
) -> tuple[CardroomClient, CardroomClient, CardroomClient]:
    """Ann hosts a two-seat Shithead room with hints, Bob sits, Sue watches; started."""
    ann = await CardroomClient.connect(server.url)
    bob = await CardroomClient.connect(server.url)
    sue = await CardroomClient.connect(server.url)
    await ann.create("shithead", seats=2, name="Ann", hints=True)
    assert ann.room is not None
    await bob.join(ann.room, name="Bob")
    await sue.watch(ann.room)
    await ann.host("start")
    return ann, bob, sue


async def test_create_with_hints_in_a_daily_room_is_refused(server: CardroomServer) -> None:
    async with CardroomClient.connect(server.url) as ann:
        with pytest.raises(CardroomError) as refused:
            await ann.create("sheepshead", seats=5, name="Ann", daily=True, hints=True)
        assert refused.value.code == "hints_not_allowed"
        assert ann.room is None
        await ann.create("sheepshead", seats=5, name="Ann", daily=True)  # still works without


@pytest.mark.slow
async def test_only_the_asker_gets_the_hint_and_nothing_changes(server: CardroomServer) -> None:
    ann, bob, sue = await open_table(server)
    state = await ann.wait_state()
    assert state.view["phase"] == "swap"
    marks = {c: c.received for c in (ann, bob, sue)}
    advice = await ann.hint()
    # from Ann's own view: one of her own legal actions, in the wire form of an act
    assert advice.seat == 0 and advice.version == state.version
    assert advice.action.model_dump(exclude_defaults=True) in [
        m.ActionModel.model_validate(a).model_dump(exclude_defaults=True)
        for a in state.view["legal"]
    ]
    assert advice.reason.text and advice.reason.key in TEXTS
    assert advice.level in ("strong", "basic")
    await bob.ping()
    await sue.ping()
    for c in (bob, sue):  # the others got nothing from it
        assert not [x for x in c.history[marks[c] :] if x.type in ("hint", "state", "room")]
    assert ann.version == state.version  # no new state: the game did not move
    # the suggestion is an action the server takes as it is
    ack = await ann.act(advice.action, version=advice.version)
    assert ack.version == state.version + 1
    for c in (ann, bob, sue):
        await c.close()


async def test_refusals_over_the_wire(server: CardroomServer) -> None:
    ann, bob, sue = await open_table(server)
    with pytest.raises(CardroomError) as spectator:
        await sue.hint()
    assert spectator.value.code == "not_seated"
    await ann.act({"kind": "ready"}, version=(await ann.wait_state()).version)
    with pytest.raises(CardroomError) as done:
        await ann.hint()  # ready: nothing left for Ann to decide in the swap phase
    assert done.value.code == "not_your_turn"
    for c in (ann, bob, sue):
        await c.close()


@pytest.mark.slow
async def test_the_same_question_gets_the_same_answer(server: CardroomServer) -> None:
    ann, bob, sue = await open_table(server)
    await act_fresh(ann, {"kind": "ready"})
    await act_fresh(bob, {"kind": "ready"})
    state = await ann.wait_state(lambda s: s.view["phase"] == "play")
    asker = ann if state.view["to_act"] == [0] else bob
    turn = await asker.wait_turn(timeout=10)
    first = await asker.hint()
    second = await asker.hint()
    assert (first.action, first.reason, first.version) == (
        second.action,
        second.reason,
        second.version,
    )
    legal = [m.ActionModel.model_validate(a) for a in turn.view["legal"]]
    assert first.action in legal
    for c in (ann, bob, sue):
        await c.close()


async def test_a_hints_room_ranks_nobody(server: CardroomServer) -> None:
    await two_ranked_people_play(server, hints=True)
    assert await server.stores.boards.top(Board.alltime("shithead")) == []


def test_a_hint_only_at_your_own_turn_in_play() -> None:
    # rule SH-4.1: play goes clockwise, one seat at a time
    h = hints_harness(players=2)
    h.send(1, type="create", game="shithead", seats=2, name="Ann")
    h.send(2, type="join", name="Bob")
    h.send(1, type="host", op="start")
    for conn in (1, 2):
        h.send(conn, type="act", version=h.room.version, action={"kind": "ready"})
    assert h.room.match is not None
    turn = h.room.match.current.to_act()
    assert len(turn) == 1
    waiting = 2 if turn[0] == 0 else 1
    assert h.send(waiting, type="hint")[0]["code"] == "not_your_turn"
    asked = h.room.handle(m_request(3 - waiting, {"type": "hint", "id": 7, "room": "ABCDE"}), 0)
    job = hint_jobs(asked)[0]
    assert job.seat == turn[0] and job.view["phase"] == "play"
