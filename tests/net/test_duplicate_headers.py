"""Requests the server cannot read one way: a header it reads once sent twice, and a date that
does not make a day. Each is a 400 to its sender, counted, and no traceback in the log."""

from __future__ import annotations

import asyncio
import base64
import logging
import os

import pytest

from server.net.server import CardroomServer
from tests.support.http import get, metric, metrics

WS_HEADERS = (
    "Upgrade: websocket\r\nConnection: Upgrade\r\n"
    f"Sec-WebSocket-Key: {base64.b64encode(os.urandom(16)).decode()}\r\n"
    "Sec-WebSocket-Version: 13\r\n"
)


async def raw(port: int, path: str, headers: str) -> bytes:
    """One request written by hand (so a header can be sent twice); the whole answer's head."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(f"GET {path} HTTP/1.1\r\n{headers}\r\n".encode())
        return await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
    finally:
        writer.close()


@pytest.mark.parametrize(
    ("path", "headers"),
    [
        ("/", "Host: a.example\r\nHost: b.example\r\n"),
        ("/ws", f"Host: 127.0.0.1\r\n{WS_HEADERS}Origin: http://127.0.0.1\r\nOrigin: http://x\r\n"),
        ("/ws", f"Host: 127.0.0.1\r\n{WS_HEADERS}Upgrade: websocket\r\n"),
        ("/", "Host: 127.0.0.1\r\nUpgrade: a\r\nUpgrade: b\r\n"),
        ("/", "Host: 127.0.0.1\r\nAccept-Encoding: gzip\r\nAccept-Encoding: br\r\n"),
        ("/api/daily", "Host: 127.0.0.1\r\nAccept-Encoding: gzip\r\nAccept-Encoding: br\r\n"),
        ("/api/rooms/ABCDE/history", "Host: x\r\nAuthorization: a\r\nAuthorization: b\r\n"),
        ("/index.html", 'Host: 127.0.0.1\r\nIf-None-Match: "a"\r\nIf-None-Match: "b"\r\n'),
    ],
)
async def test_a_header_sent_twice_is_a_400_without_a_traceback(
    server: CardroomServer, caplog: pytest.LogCaptureFixture, path: str, headers: str
) -> None:
    caplog.set_level(logging.DEBUG)
    head = await raw(server.port, path, headers)
    assert head.startswith(b"HTTP/1.1 400"), head
    assert not [r for r in caplog.records if r.exc_info], "a traceback was logged"
    refused = 'cardroom_http_refused_total{reason="duplicate_header"}'
    assert metric(await metrics(server), refused) == 1


async def test_a_date_out_of_range_is_a_bad_date(server: CardroomServer) -> None:
    for day in ("0001-01-01", "9999-12-31"):
        status, _, body = await get(server, f"/api/daily?date={day}")
        assert status == 400, (day, status, body)
        assert b"bad_date" in body
