"""Keepalive from one sweep (server/net/keepalive.py): every quiet connection is pinged, one that
answers stays open however long it is idle, one that never answers its ping is closed with
1011, as websockets' own per-connection keepalive did; one that sends messages is not pinged."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Iterator

import pytest
from websockets.asyncio.client import connect

from server.net.keepalive import PER_TURN, Keepalive
from server.net.receive import DirectConnection
from server.net.server import CardroomServer, ServerConfig
from tests.support.http import http_get
from tests.support.raw_ws import frame as _frame
from tests.support.raw_ws import open_raw as _open_raw
from tests.support.raw_ws import read_frame
from tests.support.raw_ws import text as _text

pytestmark = pytest.mark.slow


async def _read_all(reader: asyncio.StreamReader) -> bytes:
    data = b""
    try:
        while chunk := await reader.read(4096):
            data += chunk
    except ConnectionResetError:
        pass
    return data


async def _opcodes(
    reader: asyncio.StreamReader, seconds: float, pong: asyncio.StreamWriter | None = None
) -> list[int]:
    """The opcodes of the server's frames (unmasked) read for ``seconds`` (each ping answered
    on ``pong``, if given)."""
    found: list[int] = []
    loop = asyncio.get_running_loop()
    end = loop.time() + seconds
    while (left := end - loop.time()) > 0:
        try:
            opcode, data = await asyncio.wait_for(read_frame(reader), left)
        except TimeoutError:
            break
        found.append(opcode)
        if pong is not None and opcode == 0x9:
            pong.write(_frame(0xA, data))
    return found


async def test_a_connection_that_sends_messages_is_not_pinged_and_a_quiet_one_is() -> None:
    # every sweep (0.1 s) pinged every connection, the ones whose players had just acted too
    config = ServerConfig(port=0, ping_interval=0.1, ping_timeout=10.0, hello_timeout=30.0)
    async with CardroomServer(config) as server:
        (chatty_r, chatty_w), (quiet_r, quiet_w) = [await _open_raw(server.port) for _ in "ab"]
        hello = '{"type": "hello", "id": 1, "protocol": 1}'
        chatty_w.write(_text(hello))
        quiet_w.write(_text(hello))

        async def chat() -> None:  # a message every 20 ms, for 1 s: ten sweeps
            for n in range(50):
                chatty_w.write(_text(f'{{"type": "ping", "id": {n + 2}}}'))
                await asyncio.sleep(0.02)

        chatting = asyncio.create_task(chat())
        chatty, quiet = await asyncio.gather(
            _opcodes(chatty_r, 1.0, chatty_w), _opcodes(quiet_r, 1.0, quiet_w)
        )
        await chatting
        for w in (chatty_w, quiet_w):
            w.close()
        assert chatty.count(0x1) >= 20  # its welcome and pongs (the protocol's, as text)
        assert 0x9 not in chatty  # never pinged by the keepalive while it spoke
        assert quiet.count(0x9) >= 5  # the quiet one was pinged sweep after sweep (it answers)
        assert server.keepalive.spared >= 5 and server.keepalive.pinged >= 5
        _, metrics = await asyncio.to_thread(http_get, server.port, "/metrics")
        lines = metrics.splitlines()
        assert any(line.startswith("cardroom_keepalive_spared ") for line in lines)
        assert any(line.startswith("cardroom_keepalive_pings ") for line in lines)


async def test_a_silent_peer_is_closed_and_an_answering_one_stays() -> None:
    config = ServerConfig(port=0, ping_interval=0.1, ping_timeout=0.2, hello_timeout=30.0)
    # a websockets client answers every ping by itself
    async with CardroomServer(config) as server, connect(server.url) as answering:
        reader, writer = await _open_raw(server.port)
        # it reads and never answers: pinged, then closed with 1011 (0x03F3)
        data = await asyncio.wait_for(_read_all(reader), 5)
        writer.close()
        assert data.startswith(b"\x89\x04")  # an unmasked ping with its 4 bytes
        assert b"\x88" in data and b"\x03\xf3keepalive ping timeout" in data
        assert server.keepalive.closed == 1
        await answering.send('{"type": "hello", "id": 1, "protocol": 1}')
        welcome = await asyncio.wait_for(answering.recv(), 5)
        assert '"welcome"' in str(welcome)  # still open after many sweeps
        # its pongs answered every sweep's ping: only the silent peer was ever closed
        assert server.keepalive.closed == 1
        _, metrics = await asyncio.to_thread(http_get, server.port, "/metrics")
        assert "cardroom_keepalive_closed 1.0" in metrics.splitlines()


async def test_a_sweep_draws_at_most_a_turns_share_of_the_connections_between_turns() -> None:
    # it made a list of all of them first: at 10,000, one loop turn of 4-6 ms
    config = ServerConfig(port=0, ping_interval=3600.0, hello_timeout=30.0, max_per_address=1000)
    async with CardroomServer(config) as server:
        clients = [await _open_raw(server.port) for _ in range(2 * PER_TURN + 88)]
        drawn = 0

        def counted() -> Iterator[DirectConnection]:  # the server's own walk, counted
            nonlocal drawn
            for ws in server._direct_sockets():
                drawn += 1
                yield ws

        seen: list[int] = []  # how many had been drawn at each turn of the loop
        sweeping = asyncio.create_task(Keepalive(3600.0, 10.0, counted).sweep())
        while not sweeping.done():
            seen.append(drawn)
            await asyncio.sleep(0)
        for _, writer in clients:
            writer.close()
        assert drawn == len(clients)
        steps = [b - a for a, b in itertools.pairwise([0, *seen, drawn])]
        assert max(steps) <= PER_TURN and len(steps) >= 3, steps
