"""``cardroom bench redis`` places the redis-server it starts (``--redis-cpu``): a started
server runs on the one CPU it is given (taskset), and on whichever the kernel picks without."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from server.tools.bench.redis_server import RedisServer

pytestmark = pytest.mark.slow


def test_a_redis_server_given_a_cpu_runs_on_it_alone(tmp_path: Path) -> None:
    (tmp_path / "one").mkdir()
    (tmp_path / "any").mkdir()
    everywhere = os.sched_getaffinity(0)
    cpu = max(everywhere)  # one this process may use: the last
    with RedisServer(tmp_path / "one", fsync="everysec", cpu=cpu) as pinned:
        assert pinned.process is not None
        assert os.sched_getaffinity(pinned.process.pid) == {cpu}
    with RedisServer(tmp_path / "any", fsync="everysec") as free:
        assert free.process is not None
        assert os.sched_getaffinity(free.process.pid) == everywhere
