"""The server secret is never in Redis (whoever reads Redis would compute every deal and sign
identities): real ``cardroom serve --redis`` processes on a real redis-server are given it by
their environment, Redis keeps only a fingerprint that tells whether they agree, and a secret
an older version left there in plain hex is removed once moved to the environment."""

from __future__ import annotations

import asyncio
import datetime
import json
import os
import subprocess
import sys
import urllib.request
from typing import Any

import pytest
from redis.asyncio import Redis

from clients import CardroomClient
from server.rooms.secret import parse_secret, process_secret
from server.rooms.seeds import Keys
from server.rules.deal import commitment
from server.store.redis_client import global_key
from server.tools.bench.procs import free_port
from server.tools.bench.redis_server import RedisServer
from tests.support.redis_games import serving
from tests.support.server import play_until_over

OTHER = "ab" * 32


async def everything_in(url: str) -> list[bytes]:
    """Every key and every value Redis holds, as bytes."""
    redis: Any = Redis.from_url(url)  # (replies of every type, read as bytes)
    out: list[bytes] = []
    try:
        async for key in redis.scan_iter():
            out.append(key)
            kind = (await redis.type(key)).decode()
            if kind == "string":
                out.append(await redis.get(key) or b"")
            elif kind == "hash":
                for field, value in (await redis.hgetall(key)).items():
                    out += [field, value]
            elif kind == "zset":
                out += await redis.zrange(key, 0, -1)
            elif kind == "set":
                out += list(await redis.smembers(key))
            elif kind == "list":
                out += await redis.lrange(key, 0, -1)
            elif kind == "stream":
                for _, fields in await redis.xrange(key):
                    for field, value in fields.items():
                        out += [field, value]
    finally:
        await redis.aclose()
    return out


def deals_computed_from(stored: list[bytes], published: list[str], day: datetime.date) -> int:
    """How many of a day's published daily commitments a value Redis holds computes (read as
    a secret, with or without the dealer committed)."""
    best = 0
    for value in stored:
        try:
            keys = Keys(parse_secret(value.decode()))
        except (UnicodeDecodeError, ValueError):
            continue
        seeds = [keys.daily(day, h) for h in range(len(published))]
        made = {commitment(seed, h % 5) for h, seed in enumerate(seeds)}
        made |= {commitment(seed) for seed in seeds}
        best = max(best, sum(1 for c in published if c in made))
    return best


@pytest.mark.slow
async def test_redis_never_holds_the_server_secret(redis_server: RedisServer) -> None:
    ports = free_port(), free_port()
    async with serving(ports[0], redis_server.url), serving(ports[1], redis_server.url):
        for port in ports:  # a game played on each process
            me = await CardroomClient.connect(f"ws://127.0.0.1:{port}/")
            await me.create("shithead", seats=2, name="Ann")
            await me.host("start")
            await play_until_over(me)
            await me.close()
        status, daily = await asyncio.to_thread(get_at, ports[0], "/api/daily")
        stored = await everything_in(redis_server.url)
    assert status == 200 and stored  # rooms, history, leases...
    day = datetime.date.fromisoformat(daily["date"])
    # rule SS-9.2: whoever reads Redis computes none of the day's deals
    assert deals_computed_from(stored, daily["commitments"], day) == 0
    secret = process_secret()  # what serving() gives each process (CARDROOM_SECRET)
    assert not [v for v in stored if secret.hex().encode() in v.lower() or secret in v]


def get_at(port: int, path: str) -> tuple[int, Any]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as r:
        return r.status, json.loads(r.read())


@pytest.mark.slow
async def test_a_process_with_another_secret_refuses_to_start(redis_server: RedisServer) -> None:
    async with serving(free_port(), redis_server.url):
        with pytest.raises(RuntimeError, match="did not start"):
            async with serving(free_port(), redis_server.url, f"--secret={OTHER}"):
                pass


@pytest.mark.slow
def test_serve_with_redis_needs_a_secret() -> None:
    env = {k: v for k, v in os.environ.items() if k != "CARDROOM_SECRET"}
    done = subprocess.run(
        [sys.executable, "-m", "server.cli", "serve", "--port", "0", "--redis", "redis://x:1/0"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert done.returncode == 2 and "CARDROOM_SECRET" in done.stderr


@pytest.mark.slow
async def test_a_secret_left_in_plain_hex_is_removed_once_given(
    redis_server: RedisServer,
) -> None:
    redis = Redis.from_url(redis_server.url)
    try:
        await redis.set(global_key("secret"), OTHER)  # as an older version kept it
        with pytest.raises(RuntimeError, match="did not start"):  # another one given: refused
            async with serving(free_port(), redis_server.url):
                pass
        assert await redis.get(global_key("secret")) == OTHER.encode()  # nothing lost
        async with serving(free_port(), redis_server.url, f"--secret={OTHER}"):
            assert await redis.get(global_key("secret")) is None
    finally:
        await redis.aclose()
