"""Games against real ``cardroom serve --redis`` processes: each acknowledged action noted, and the
stored log checked against them."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from clients import CardroomClient, CardroomError
from protocol.cards import parse_card
from protocol.records import ActionEntry
from protocol.views import ActionWire
from server.rules.base import Action
from server.store.redis_store import RedisStore
from server.tools.bench.procs import serve_process
from tests.support.server import choose

Acked = dict[int, tuple[int, ActionWire]]  # version -> (seat, action sent)


@asynccontextmanager
async def serving(
    port: int, redis_url: str, *extra: str
) -> AsyncIterator[asyncio.subprocess.Process]:
    """``cardroom serve --redis redis_url`` on ``port`` (rate limit raised for scripted play)."""
    rate = ("--rate", "1000", "--burst", "1000")
    async with serve_process(port, "--redis", redis_url, *rate, *extra) as proc:
        yield proc


async def play(clients: list[CardroomClient], acked: Acked, turns: int) -> None:
    """Play ``turns`` human turns, each by whichever client must act (or until the game is
    over), noting each acknowledged action."""
    for turn in range(turns):
        waits = {asyncio.create_task(c.wait_turn(timeout=30)): c for c in clients}
        done, pending = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        for task in pending:  # only waiting: nothing is lost by stopping it
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        task = done.pop()
        client, state = waits[task], task.result()
        if state.view["phase"] == "over":
            return
        action = choose(state.view, turn)
        try:
            ack = await client.act(action, version=state.version)
        except CardroomError as exc:
            assert exc.code == "stale_version", exc
            continue
        assert ack.version is not None and ack.version not in acked
        assert client.seat is not None
        acked[ack.version] = (client.seat, action)


def same_action(entry: ActionEntry, seat: int, sent: ActionWire) -> bool:
    stored = Action.from_str(entry["a"])
    cards = sorted(parse_card(c) for c in sent.get("cards", []))
    return entry["s"] == seat and stored.kind == sent["kind"] and sorted(stored.cards) == cards


async def play_to_the_end(clients: list[CardroomClient], acked: Acked) -> None:
    """Play on until the game is over and every client has seen it end, then close them."""
    await play(clients, acked, 1000)
    for c in clients:  # each sees the end (the last state may still be on its way)
        if c.view is None or c.view["phase"] != "over":
            await c.wait_state(lambda s: s.view["phase"] == "over", timeout=10)
    await asyncio.gather(*(c.close() for c in clients))


async def assert_log_holds(redis_url: str, room: str, acked: Acked) -> None:
    """The room's stored log has one entry per version, in order (nothing repeated, nothing
    skipped), and every acknowledged action is in it."""
    store = RedisStore(redis_url)
    try:
        stored = await store.load(room)
    finally:
        await store.close()
    assert stored is not None
    versions = [e["v"] for e in stored.actions]
    assert versions == list(range(versions[0], versions[0] + len(versions)))
    by_version = {e["v"]: e for e in stored.actions}
    for version, (seat, sent) in acked.items():
        assert same_action(by_version[version], seat, sent), (version, by_version[version], sent)
