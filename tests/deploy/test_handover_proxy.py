"""A planned stop behind the repository's nginx, which loses no room: SIGTERM the process that
owns a room mid-game; it hands the room to the other process, and its clients come back
through the same proxy URL by themselves (nginx sends them to the live process once the
stopping one closes its port); the game goes on to its end, nothing lost."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from server.tools.bench.handover import (
    back_in_seat,
    lost_actions,
    open_table,
    play_table,
)
from server.tools.bench.redis_server import RedisServer
from tests.deploy.processes import http
from tests.deploy.stack import Stack, stack

pytestmark = pytest.mark.slow


@pytest.fixture
def proxied(tmp_path: Path) -> Iterator[tuple[Stack, RedisServer]]:
    (tmp_path / "redis").mkdir()
    with (
        RedisServer(tmp_path / "redis", fsync="everysec") as redis,
        stack(tmp_path, redis.url) as running,
    ):
        yield running, redis


async def test_sigterm_of_the_owner_behind_nginx_costs_nobody_the_game(
    proxied: tuple[Stack, RedisServer],
) -> None:
    deployment, redis = proxied
    table = await open_table([deployment.url], 0)
    try:
        async with asyncio.timeout(120):
            restarted = asyncio.Event()
            playing = asyncio.create_task(play_table(table, restarted))
            await table.clients[0].wait_state(lambda s: s.version >= 20, timeout=30)
            owner = deployment.metric("cardroom_rooms").index(1.0)
            await asyncio.to_thread(deployment.processes[owner].stop)  # SIGTERM; it exits
            status, body = http(deployment.processes[1 - owner].port, "/metrics")
            assert status == 200 and b'cardroom_handovers_total{way="taken"} 1.0' in body
            restarted.set()
            await playing
        assert table.finished and back_in_seat(table) == 3
        print(f"longest pause {table.longest_pause() * 1000:.0f} ms")
        assert table.longest_pause() < 3.0, (table.pause_report(), logs(deployment))
        assert await lost_actions(redis.url, table) == 0
    finally:  # a failure above must not leave clients resuming into the next test
        for c in table.clients:
            await c.close()


def logs(deployment: Stack) -> dict[str, str]:
    """The last lines each process printed (a failure's evidence)."""
    return {
        str(p.log.name): "\n".join(p.log.read_text(errors="replace").splitlines()[-30:])
        for p in deployment.processes
    }
