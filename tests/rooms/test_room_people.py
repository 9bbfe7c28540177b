"""The room's people. A kick bans the kicked device from the room (and
the ban outlives a restart); the room's chat has a budget for all senders together and the host
can mute a seat or a spectator; the host role passes to a present person when the host leaves
or stays away past their grace, so a room whose host went away between games goes on."""

from __future__ import annotations

import asyncio
import dataclasses
import time
from typing import Any

import pytest

from clients import CardroomClient, CardroomError
from server.net.server import CardroomServer
from server.store.memory import MemoryStore
from tests.support.server import device_for, make_config, play_until_over

ANN, BOB, CY = "ann-device-0000001", "bob-device-0000002", "cy-device-00000003"


def person(srv: CardroomServer, who: str, device: str | None = None, at: str = "") -> Any:
    """``who`` from their own device: an identity this server issued (a made-up one is no
    device at all), or ``device`` when given; from loopback address ``at`` when given (a ban
    binds to the address too: someone else comes from another one)."""
    where: dict[str, Any] = {"local_addr": (at, 0)} if at else {}
    return CardroomClient.connect(srv.url, device=device or device_for(srv, who), **where)


def stranger(srv: CardroomServer, at: str) -> Any:
    """A client with no device of its own, from loopback address ``at``: given a fresh
    identity while the address has any left today, none after."""
    return CardroomClient.connect(srv.url, local_addr=(at, 0))


async def refused(coro: Any) -> str:
    with pytest.raises(CardroomError) as err:
        await coro
    return err.value.code


# kick bans ---------------------------------------------------------------------------------


async def test_a_kicked_device_cannot_join_or_watch_again_even_after_a_restart(
    store: MemoryStore,
) -> None:
    first = CardroomServer(make_config(), store=store)
    await first.start()
    try:
        async with person(first, ANN) as ann, person(first, BOB) as bob:
            await ann.create("shithead", seats=3, name="Ann")
            code = ann.room or ""
            await bob.join(code, name="Bob")
            await ann.host("kick", seat=1)
            removed = await bob.wait_for(lambda msg: getattr(msg, "code", None) == "removed")
            assert removed is not None and bob.room is None
            assert await refused(bob.join(code, name="Bob")) == "banned"
            assert await refused(bob.watch(code)) == "banned"
            async with person(first, BOB) as again:  # a new connection, the same device
                assert await refused(again.join(code, name="Bobby")) == "banned"
            room = await ann.wait_room()
            assert [s.kind for s in room.seats] == ["human", "empty", "empty"]  # unchanged
            async with person(first, CY, at="127.0.0.3") as cy:  # someone else still may
                await cy.join(code, name="Cy")
    finally:
        await first.stop()
    second = CardroomServer(make_config(), store=store)  # restarted: rooms from the store
    await second.start()
    try:
        async with person(second, BOB, device_for(first, BOB)) as bob:  # the same device
            assert await refused(bob.watch(code)) == "banned"
            assert await refused(bob.join(code, name="Bob")) == "banned"
    finally:
        await second.stop()


async def test_a_kicked_person_cannot_come_back_without_a_device_or_with_a_fresh_one(
    store: MemoryStore,
) -> None:
    # a hello without a device is given a fresh identity (three a day an address), then none:
    # neither may be banned by device alone, so the ban binds to the address as well
    config = dataclasses.replace(make_config(), devices_per_address=3)
    async with CardroomServer(config, store=store) as srv:
        async with person(srv, ANN, at="127.0.0.1") as ann, stranger(srv, "127.0.0.2") as bob:
            await ann.create("shithead", seats=4, name="Ann")
            code = ann.room or ""
            await bob.join(code, name="Bob")
            await ann.host("kick", seat=1)
            await bob.wait_for(lambda msg: getattr(msg, "code", None) == "removed")
        back = 0
        for _ in range(5):  # fresh identities, then none at all: back 5 of 5 times before
            async with stranger(srv, "127.0.0.2") as again:
                try:
                    await again.join(code, name="Bob")
                    back += 1
                except CardroomError as err:
                    assert err.code == "banned"
                    assert await refused(again.watch(code)) == "banned"
        assert back == 0
        async with stranger(srv, "127.0.0.4") as dee:  # another address still may
            await dee.join(code, name="Dee")


