"""The examples in ``docs/protocol.md`` are real messages, and the document names every type."""

from __future__ import annotations

import contextlib
import json
import re
from pathlib import Path
from typing import Any, get_args

import pytest
from pydantic import ValidationError

from protocol import messages as m

DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"
BLOCKS = re.findall(r"```json\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.DOTALL)


def _messages() -> list[dict[str, Any]]:
    found = []
    for block in BLOCKS:
        data = json.loads(block)
        if isinstance(data, dict) and "type" in data:
            found.append(data)
    return found


def test_every_json_block_is_json() -> None:
    assert len(BLOCKS) > 20
    for block in BLOCKS:
        json.loads(block)


@pytest.mark.parametrize("example", _messages(), ids=lambda d: str(d["type"]))
def test_examples_parse_as_messages(example: dict[str, Any]) -> None:
    text = json.dumps(example)
    parsed: list[Any] = []
    for parse in (m.parse_client, m.parse_server):
        with contextlib.suppress(ValidationError):
            parsed.append(parse(text))
    assert parsed, f"not a valid message: {text}"


def test_every_message_type_has_an_example() -> None:
    types = {d["type"] for d in _messages()}
    tags = {
        cls.model_fields["type"].default
        for union in (m.ClientMessage, m.ServerMessage)
        for cls in get_args(get_args(union)[0])  # Annotated[A | B | ..., Field(...)]
    }
    assert tags <= types, tags - types
