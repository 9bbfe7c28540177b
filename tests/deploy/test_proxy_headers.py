"""What the shipped nginx lets through and what it writes itself, run for real (Debian's nginx,
``deploy/nginx.conf``, two processes on Redis): ``/metrics`` is not public, and a client's own
``X-Forwarded-Host`` does not reach the origin check."""

from __future__ import annotations

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
