"""A real Cardroom server on a loopback port for the client tests that need one (bots move at
once, the rate limit is generous: scripted clients act much faster than people)."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator

import pytest

from server.net.server import CardroomServer
from tests.support.server import make_config


@pytest.fixture
async def live() -> AsyncIterator[CardroomServer]:
    async with CardroomServer(make_config()) as srv:
        yield srv


async def run_cardroom(*args: str) -> asyncio.subprocess.Process:
    """Start ``cardroom ARGS`` (the installed command's entry point) as a separate process."""
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "server.cli",
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )


async def finish(proc: asyncio.subprocess.Process, timeout: float = 60.0) -> tuple[int, str]:
    """Wait for a process; its exit code and its output (stdout then stderr)."""
    try:
        out, err = await asyncio.wait_for(proc.communicate(), timeout)
    except TimeoutError:
        proc.kill()
        await proc.wait()
        raise
    return proc.returncode or 0, out.decode() + err.decode()
