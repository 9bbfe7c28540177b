"""The README's example of the rules core runs, every line of it, with the outputs it shows."""

from __future__ import annotations

import doctest
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def test_the_readme_example_runs_as_shown() -> None:
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    result = doctest.testfile(str(README), module_relative=False, optionflags=flags)
    assert result.failed == 0
    # the example is there and was run (an example skipped or a ``` fence read as output fails)
    assert result.attempted >= 11
    text = README.read_text(encoding="utf-8")
    assert "+SKIP" not in text
