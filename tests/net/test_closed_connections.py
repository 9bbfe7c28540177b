"""A closed connection is freed by reference counting, so the server never has to stop for a
collection of its whole heap while people stay connected (at 5,000
connections such a collection, run by the trim after every 256 closes, stopped the server for
~0.4 s). Real WebSockets over loopback; the automatic collector is off in
each test, so only reference counting (or an explicit collection) frees anything."""

from __future__ import annotations

import asyncio
import gc
import threading
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection, connect

from server.net.server import CardroomServer, ServerConfig

pytestmark = pytest.mark.slow

HELLO = '{"type": "hello", "id": 1, "protocol": 1}'


def _config() -> ServerConfig:
    # hundreds of connections from 127.0.0.1 in one test: the per-address caps raised
    return ServerConfig(port=0, max_per_address=1000, max_handshakes_per_address=1000)


@contextmanager
def _collector_off() -> Iterator[list[int]]:
    """The automatic collector off; yields the generations of the collections this thread ran
    anyway."""
    ran: list[int] = []
    here = threading.get_ident()

    def seen(phase: str, info: dict[str, Any]) -> None:
        # this thread's collections only: a server another test left running in a thread of
        # this process (the browser tests' live server) collects on its own
        if phase == "start" and threading.get_ident() == here:
            ran.append(info["generation"])

    gc.collect()
    gc.disable()
    gc.callbacks.append(seen)
    try:
        yield ran
    finally:
        gc.callbacks.remove(seen)
        gc.enable()


async def _greeted(url: str) -> ClientConnection:
    ws = await connect(url)
    await ws.send(HELLO)
    await ws.recv()  # the welcome
    return ws


async def _until(predicate: Any, seconds: float = 10.0) -> None:
    async with asyncio.timeout(seconds):
        while not predicate():  # noqa: ASYNC110  # polled with a bound: no event for it
            await asyncio.sleep(0.01)


async def test_a_closed_connection_is_freed_without_the_collector() -> None:
    with _collector_off() as ran:
        async with CardroomServer(_config()) as server:
            staying = await _greeted(server.url)  # someone stays: no trim of an empty server
            stays = set(server.connected.sockets)
            clients = [await _greeted(server.url) for _ in range(20)]
            leaving = [c for k, c in server.connected.sockets.items() if k not in stays]
            sockets = [weakref.ref(c.ws) for c in leaving]
            conns = [weakref.ref(c) for c in leaving]
            assert len(sockets) == 20
            del leaving
            for c in clients:
                await c.close()
            # the server's side of each is gone from memory once it has let it go
            await _until(lambda: all(r() is None for r in sockets + conns))
            assert len(server.connected.sockets) == 1
            assert 2 not in ran  # freed by reference counting alone
            await staying.close()


async def test_the_trim_after_many_closes_runs_no_full_collection_while_others_stay() -> None:
    with _collector_off() as ran:
        async with CardroomServer(_config()) as server:
            staying = await _greeted(server.url)
            gate = asyncio.Semaphore(32)

            async def one() -> ClientConnection:
                async with gate:
                    return await _greeted(server.url)

            clients = await asyncio.gather(*(one() for _ in range(260)))  # past TRIM_EVERY
            ran.clear()
            await asyncio.gather(*(c.close() for c in clients))
            await _until(lambda: len(server.connected.sockets) == 1)
            # the trim counts closes from zero again once it has run
            await _until(lambda: server._trim is None and server._closes < 256)
            assert 2 not in ran, f"a full collection stopped the server: {ran}"
            await staying.close()
