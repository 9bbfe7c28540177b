"""What the shipped nginx lets through and what it writes itself, run for real (Debian's nginx,
``deploy/nginx.conf``, two processes on Redis): ``/metrics`` is not public, a client's own
``X-Forwarded-Host`` does not reach the origin check, and a header sent twice, which nginx
passes on, is a 400 from the process with nothing in its log."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus
from websockets.typing import Origin

from server.tools.bench.redis_server import RedisServer
from tests.deploy.processes import http
from tests.deploy.stack import Stack, stack

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def deployment(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    where = tmp_path_factory.mktemp("proxy-headers")
    (where / "redis").mkdir()
    with RedisServer(where / "redis", fsync="everysec") as redis, stack(where, redis.url) as s:
        yield s


def test_metrics_are_not_served_through_the_proxy(deployment: Stack) -> None:
    for path in ("/metrics", "/metrics/", "/metrics?x=1", "//metrics", "/METRICS", "/%6detrics"):
        status, body = http(deployment.port, path)
        assert status == 404, (path, status)
        assert b"cardroom_" not in body
    # the processes still answer their scraper on their own ports
    assert all(http(p.port, "/metrics")[0] == 200 for p in deployment.processes)
    assert http(deployment.port, "/healthz")[0] == 200


async def test_a_client_cannot_name_its_own_host_to_the_origin_check(deployment: Stack) -> None:
    evil = "evil.example"
    with pytest.raises(InvalidStatus) as refused:
        await connect(
            deployment.ws,
            origin=Origin(f"http://{evil}"),
            additional_headers=[("X-Forwarded-Host", evil), ("Forwarded", f"host={evil}")],
        )
    assert refused.value.response.status_code == 403
    # the page of the host it asked for is still let in
    ws = await connect(deployment.ws, origin=Origin(deployment.base))
    await ws.close()


def raw(port: int, head: str) -> bytes:
    """One request written by hand (a header twice): the status line of the answer."""
    with socket.create_connection(("127.0.0.1", port), 5) as s:
        s.sendall(f"{head}Connection: close\r\n\r\n".encode())
        data = b""
        while b"\r\n" not in data and (chunk := s.recv(4096)):
            data += chunk
    return data.split(b"\r\n")[0]


def test_a_header_sent_twice_is_a_400_and_no_traceback(deployment: Stack) -> None:
    host = f"Host: 127.0.0.1:{deployment.port}\r\n"
    requests = [
        f"GET /api/rooms/ABCDE/history HTTP/1.1\r\n{host}Authorization: a\r\nAuthorization: b\r\n",
        f"GET / HTTP/1.1\r\n{host}Accept-Encoding: gzip\r\nAccept-Encoding: br\r\n",
        f'GET / HTTP/1.1\r\n{host}If-None-Match: "a"\r\nIf-None-Match: "b"\r\n',
        f"GET /ws HTTP/1.1\r\n{host}Upgrade: websocket\r\nConnection: Upgrade\r\n"
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        "Origin: http://a.example\r\nOrigin: http://b.example\r\n",
    ]
    for head in requests:
        assert raw(deployment.port, head).startswith(b"HTTP/1.1 400"), head
    for p in deployment.processes:
        assert b"Traceback" not in p.log.read_bytes()
