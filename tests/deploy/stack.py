"""The shipped topology on loopback: Redis, two ``cardroom serve --redis`` processes and
Debian's nginx running the repository's own ``deploy/nginx.conf`` (only its upstream hosts and
ports and its listening port changed), wrapped in the minimal ``events {}`` and ``http {}``."""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from server.tools.bench.procs import free_port
from server.tools.bench.proxy import Nginx, nginx_conf
from tests.deploy.processes import ROOT, Serve, http

#: What the test trusts: nginx reaches the processes from 127.0.0.1.
PROXY = "127.0.0.1/32"


@dataclass
class Stack:
    processes: list[Serve]
    port: int  # nginx's

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/"

    @property
    def ws(self) -> str:
        """The WebSocket address of a client in no room yet (protocol/paths.py)."""
        return f"ws://127.0.0.1:{self.port}/ws"

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def metric(self, name: str) -> list[float]:
        """A metric's value in each process (asked directly, not through nginx)."""
        values = []
        for p in self.processes:
            status, body = http(p.port, "/metrics")
            assert status == 200
            found = re.search(rf"^{re.escape(name)} (\S+)$", body.decode(), re.M)
            values.append(float(found[1]) if found else 0.0)
        return values


@contextlib.contextmanager
def stack(
    directory: Path,
    redis_url: str,
    args: Sequence[str] = ("--trusted-proxy", PROXY),
    *,
    cwd: Path = ROOT,
    site: str | None = None,
) -> Iterator[Stack]:
    """Start two processes and nginx; stop (and at last kill) all of them on the way out."""
    site = site if site is not None else (ROOT / "deploy" / "nginx.conf").read_text()
    common = ["--redis", redis_url, "--bot-delay", "0", "--rate", "1000", "--burst", "1000"]
    with contextlib.ExitStack() as stop:
        processes = []
        for name in ("a", "b"):
            serve = Serve([*common, *args], directory / f"serve-{name}.log", cwd=cwd)
            processes.append(stop.enter_context(serve))
        port = free_port()
        conf = nginx_conf(site, directory / "nginx", port, [p.port for p in processes])
        stop.enter_context(Nginx(directory / "nginx", conf))
        ready = Stack(processes, port)
        _wait_healthy(ready)
        yield ready


def _wait_healthy(ready: Stack, tries: int = 100) -> None:
    for _ in range(tries):
        if http(ready.port, "/healthz", timeout=1.0)[0] == 200:
            return
        time.sleep(0.05)
    raise RuntimeError("nginx did not answer /healthz")
