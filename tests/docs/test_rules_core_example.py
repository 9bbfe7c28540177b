"""The rules core's example (docs/rules-core.md) runs, every line of it, with the outputs it
shows."""

from __future__ import annotations

import doctest
from pathlib import Path

PAGE = Path(__file__).resolve().parents[2] / "docs" / "rules-core.md"


def test_the_rules_core_example_runs_as_shown() -> None:
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    result = doctest.testfile(str(PAGE), module_relative=False, optionflags=flags)
    assert result.failed == 0
    # the example is there and was run (an example skipped or a ``` fence read as output fails)
    assert result.attempted >= 11
    text = PAGE.read_text(encoding="utf-8")
    assert "+SKIP" not in text