async def test_a_ban_spares_the_others_already_in_the_room_from_the_same_address(
    store: MemoryStore,
) -> None:
    # two people of one household at the table: the host removes one, the other plays on and
    # may come back; a newcomer from that address may not
    async with (
        CardroomServer(make_config(), store=store) as srv,
        person(srv, ANN, at="127.0.0.1") as ann,
        person(srv, BOB, at="127.0.0.2") as bob,
        person(srv, CY, at="127.0.0.2") as cy,
    ):
        await ann.create("shithead", seats=4, name="Ann")
        code = ann.room or ""
        await bob.join(code, name="Bob")
        await cy.join(code, name="Cy")
        await ann.host("kick", seat=1)
        await bob.wait_for(lambda msg: getattr(msg, "code", None) == "removed")
        await cy.leave()
        await cy.join(code, name="Cy")  # spared: at the table when Bob was removed
        async with person(srv, "dee", at="127.0.0.2") as dee:
            assert await refused(dee.join(code, name="Dee")) == "banned"


async def test_a_mute_outlives_leaving_and_coming_back_as_someone_new(
    store: MemoryStore,
) -> None:
    # a muted seat that leaves and comes back with a fresh identity, and a muted spectator who
    # reconnects, are still muted; the muted person's housemate at the table is not
    async with CardroomServer(make_config(), store=store) as srv:
        async with (
            person(srv, ANN, at="127.0.0.1") as ann,
            stranger(srv, "127.0.0.2") as bob,
            person(srv, CY, at="127.0.0.2") as cy,
            stranger(srv, "127.0.0.5") as eve,
        ):
            await ann.create("shithead", seats=4, name="Ann")
            code = ann.room or ""
            await bob.join(code, name="Bob")
            await cy.join(code, name="Cy")
            await eve.watch(code)
            await eve.chat("from the rail")
            line = await ann.wait_for(lambda msg: getattr(msg, "text", "") == "from the rail")
            await ann.host("mute", seat=1)
            await ann.host("mute", spectator=getattr(line, "spectator", None))
            await bob.leave()
            await cy.chat("still here")  # spared: at the table when Bob was muted
        async with stranger(srv, "127.0.0.2") as bob, stranger(srv, "127.0.0.5") as eve:
            await bob.join(code, name="Bob")
            assert await refused(bob.chat("I am someone else now")) == "muted"
            await eve.watch(code)
            assert await refused(eve.chat("and so am I")) == "muted"


# chat: budget and mute ---------------------------------------------------------------------


async def test_the_spectators_chat_budget_counts_them_together() -> None:
    config = make_config(chat_per_minute=6.0, chat_burst=4.0)  # refilled every 10 s
    async with CardroomServer(config) as srv, person(srv, ANN) as ann:
        await ann.create("shithead", seats=2, name="Ann")
        code = ann.room or ""
        watchers = [
            await CardroomClient.connect(srv.url, local_addr=(f"127.0.0.{10 + i}", 0))
            for i in range(5)
        ]
        try:
            for w in watchers:
                await w.watch(code)
            for i, w in enumerate(watchers[:4]):  # four lines from four spectators: the burst
                await w.chat(f"hi {i}")
            # the fifth, from a spectator who sent nothing yet, is over the spectators' budget
            assert await refused(watchers[4].chat("me too")) == "chat_busy"
            assert await refused(watchers[0].chat("again")) == "chat_busy"
            await ann.chat("hello")  # a seat is not a spectator: the rail never silences it
            lines = [m for m in ann.history if m.type == "chat"]
            assert len(lines) == 5  # the refused lines reached nobody
        finally:
            await asyncio.gather(*(w.close() for w in watchers))


