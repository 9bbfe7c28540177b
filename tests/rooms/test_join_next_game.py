"""A friend arriving mid-game joins the next one: a ``join`` with ``wait`` watches now and takes
the first free seat (an empty one, else a bot's) when the game ends, first asked first seated;
nothing is promised that the room cannot give."""

from __future__ import annotations

from typing import Any

import pytest

from clients import CardroomClient
from server.net.server import CardroomServer
from server.store.memory import MemoryStore
from tests.support.room_core import Harness, create_shithead, whole
from tests.support.server import choose, device_for, make_config, play_until_over


def alone_with_bots() -> Harness:
    """Ann (conn 1) hosts a three-seat Shithead room and starts it: bots in seats 1 and 2."""
    h = Harness()
    create_shithead(h)
    h.send(1, type="host", op="start")
    return h


def play_out(h: Harness) -> None:
    """Ann and the bots play the current game to its end."""
    for _ in range(2000):
        assert h.room.match is not None
        game = h.room.match.current
        if game.is_over():
            return
        if h.bots:
            h.run_bots()
        elif 0 in game.to_act():
            view = h.last(1, "state")["view"]
            h.send(1, type="act", version=h.room.version, action=choose(view))
    pytest.fail("the game never ended")


def joined(h: Harness, conn: int) -> list[dict[str, Any]]:
    return [msg for msg in h.inbox.get(conn, []) if msg["type"] == "joined"]


def test_friends_who_arrive_mid_game_watch_then_take_the_free_seats_in_order() -> None:
    h = alone_with_bots()
    first = h.send(2, type="join", name="Cy", wait=True)
    assert first[0] == {"type": "joined", "ref": h.n, "room": "ABCDE", "seat": None,
                        "token": None, "waiting": True}  # fmt: skip
    assert any(m["type"] == "state" and m["view"]["seat"] is None for m in first)  # watching
    asked = [first[0]["ref"], h.send(3, type="join", name="Dee", wait=True)[0]["ref"]]
    h.send(4, type="join", name="Eve", wait=True)  # one more than the seats there are
    assert [s.kind for s in h.room.seats] == ["human", "bot", "bot"]  # nobody seated mid-game
    play_out(h)
    cy, dee = joined(h, 2)[-1], joined(h, 3)[-1]
    assert (cy["seat"], cy["ref"]) == (1, asked[0]) and cy["token"]  # the join's own id
    assert (dee["seat"], dee["ref"]) == (2, asked[1]) and dee["token"]
    assert len(joined(h, 4)) == 1 and h.room.state.where[4] is None  # Eve still watches
    seats = h.last(1, "room")["room"]["seats"]
    assert [(s["kind"], s["name"]) for s in seats] == [
        ("human", "Ann"), ("human", "Cy"), ("human", "Dee")
    ]  # fmt: skip
    # the host deals the next game: Cy plays it from his seat
    h.send(1, type="host", op="next_game")
    state = h.last(2, "state")
    assert state["view"]["seat"] == 1 and state["view"]["hand"]  # his own cards


def test_a_waiting_friend_who_leaves_is_not_seated() -> None:
    h = alone_with_bots()
    h.send(2, type="join", name="Cy", wait=True)
    h.disconnect(2)
    play_out(h)
    assert [s.kind for s in h.room.seats] == ["human", "bot", "bot"]
    assert not h.room.state.waiting


@pytest.mark.parametrize("why", ["no free seat", "locked", "already watching"])
def test_a_wait_the_room_cannot_honour_is_refused_and_changes_nothing(why: str) -> None:
    h = Harness(players=2)
    create_shithead_two = h.send(1, type="create", game="shithead", seats=2, name="Ann")
    assert create_shithead_two[0]["seat"] == 0
    if why == "no free seat":
        h.send(2, type="join", name="Bob")
    h.send(1, type="host", op="start")
    if why == "locked":
        h.send(1, type="host", op="lock")
    if why == "already watching":
        h.send(3, type="watch")
    before = whole(h.room)
    reply = h.send(3, type="join", name="Cy", wait=True)[0]
    code = {"no free seat": "game_in_progress", "locked": "room_locked"}
    assert reply["type"] == "error" and reply["code"] == code.get(why, "already_in_room"), why
    assert whole(h.room) == before, why


async def test_over_a_socket_a_late_friend_plays_the_next_game(store: MemoryStore) -> None:
    async with CardroomServer(make_config(), store=store) as srv:
        ann = await CardroomClient.connect(srv.url, device=device_for(srv, "ann"))
        cy = await CardroomClient.connect(srv.url, device=device_for(srv, "cy"))
        try:
            await ann.create("shithead", seats=2, name="Ann")
            await ann.host("start")
            reply = await cy.join(ann.room or "", name="Cy", wait=True)
            assert reply.waiting and reply.seat is None
            await play_until_over(ann)
            room = await ann.wait_room(lambda r: r.seats[1].kind == "human")
            assert room.seats[1].name == "Cy" and room.status == "between"
            await cy.wait_room(lambda r: r.seats[1].kind == "human")
            assert cy.seat == 1 and cy.token
            await ann.host("next_game")
            state = await cy.wait_state(lambda s: s.view["seat"] == 1)
            assert state.view["hand"]
        finally:
            await ann.close()
            await cy.close()
