"""Rooms land where they live (each on one process), through the repository's nginx in front of
two ``cardroom serve --redis`` processes: rooms created at ``/ws`` are let go for the process
their code hashes to, their players connect to ``/ws/CODE``, and almost nothing goes through
Redis pub/sub. Before this (nginx ``least_conn``, clients at ``/``), about half the frames did.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from clients import CardroomClient
from server.tools.bench.redis_server import RedisServer
from tests.deploy.stack import Stack, stack
from tests.support.redis_games import Acked, play

pytestmark = pytest.mark.slow

ROOMS = 16  # on two processes: all on one by chance once in 30,000 runs
PLAYERS = 3
TURNS = 30


@pytest.fixture
def deployment(tmp_path: Path) -> Iterator[Stack]:
    (tmp_path / "redis").mkdir()
    with (
        RedisServer(tmp_path / "redis", fsync="everysec") as redis,
        stack(tmp_path, redis.url) as s,
    ):
        yield s


def source(room: int) -> tuple[str, int]:
    return (f"127.0.4.{1 + room}", 0)  # a table's people share an address


async def table(deployment: Stack, i: int) -> list[CardroomClient]:
    host = await CardroomClient.connect(deployment.ws, local_addr=source(i))
    await host.create("shithead", seats=PLAYERS, name="Ann")  # moved: it resumed at /ws/CODE
    code = host.room
    assert code is not None and host.url == f"{deployment.ws}/{code}"
    guests = [
        await CardroomClient.connect(deployment.ws, room=code, local_addr=source(i))
        for seat in range(1, PLAYERS)
    ]
    for seat, guest in enumerate(guests, 1):
        await guest.join(code, name=f"P{seat}")
    await host.host("start")
    return [host, *guests]


async def seen_by_all(clients: list[CardroomClient], version: int) -> None:
    for c in clients:
        if (c.version or 0) < version:
            await c.wait_state(lambda s: s.version >= version, timeout=10)


async def test_a_room_s_players_reach_its_owner_directly(deployment: Stack) -> None:
    async with asyncio.timeout(120):
        tables = await asyncio.gather(*(table(deployment, i) for i in range(ROOMS)))
        acked: list[Acked] = [{} for _ in tables]
        await asyncio.gather(*(play(t, a, TURNS) for t, a in zip(tables, acked, strict=True)))
        assert all(len(a) >= TURNS // 2 for a in acked)
        # every player saw the last state of its table before the counts are read
        for t, a in zip(tables, acked, strict=True):
            await seen_by_all(t, max(a))
        sent = deployment.metric("cardroom_frames_sent_total")
        relayed = deployment.metric("cardroom_relayed_frames_total")
        forwarded = deployment.metric('cardroom_forwarded_messages_total{direction="out"}')
        placed = deployment.metric("cardroom_rooms_placed_total")
        rooms = deployment.metric("cardroom_rooms")
        await asyncio.gather(*(c.close() for t in tables for c in t))
    fraction = sum(relayed) / sum(sent)
    print(f"frames sent {sent}, relayed {relayed}, forwarded {forwarded}: {fraction:.2%}")
    assert sum(placed) == ROOMS  # every room was let go by the process that made it
    assert sum(rooms) == ROOMS and all(r > 0 for r in rooms)  # the hash spread them
    assert fraction < 0.01, (sent, relayed)  # was ~50 % with least_conn and clients at /
    assert sum(forwarded) < 0.01 * ROOMS * TURNS


async def test_a_malformed_room_path_is_refused_through_the_proxy(deployment: Stack) -> None:
    for path in ("/ws/abcde", "/ws/ABCD", "/ws/ABCDE/x", "/socket"):
        with pytest.raises(InvalidStatus) as refused:
            await connect(f"ws://127.0.0.1:{deployment.port}{path}")
        assert refused.value.response.status_code == 404, path
    async with CardroomClient.connect(deployment.ws, room="ABCDE") as fine:
        assert fine.welcome is not None  # both processes still serve
