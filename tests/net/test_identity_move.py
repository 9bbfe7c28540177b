"""Moving an identity to another device with a one-time code, over real sockets: the other
device gets the same identity (its ratings with it); a code works once, for minutes, replaces
the one before; guessing spends a budget per address; no identity, no code; two processes on
one Redis share the codes."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace

import pytest

from clients import CardroomClient, CardroomError
from protocol import messages as m
from server.net.server import CardroomServer
from server.store.leaderboard import player_id
from server.store.move_codes import ALPHABET, CODE_LENGTH, MemoryMoveCodes
from server.tools.bench.redis_server import RedisServer
from tests.support.rated import person, rated_config

pytestmark = pytest.mark.slow


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
async def server() -> AsyncIterator[CardroomServer]:
    async with CardroomServer(replace(rated_config(), move_burst=100.0)) as srv:
        yield srv


async def offer(c: CardroomClient) -> m.MoveOffer:
    return await c.request(m.MoveCode(id="code"), m.MoveOffer)


async def claim(c: CardroomClient, code: str) -> m.Identity:
    return await c.request(m.MoveClaim(id="claim", code=code), m.Identity)


async def refused(c: CardroomClient, code: str) -> str:
    with pytest.raises(CardroomError) as no:
        await claim(c, code)
    return no.value.code


async def test_a_code_brings_the_same_identity_to_another_device(server: CardroomServer) -> None:
    phone = await person(server, "ann", "10.0.0.1")
    given = await offer(phone)
    assert len(given.code) == CODE_LENGTH and set(given.code) <= set(ALPHABET)
    assert 0 < given.expires - server.clock() <= 600
    laptop = await CardroomClient.connect(server.url, hello=False)
    welcome = await laptop.hello()  # a new device: the server issues it an identity of its own
    assert welcome.device is not None and welcome.device != phone.device
    # typed as people type it: lower case, with a dash
    moved = await claim(laptop, given.code[:4].lower() + "-" + given.code[4:])
    assert moved.device == phone.device and moved.player == player_id(moved.device)
    # this connection is that player now: a code it asks for moves Ann's identity again
    onwards = await offer(laptop)
    again = await CardroomClient.connect(server.url, hello=False)
    await again.hello()
    assert (await claim(again, onwards.code)).device == phone.device
    # and on the next visit, its hello says so
    assert (await again.hello(device=moved.device)).player == player_id(phone.device or "")
    # once: the code is spent
    assert await refused(laptop, given.code) == "bad_move_code"
    for c in (phone, laptop, again):
        await c.close()


async def test_a_new_code_voids_the_last_and_codes_expire() -> None:
    clock = Clock()
    async with CardroomServer(replace(rated_config(), move_burst=100.0)) as server:
        server.moves.codes = MemoryMoveCodes(clock, ttl=600.0)  # its clock, moved by the test
        phone = await person(server, "ann", "10.0.0.1")
        other = await person(server, "bob", "10.0.0.2")
        first = await offer(phone)
        second = await offer(phone)
        assert await refused(other, first.code) == "bad_move_code"
        clock.now += 601
        assert await refused(other, second.code) == "bad_move_code"  # expired
        third = await offer(phone)
        clock.now += 599
        assert (await claim(other, third.code)).device == phone.device
        await phone.close()
        await other.close()


async def test_guessing_spends_the_addresss_budget() -> None:
    config = replace(rated_config(), move_rate=1e-6, move_burst=3.0)
    async with CardroomServer(config) as server:
        phone = await person(server, "ann", "10.0.0.1")
        given = await offer(phone)  # one of the owner's address's budget
        thief = await person(server, "eve", "10.0.0.66")
        assert [await refused(thief, "AAAAAAAA") for _ in range(3)] == ["bad_move_code"] * 3
        # out of guesses: even the right code is refused, and it still works for its owner
        assert await refused(thief, given.code) == "rate_limited"
        laptop = await person(server, "ann-laptop", "10.0.0.2")
        assert (await claim(laptop, given.code)).device == phone.device
        for c in (phone, thief, laptop):
            await c.close()


async def test_no_identity_no_code() -> None:
    async with CardroomServer(replace(rated_config(), devices_per_address=0)) as server:
        c = await person(server, "nobody", "10.0.0.9", device="made-up-device-0123456789")
        with pytest.raises(CardroomError) as no:
            await offer(c)
        assert no.value.code == "no_identity"
        await c.close()


async def test_two_processes_share_the_codes(redis_server: RedisServer) -> None:
    config = replace(rated_config(), redis_url=redis_server.url, move_burst=100.0)
    async with CardroomServer(config) as one, CardroomServer(config) as two:
        phone = await person(one, "ann", "10.0.0.1")
        given = await offer(phone)
        laptop = await person(two, "ann-laptop", "10.0.0.2")
        assert (await claim(laptop, given.code)).device == phone.device
        other = await person(one, "bob", "10.0.0.3")
        assert await refused(other, given.code) == "bad_move_code"  # once, in the whole service
        for c in (phone, laptop, other):
            await c.close()


async def test_memory_codes_are_bounded() -> None:
    clock = Clock()
    codes = MemoryMoveCodes(clock, ttl=600.0, max_codes=5)
    issued = [await codes.issue(f"cr1device{i:040d}") for i in range(20)]
    assert codes.held() == 10  # five codes, five players' live codes
    assert await codes.claim(issued[0][0]) is None  # the oldest went first
    assert await codes.claim(issued[-1][0]) == f"cr1device{19:040d}"
    clock.now += 601
    await codes.issue("cr1someone-else")
    assert codes.held() == 2  # the expired ones went
