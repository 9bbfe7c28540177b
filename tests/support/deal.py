"""The worked example of docs/protocol.md's "Fair deals" section."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"


def doc_example() -> dict[str, Any]:
    """The worked example of docs/protocol.md's "Fair deals" section."""
    section = DOC.read_text(encoding="utf-8").split("## Fair deals", 1)[1].split("\n## ", 1)[0]
    (block,) = re.findall(r"```json\n(.*?)```", section, flags=re.DOTALL)
    data: dict[str, Any] = json.loads(block)
    return data
