"""``cardroom bench queue`` runs end to end on a small crowd: everyone seated once, no seat
given twice, and the figures printed."""

from __future__ import annotations

import re

import pytest

from server.tools.bench import queue

pytestmark = pytest.mark.slow


def test_a_small_crowd_is_seated_once_each(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["--people", "40", "--seconds", "2", "--fill-wait", "2", "--topologies", "one", "two"]
    assert queue.main(args) == 0
    out = capsys.readouterr().out
    assert "per-address limits raised for the run" in out
    for name in ("one", "two"):
        line = next(x for x in out.splitlines() if x.startswith(name + " "))
        assert "seated 40/40" in line, line
        assert "seated twice 0, seats given twice 0" in line, line
        assert re.search(r"p50 \d+ ms p99 \d+ ms", line), line
