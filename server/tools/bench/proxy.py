"""Debian's nginx in front of ``cardroom serve`` processes on loopback: the repository's own
``deploy/nginx.conf`` with only its upstream hosts and ports and its listening port changed,
wrapped in the minimal ``events {}`` and ``http {}`` (the deployment tests and the scale-out
bench, :mod:`server.tools.bench.scaleout`, run it for real).
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
from collections.abc import Sequence
from pathlib import Path

from server.tools.bench.procs import die_with_parent


def nginx_conf(site: str, directory: Path, listen: int, upstreams: Sequence[int]) -> str:
    """The whole nginx.conf: ``site`` (deploy/nginx.conf) with loopback hosts and ports."""
    # every upstream block names the same processes (deploy/nginx.conf: two ways to pick one)
    hosts = list(dict.fromkeys(re.findall(r"^\s*server\s+([\w.-]+:\d+)", site, re.M)))
    assert len(hosts) == len(upstreams), hosts
    for host, port in zip(hosts, upstreams, strict=True):
        site = site.replace(f"server {host} ", f"server 127.0.0.1:{port} ")  # in each block
    site, listens = re.subn(r"listen\s+80;", f"listen 127.0.0.1:{listen};", site)
    assert listens == 1
    temp = directory / "temp"
    temp.mkdir(parents=True, exist_ok=True)
    paths = "\n".join(
        f"    {kind}_temp_path {temp / kind};"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    # as root, nginx's workers would switch to "nobody", who cannot use the test's directory
    user = "user root;" if os.geteuid() == 0 else ""
    return f"""{user}
daemon off;
worker_processes 1;
pid {directory / "nginx.pid"};
error_log {directory / "logs" / "error.log"} warn;
events {{
    worker_connections 4096;
}}
http {{
    access_log off;
{paths}
{site}
}}
"""


class Nginx:
    """Debian's nginx in the foreground with its prefix, pid, temp and log files in
    ``directory`` (``conf`` is the whole nginx.conf)."""

    def __init__(self, directory: Path, conf: str) -> None:
        self.directory = directory
        self.conf = conf
        self.process: subprocess.Popen[bytes] | None = None

    @staticmethod
    def binary() -> str | None:
        return shutil.which("nginx") or next(
            (p for p in ("/usr/sbin/nginx",) if Path(p).is_file()), None
        )

    def __enter__(self) -> Nginx:
        binary = self.binary()
        assert binary, "nginx is needed: apt-get install -y nginx (make pytest installs it)"
        (self.directory / "logs").mkdir(parents=True, exist_ok=True)
        conf = self.directory / "nginx.conf"
        conf.write_text(self.conf)
        error_log = str(self.directory / "logs" / "error.log")
        command = [binary, "-p", str(self.directory), "-c", str(conf), "-e", error_log]
        check = subprocess.run([*command, "-t"], capture_output=True, text=True, timeout=30)
        assert check.returncode == 0, check.stderr
        self.process = subprocess.Popen(
            command, stderr=subprocess.DEVNULL, preexec_fn=die_with_parent
        )
        return self

    def __exit__(self, *exc: object) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
