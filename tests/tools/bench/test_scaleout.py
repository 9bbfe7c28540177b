"""The scale-out bench (server/tools/bench/scaleout.py) counts what it says, on a tiny run:
through nginx by room nothing is relayed and every action counted was acknowledged; through
``least_conn`` with clients at ``/`` the relayed frames show up in the same figures."""

from __future__ import annotations

from pathlib import Path

import pytest

from server.tools.bench.scaleout import measure, parser

pytestmark = pytest.mark.slow

ARGS = ["--rooms", "6", "--humans", "3", "--warmup", "0.5", "--seconds", "2", "--creates", "2"]


async def test_by_room_relays_nothing_and_least_conn_does(tmp_path: Path) -> None:
    args = parser().parse_args(ARGS)
    after = await measure("by_room", args, tmp_path / "after")
    assert after.actions > 0 and after.cpu_ms > 0 and after.create_p50_ms > 0
    assert after.relayed == 0.0 and after.forwarded == 0
    before = await measure("least_conn", args, tmp_path / "before")
    # 6 rooms of 3 people alternating over two processes: some are split, so some relay
    assert before.actions > 0 and before.relayed > 0 and before.forwarded > 0