async def test_one_spectator_flooding_the_chat_starves_nobody_at_the_table() -> None:
    # one spectator at 4 lines a second while the players chat at a human pace: 9 of the
    # players' 15 lines were refused when one budget counted every sender together
    async with CardroomServer(make_config()) as srv, person(srv, ANN) as ann:
        await ann.create("shithead", seats=2, name="Ann")
        code = ann.room or ""
        async with person(srv, BOB, at="127.0.0.2") as bob, stranger(srv, "127.0.0.9") as eve:
            await bob.join(code, name="Bob")
            await eve.watch(code)
            flooded = players_refused = 0
            for i in range(40):  # the flood, with five lines from each player among it
                try:
                    await eve.chat(f"spam {i}")
                except CardroomError:
                    flooded += 1
                if i % 4 == 0:
                    try:
                        await (ann if i % 8 == 0 else bob).chat(f"line {i}")
                    except CardroomError:
                        players_refused += 1
            assert flooded > 0  # the flood itself met a budget: its sender's own
            assert players_refused == 0


async def test_one_sender_cannot_fill_the_room_chat_alone() -> None:
    config = make_config(chat_each_per_minute=6.0, chat_each_burst=3.0)
    async with CardroomServer(config) as srv, person(srv, ANN) as ann:
        await ann.create("shithead", seats=2, name="Ann")
        code = ann.room or ""
        async with person(srv, BOB, at="127.0.0.2") as bob:
            await bob.join(code, name="Bob")
            for i in range(3):
                await bob.chat(f"line {i}")
            assert await refused(bob.chat("and more")) == "chat_busy"
            await ann.chat("my turn")  # her own budget, untouched


async def test_the_host_mutes_a_seat_and_a_spectator() -> None:
    async with (
        CardroomServer(make_config()) as srv,
        person(srv, ANN) as ann,
        person(srv, BOB) as bob,
        person(srv, CY) as cy,
    ):
        await ann.create("shithead", seats=3, name="Ann")
        code = ann.room or ""
        await bob.join(code, name="Bob")
        await cy.watch(code)
        await cy.chat("from the rail")
        line = await ann.wait_for(lambda msg: msg.type == "chat" and msg.text == "from the rail")
        spectator = getattr(line, "spectator", None)
        assert isinstance(spectator, int) and getattr(line, "seat", 0) is None

        assert await refused(bob.host("mute", seat=0)) == "not_host"  # only the host
        await ann.host("mute", seat=1)
        room = await ann.wait_room(lambda r: r.seats[1].muted)
        assert not room.seats[0].muted
        assert await refused(bob.chat("let me speak")) == "muted"
        await ann.host("mute", spectator=spectator)
        assert await refused(cy.chat("and me")) == "muted"
        assert await refused(ann.host("mute", spectator=spectator + 99)) == "bad_seat"

        # leaving and coming back from the same device is no way out
        await cy.leave()
        await cy.watch(code)
        assert await refused(cy.chat("again")) == "muted"
        await bob.leave()
        await bob.join(code, name="Bob")
        assert await refused(bob.chat("again")) == "muted"

        await ann.host("unmute", seat=(bob.seat or 0))
        await bob.chat("thanks")
        await ann.wait_for(lambda msg: msg.type == "chat" and msg.text == "thanks")
        assert not any(
            m.type == "chat" and m.text in ("let me speak", "and me") for m in ann.history
        )


# host passing ------------------------------------------------------------------------------


async def test_the_host_leaving_passes_the_role_to_the_longest_seated_present_person() -> None:
    async with (
        CardroomServer(make_config()) as srv,
        person(srv, ANN) as ann,
        person(srv, BOB) as bob,
        person(srv, CY) as cy,
    ):
        await ann.create("shithead", seats=4, name="Ann")
        code = ann.room or ""
        await cy.join(code, name="Cy", seat=3)  # Cy sat down first, in the last seat
        await bob.join(code, name="Bob", seat=1)
        await ann.leave()
        room = await cy.wait_room(lambda r: r.seats[0].kind == "empty")
        assert [s.host for s in room.seats] == [False, False, False, True]  # Cy, not Bob
        await cy.host("start")  # and Cy can use it
        await bob.wait_state()


