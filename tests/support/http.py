"""HTTP requests to a server under test, from threads of their own (the server runs in the test's
event loop and replays in the default executor); its /metrics samples."""

from __future__ import annotations

import asyncio
import http.client
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

from server.net.server import CardroomServer

CLIENTS = ThreadPoolExecutor(16, thread_name_prefix="http-client")


def request(
    port: int, path: str, headers: dict[str, str] | None = None, source: str = "127.0.0.1"
) -> tuple[int, dict[str, str], bytes]:
    """One GET from loopback address ``source``: (status, headers but Date, body)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=(source, 0))
    try:
        conn.request("GET", path, headers=headers or {})
        answer = conn.getresponse()
        heads = {k: v for k, v in answer.getheaders() if k.lower() != "date"}
        return answer.status, heads, answer.read()
    finally:
        conn.close()


async def get(
    server: CardroomServer,
    path: str,
    headers: dict[str, str] | None = None,
    source: str = "127.0.0.1",
) -> tuple[int, dict[str, str], bytes]:
    # threads of their own: the server, in this event loop, replays in the default executor
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(CLIENTS, request, server.port, path, headers, source)


def metric(text: str, name: str) -> float:
    """A sample of ``/metrics`` by its full name (labels included); 0 when absent."""
    for line in text.splitlines():
        if line.rsplit(" ", 1)[0] == name:
            return float(line.rsplit(" ", 1)[1])
    return 0.0


async def metrics(server: CardroomServer) -> str:
    return (await get(server, "/metrics"))[2].decode()


def http_get(port: int, path: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()
