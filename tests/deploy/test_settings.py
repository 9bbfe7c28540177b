"""``cardroom serve``'s front-door settings as an operator gives them: the trusted proxy from
the environment (as docker-compose.yml does) and a malformed one refused at start."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from tests.deploy.processes import ROOT, Serve

pytestmark = pytest.mark.slow


async def test_the_trusted_proxy_comes_from_the_environment(tmp_path: Path) -> None:
    env = {"CARDROOM_TRUSTED_PROXIES": "10.0.0.0/8, 127.0.0.1/32"}
    with Serve(["--max-per-address", "1"], tmp_path / "serve.log", env=env) as srv:
        async with asyncio.timeout(20):
            # two people behind the proxy at 127.0.0.1: one connection each
            ann = await connect(srv.url, additional_headers={"X-Forwarded-For": "203.0.113.1"})
            bob = await connect(srv.url, additional_headers={"X-Forwarded-For": "203.0.113.2"})
            with pytest.raises(InvalidStatus) as refused:  # Ann's second
                await connect(srv.url, additional_headers={"X-Forwarded-For": "203.0.113.1"})
            assert refused.value.response.status_code == 503
            await asyncio.gather(ann.close(), bob.close())


@pytest.mark.parametrize(
    ("args", "env"),
    [(["--trusted-proxy", "10.0.0.300/8"], {}), ([], {"CARDROOM_TRUSTED_PROXIES": "nginx"})],
)
def test_a_malformed_trusted_proxy_stops_the_start(args: list[str], env: dict[str, str]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "server.cli", "serve", "--port", "0", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env={**{k: v for k, v in os.environ.items() if k != "CARDROOM_TRUSTED_PROXIES"}, **env},
    )
    assert done.returncode == 2 and "--trusted-proxy" in done.stderr