@pytest.mark.slow
async def test_a_host_away_past_grace_between_games_leaves_a_room_that_goes_on() -> None:
    config = make_config(grace=0.3)
    async with CardroomServer(config) as srv, person(srv, BOB) as bob:
        ann = await CardroomClient.connect(srv.url, device=device_for(srv, ANN))
        await ann.create("shithead", seats=2, name="Ann")
        code = ann.room or ""
        await ann.host("lock")
        await ann.host("unlock")
        await bob.join(code, name="Bob")
        await ann.host("start")
        await asyncio.gather(play_until_over(ann), play_until_over(bob))
        await bob.wait_room(lambda r: r.status == "between")
        assert await refused(bob.host("next_game")) == "not_host"
        await ann.close()  # the host goes away between games and does not come back
        room = await bob.wait_room(lambda r: r.seats[1].host, timeout=10)
        assert not room.seats[0].host and room.seats[0].name == "Ann"
        await bob.host("next_game")  # Bob continues the room
        state = await bob.wait_state(lambda s: s.view["phase"] != "over")
        assert state.view["phase"] == "swap"


async def test_the_first_person_back_hosts_a_room_whose_people_all_went_away() -> None:
    config = make_config(grace=0.2)
    async with CardroomServer(config) as srv:
        ann = await CardroomClient.connect(srv.url, device=device_for(srv, ANN))
        bob = await CardroomClient.connect(srv.url, device=device_for(srv, BOB))
        await ann.create("shithead", seats=2, name="Ann")
        code = ann.room or ""
        await bob.join(code, name="Bob")
        await ann.host("start")
        await bob.wait_state()
        bob_token = bob.token or ""
        await asyncio.gather(ann.close(), bob.close())
        deadline = time.monotonic() + 5
        core = srv.manager.rooms[code].core
        while not all(s.away for s in core.seats):
            assert time.monotonic() < deadline, "the seats were not marked away"
            await asyncio.sleep(0.05)
        async with person(srv, BOB) as back:
            await back.resume(code, bob_token)
            room = await back.wait_room(lambda r: r.seats[1].host)
            assert not room.seats[0].host


# the table plays again ----------------------------------------------------------------------


async def test_where_the_table_plays_again_is_the_first_hosts_and_no_later_host_changes_it(
    store: MemoryStore,
) -> None:
    # the host says where the table plays again and leaves; the next host cannot send the
    # friends elsewhere (their pages followed the last host's chat line before)
    async with (
        CardroomServer(make_config(max_games=1), store=store) as srv,
        person(srv, ANN) as ann,
        person(srv, BOB) as bob,
        person(srv, CY) as cy,
    ):
        await ann.create("shithead", seats=3, name="Ann")
        code = ann.room or ""
        await bob.join(code, name="Bob")
        await cy.join(code, name="Cy")
        assert await refused(ann.host("again", to="NEWAA")) == "game_not_over"
        await ann.host("start")
        await asyncio.gather(*(play_until_over(p) for p in (ann, bob, cy)))
        await ann.wait_room(lambda r: r.status == "over")
        assert await refused(bob.host("again", to="EVILB")) == "not_host"
        assert await refused(ann.host("again")) == "invalid_message"
        await ann.host("again", to="NEWAA")
        room = await cy.wait_room(lambda r: r.again is not None)
        assert room.again is not None
        assert (room.again.room, room.again.seat, room.again.name) == ("NEWAA", 0, "Ann")
        await ann.leave()
        await bob.wait_room(lambda r: r.seats[1].host)  # the role passed to Bob
        assert await refused(bob.host("again", to="EVILB")) == "again_set"
        room = await cy.wait_room()
        assert room.again is not None and room.again.room == "NEWAA"
