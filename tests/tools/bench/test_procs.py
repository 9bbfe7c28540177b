"""The one helper for server processes (``server/tools/bench/procs.py``), used by the load test,
the benches, the fuzzer and the tests: a server started, waited for, and stopped; a server that
exits at once is reported at once, not after the whole wait."""

from __future__ import annotations

import asyncio
import tempfile
import time
import urllib.request

import pytest

from server.tools.bench import procs

pytestmark = pytest.mark.slow


def test_a_started_server_answers_and_stops_and_stopping_twice_is_safe() -> None:
    port = procs.free_port()
    with tempfile.TemporaryFile() as log:
        proc = procs.start(procs.serve_command(port), stderr=log)
        try:
            procs.wait_http(port, proc=proc)
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as r:
                assert r.status == 200
        finally:
            procs.stop(proc)
        assert proc.returncode == 0  # SIGTERM: a graceful exit
        procs.stop(proc)


def test_a_server_that_exits_at_once_is_reported_before_the_wait_ends() -> None:
    port = procs.free_port()
    with tempfile.TemporaryFile() as log:
        proc = procs.start(procs.serve_command(port, "--no-such-flag"), stderr=log)
        started = time.monotonic()
        with pytest.raises(ChildProcessError, match="exited at once"):
            procs.wait_http(port, timeout=60, proc=proc)
        assert time.monotonic() - started < 30
        procs.stop(proc)
        log.seek(0)
        assert b"--no-such-flag" in log.read()


async def test_serve_process_yields_a_serving_process_and_kills_it_at_the_end() -> None:
    port = procs.free_port()
    async with procs.serve_process(port) as proc:
        _reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.close()
        await writer.wait_closed()
        assert proc.returncode is None
    assert proc.returncode is not None


async def test_serve_process_that_does_not_start_raises() -> None:
    with pytest.raises(RuntimeError, match="did not start"):
        async with procs.serve_process(procs.free_port(), "--no-such-flag"):
            pass
