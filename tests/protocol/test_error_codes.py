"""One list of error codes (``protocol.errors``): the docs document exactly these, the schema
lists them, and every code the server or the rules cores can refuse with is among them."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from protocol.errors import ERROR_CODES, ErrorCode
from protocol.schema import build_schema

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")

# Callables whose first argument is a refusal code, wherever they are defined.
REFUSERS = {"IllegalAction", "Refusal", "error_frame", "_err", "no", "refuse", "_refuse"}


def documented_codes() -> set[str]:
    """Every code in the code column of the tables under "## Error codes" (``| `code` |``, or
    ``| game | `code` |`` in the rules table)."""
    section = DOC.split("## Error codes", 1)[1].split("\n## ", 1)[0]
    codes: set[str] = set()
    for line in section.splitlines():
        found = re.match(r"^\|(?: *\w+ *\|)? *`([a-z_]+)` *\|", line)
        if found:
            codes.add(found.group(1))
    return codes


def emitted_codes() -> dict[str, str]:
    """Code literals passed to a refusing call anywhere under server/, and ``ErrorCode.X``
    members used there; value -> where."""
    found: dict[str, str] = {}
    for path in sorted((ROOT / "server").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and node.args:
                func = node.func
                name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
                first = node.args[0]
                refuser = name in REFUSERS or "refus" in name.lower()
                if refuser and isinstance(first, ast.Constant) and isinstance(first.value, str):
                    found[first.value] = f"{path.relative_to(ROOT)}:{node.lineno}"
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id == "ErrorCode"
            ):
                found[ErrorCode[node.attr].value] = f"{path.relative_to(ROOT)}:{node.lineno}"
    return found


def test_the_docs_document_exactly_the_shared_list() -> None:
    documented = documented_codes()
    assert not documented - set(ERROR_CODES), "documented, not in protocol/errors.py"
    assert not set(ERROR_CODES) - documented, "in protocol/errors.py, not documented"


@pytest.mark.slow
def test_every_code_the_server_can_send_is_in_the_list() -> None:
    emitted = emitted_codes()
    assert len(emitted) > 40  # the scan sees the rules cores and the room layer
    unknown = {code: where for code, where in emitted.items() if code not in ERROR_CODES}
    assert not unknown, unknown


def test_the_schema_lists_the_codes() -> None:
    assert build_schema()["error_codes"] == list(ERROR_CODES)
