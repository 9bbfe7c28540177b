"""The committed ``protocol/schema.json`` matches the models, and the CLI that keeps it so."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from protocol import schema


def test_committed_schema_matches_the_models() -> None:
    committed = schema.SCHEMA_PATH.read_text(encoding="utf-8")
    assert committed == schema.render(schema.build_schema()), (
        "protocol/schema.json is stale: run `make schema` (python -m protocol.schema)"
    )


def test_schema_names_every_message_type() -> None:
    data = json.loads(schema.SCHEMA_PATH.read_text(encoding="utf-8"))
    assert sorted(data["client"]["discriminator"]["mapping"]) == sorted(
        [
            "hello",
            "create",
            "join",
            "watch",
            "resume",
            "act",
            "host",
            "chat",
            "react",
            "leave",
            "hint",
            "ping",
            "leaderboard",
            "identify",
            "contribute",
            "move_code",
            "move_claim",
            "queue",
            "queue_cancel",
            "event_create",
            "event_join",
            "event_watch",
            "event_leave",
            "event_host",
        ]
    )
    assert sorted(data["server"]["discriminator"]["mapping"]) == sorted(
        [
            "welcome",
            "error",
            "joined",
            "ack",
            "room",
            "state",
            "log",
            "chat",
            "reaction",
            "pong",
            "closing",
            "standings",
            "hint",
            "identified",
            "moved",
            "move_offer",
            "identity",
            "queued",
            "seated",
            "event",
        ]
    )


def test_rendering_is_stable() -> None:
    text = schema.render(schema.build_schema())
    assert text.endswith("}\n") and not text.endswith("\n\n")
    assert schema.render(json.loads(text)) == text  # sorted keys, fixed indent


def test_check_and_write(tmp_path: Path) -> None:
    path = tmp_path / "schema.json"
    assert not schema.check(path)  # missing
    assert schema.main(["--check", "--path", str(path)]) == 1
    assert schema.write(path) is True
    assert schema.check(path)
    assert schema.main(["--check", "--path", str(path)]) == 0
    assert schema.write(path) is False  # unchanged
    path.write_text(path.read_text(encoding="utf-8").replace('"hello"', '"howdy"'))
    assert not schema.check(path)
    assert schema.main(["--check", "--path", str(path)]) == 1


@pytest.mark.slow
def test_module_entry_point_checks_the_committed_file() -> None:
    root = schema.SCHEMA_PATH.parent.parent
    result = subprocess.run(
        [sys.executable, "-m", "protocol.schema", "--check"],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
