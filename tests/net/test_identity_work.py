"""A household behind one address gets more ranked identities than the address's free ones,
each for a proof of work; a sock-puppet flood from one address still stops at a few.

The work is real SHA-256 work at a low difficulty here (8 bits: a few hundred hashes) so that
the tests are quick; the budgets are the real ones."""

from __future__ import annotations

import dataclasses
import hashlib
import itertools

import pytest

from clients import CardroomClient, CardroomError
from protocol import messages as m
from server.net.devices import solves
from server.net.server import CardroomServer, ServerConfig
from server.store.memory import MemoryStore
from tests.support.server import make_config

FREE, WORKED, BITS = 1, 2, 8


def config() -> ServerConfig:
    return dataclasses.replace(
        make_config(),
        devices_per_address=FREE,
        worked_devices_per_address=WORKED,
        identity_work_bits=BITS,
    )


def solve(work: m.Work) -> str:
    return next(str(n) for n in itertools.count() if solves(work.challenge, str(n), work.bits))


async def identify(client: CardroomClient, challenge: str, nonce: str) -> m.Identified:
    msg = m.Identify(id="w1", challenge=challenge, nonce=nonce)
    return await client.request(msg, m.Identified)


async def refused(client: CardroomClient, challenge: str, nonce: str) -> str:
    with pytest.raises(CardroomError) as err:
        await identify(client, challenge, nonce)
    return err.value.code


def test_the_work_is_sha256_with_leading_zero_bits() -> None:
    digest = hashlib.sha256(b"abc:17").digest()
    zeros = 256 - int.from_bytes(digest, "big").bit_length()
    assert solves("abc", "17", zeros) and not solves("abc", "17", zeros + 1)


async def test_past_the_free_identities_work_earns_a_few_more_and_no_more(
    store: MemoryStore,
) -> None:
    async with CardroomServer(config(), store=store) as srv:
        at = ("127.0.0.5", 0)
        async with CardroomClient.connect(srv.url, local_addr=at) as first:
            assert first.welcome is not None and first.welcome.device  # the free one
            assert first.welcome.work is None
        async with CardroomClient.connect(srv.url, local_addr=at) as second:
            welcome = second.welcome
            assert welcome is not None and welcome.device is None and welcome.work is not None
            assert welcome.work.bits == BITS
            work = welcome.work
            assert await refused(second, work.challenge, "not-a-solution-x") == "bad_work"
            nonce = next(str(n) for n in itertools.count() if solves(work.challenge, str(n), BITS))
            # from another address the same solved challenge earns nothing
            async with CardroomClient.connect(srv.url, local_addr=("127.0.0.6", 0)) as other:
                assert await refused(other, work.challenge, nonce) == "bad_work"
            earned = await identify(second, work.challenge, nonce)
            assert srv.devices.valid(earned.device)
            assert await refused(second, work.challenge, nonce) == "bad_work"  # good once
        async with CardroomClient.connect(srv.url, local_addr=at) as third:
            assert third.welcome is not None and third.welcome.work is not None
            await identify(third, third.welcome.work.challenge, solve(third.welcome.work))
        async with CardroomClient.connect(srv.url, local_addr=at) as fourth:
            assert fourth.welcome is not None and fourth.welcome.work is not None
            work = fourth.welcome.work
            assert await refused(fourth, work.challenge, solve(work)) == "identities_spent"
        # an earned identity is kept and said in the next hello, as a free one
        async with CardroomClient.connect(srv.url, local_addr=at, device=earned.device) as back:
            assert back.welcome is not None and back.welcome.device == earned.device


async def test_a_sock_puppet_flood_from_one_address_still_stops_at_a_few(
    store: MemoryStore,
) -> None:
    async with CardroomServer(config(), store=store) as srv:
        at = ("127.0.0.7", 0)
        identities: set[str] = set()
        tries = 40
        for _ in range(tries):
            async with CardroomClient.connect(srv.url, local_addr=at) as puppet:
                welcome = puppet.welcome
                assert welcome is not None
                if welcome.device:
                    identities.add(welcome.device)
                    continue
                assert welcome.work is not None
                try:
                    earned = await identify(puppet, welcome.work.challenge, solve(welcome.work))
                except CardroomError as exc:
                    assert exc.code == "identities_spent"
                    continue
                identities.add(earned.device)
        # forty puppets, each doing the work: the address's free one and its two earned only
        assert len(identities) == FREE + WORKED
        # (the daily board then also holds at most --daily-entries-per-address of its players:
        # tests/runtime/test_honest_boards.py)
