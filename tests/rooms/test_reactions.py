"""Quick reactions over real sockets: a seated player's emote goes to everyone in the room
(spectators too); only seats react; a seat the host muted is refused; each seat has its own
budget, apart from its chat; an emote outside the fixed handful is an invalid message."""

from __future__ import annotations

import json
from typing import Any

import pytest

from clients import CardroomClient, CardroomError
from protocol import messages as m
from server.net.server import CardroomServer
from server.store.memory import MemoryStore
from tests.support.server import device_for, make_config


def person(srv: CardroomServer, who: str) -> Any:
    return CardroomClient.connect(srv.url, device=device_for(srv, who))


async def refused(coro: Any) -> str:
    with pytest.raises(CardroomError) as err:
        await coro
    return err.value.code


def reactions(client: CardroomClient) -> list[tuple[int, str]]:
    return [(msg.seat, msg.emote) for msg in client.history if isinstance(msg, m.Reaction)]


async def test_a_reaction_reaches_everyone_in_the_room_and_only_seats_react(
    store: MemoryStore,
) -> None:
    async with (
        CardroomServer(make_config(), store=store) as srv,
        person(srv, "ann") as ann,
        person(srv, "bob") as bob,
        person(srv, "eve") as eve,
    ):
        await ann.create("shithead", seats=3, name="Ann")
        code = ann.room or ""
        await bob.join(code, name="Bob")
        await eve.watch(code)
        await bob.react("laugh")
        for client in (ann, bob, eve):
            await client.wait_for(lambda msg: isinstance(msg, m.Reaction))
            assert reactions(client) == [(1, "laugh")]
        # a spectator has the chat, not the seats' reactions; nothing is sent
        assert await refused(eve.react("gg")) == "not_seated"
        await ann.chat("after")
        await bob.wait_for(lambda msg: isinstance(msg, m.ChatLine))
        assert reactions(bob) == [(1, "laugh")]


async def test_a_muted_seat_cannot_react_and_each_seat_has_its_own_budget(
    store: MemoryStore,
) -> None:
    config = make_config(chat_each_per_minute=6.0, chat_each_burst=3.0)
    async with (
        CardroomServer(config, store=store) as srv,
        person(srv, "ann") as ann,
        person(srv, "bob") as bob,
        person(srv, "cy") as cy,
    ):
        await ann.create("shithead", seats=3, name="Ann")
        code = ann.room or ""
        await bob.join(code, name="Bob")
        await cy.join(code, name="Cy")
        for _ in range(3):
            await bob.react("wow")
        assert await refused(bob.react("wow")) == "chat_busy"
        # Bob's reactions are spent, not his chat, nor anyone else's reactions
        await bob.chat("still talking")
        await cy.react("nice")
        await ann.host("mute", seat=2)
        assert await refused(cy.react("nice")) == "muted"
        # (the room sent Cy's reaction to Ann before it took her mute)
        assert reactions(ann) == [(1, "wow")] * 3 + [(2, "nice")]


async def test_an_emote_outside_the_handful_is_an_invalid_message(server: CardroomServer) -> None:
    async with person(server, "ann") as ann:
        await ann.create("shithead", seats=2, name="Ann")
        frame = {"type": "react", "id": "r1", "room": ann.room, "emote": "<script>"}
        await ann.send_raw(json.dumps(frame))
        error = await ann.wait_for(lambda msg: isinstance(msg, m.Error) and msg.ref == "r1")
        assert error.code == "invalid_message"
