"""``cardroom bench room`` times what it says: its recorded requests replay as a whole match of
accepted actions (no refusal among them), through the core and through the actor."""

from __future__ import annotations

import json

import pytest

from server.rooms.inputs import Request
from server.tools.bench import room


def test_recorded_match_replays_as_accepted_actions_only() -> None:
    frames, acts = room.record(seed=3)
    core = room._ready_core(3)
    start = core.version
    for conn, msg in room._messages(frames):
        for out in core.handle(Request(conn, msg), 0.0):
            text = getattr(out, "text", None)
            assert text is None or json.loads(text)["type"] != "error", text
    assert core.match is not None and core.match.is_over()
    # every request moved the game on: the acts, and the host's next hand after each hand
    assert core.version - start == len(frames) and acts == len(frames) - 9


def test_bench_room_prints_each_part(capsys: pytest.CaptureFixture[str]) -> None:
    assert room.main(["--matches", "1", "--repeat", "1"]) == 0
    printed = capsys.readouterr().out
    for part in ("request", "core", "actor"):
        assert f"  {part} " in printed
