"""Where a benchmark server spends its time: ``py-spy`` sampling the process during the measured
window (``cardroom loadtest --profile FILE``), summarised by the file and function of each frame.

``py-spy`` is a developer's tool, not a dependency of Cardroom: ``pip install py-spy``. It samples
from outside, pausing the process for each sample (250 a second): without the pause
(``--nonblocking``) it read stacks while they changed, and the profile put a third of the time in
writing frames where ``perf`` found the kernel's whole share to be a fifth.
"""

from __future__ import annotations

import shutil
import subprocess
from collections import Counter
from pathlib import Path

#: Parts of the server's work: a frame ``function (path:line)`` is in a part when its function's
#: name contains the first text and its path the second. A sample goes to the part of its
#: innermost frame that is in one (so the parts add up: a room's whole handling runs inside the
#: read of the frame that asked for it, and only what is nowhere else counts as reading).
PARTS = {
    "writing frames (framing, socket writes)": [
        ("flush", "server/net/"),
        ("_write", "server/net/"),
        ("framed", "server/net/"),
        ("send", "websockets/"),
        ("serialize", "websockets/"),
    ],
    "building views (the rules cores' view)": [("view", "server/rules/")],
    "serialising frames with orjson (dump_state, dump_ack, shared parts)": [
        ("dump_", "protocol/"),
        ("serialised", "protocol/"),
        ("StateWriter", "protocol/"),
        ("json_bytes", "protocol/"),
    ],
    "pydantic: validating requests, building models": [("", "pydantic")],
    "legal actions and applying them (the rules cores)": [
        ("legal", "server/rules/"),
        ("apply", "server/rules/"),
    ],
    "bots choosing": [("choose", "server/bots/")],
    "checking client frames (size, rate, JSON, schema, dispatch)": [("", "server/net/server")],
    "reading frames (socket reads, frame parsing)": [
        ("", "server/net/receive"),
        ("", "websockets/"),
    ],
    "the room: core, actor, outputs, store, metrics": [
        ("", "server/rooms/"),
        ("", "server/store/"),
        ("", "server/metrics"),
        ("", "prometheus_client"),
    ],
    "event loop (uvloop's polling, reads and callbacks)": [("run", "asyncio/runners")],
}


def start(pid: int, seconds: float, path: Path) -> subprocess.Popen[bytes] | None:
    """Sample process ``pid`` for ``seconds`` into ``path`` (collapsed stacks); None if there
    is no ``py-spy``."""
    spy = shutil.which("py-spy")
    if spy is None:
        return None
    command = [spy, "record", "--pid", str(pid), "--duration", str(max(1, round(seconds)))]
    command += ["--rate", "250", "--format", "raw", "--output", str(path)]
    return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def summarize(path: Path, top: int = 20) -> list[str]:
    """The parts of :data:`PARTS` and the functions with the most samples of their own."""
    stacks: Counter[str] = Counter()
    for line in path.read_text().splitlines():
        stack, _, samples = line.rpartition(" ")
        if stack and samples.isdigit():
            stacks[stack] += int(samples)
    total = sum(stacks.values())
    if not total:
        return ["profile: no samples"]
    parts: Counter[str] = Counter()
    own: Counter[str] = Counter()
    for stack, count in stacks.items():
        frames = stack.split(";")
        parts[part_of(frames)] += count
        own[_short(frames[-1])] += count
    lines = [f"profile of the server in the window ({total:,} samples, by innermost part):"]
    lines += [f"  {100 * c / total:5.1f} %  {name}" for name, c in parts.most_common()]
    lines.append(f"  functions with the most samples of their own (top {top}):")
    lines += [f"  {100 * c / total:5.1f} %  {name}" for name, c in own.most_common(top)]
    return lines


def part_of(frames: list[str]) -> str:
    """The part of :data:`PARTS` a sample belongs to: that of its innermost frame in one."""
    for frame in reversed(frames):
        func, path = _split(frame)
        for name, needles in PARTS.items():
            if any(fn in func and fp in path for fn, fp in needles):
                return name
    return "other (Python start-up, the rest)"


def _split(frame: str) -> tuple[str, str]:
    """``function (path:line)`` as its function's name and its path."""
    name, _, where = frame.partition(" (")
    return name, where.rstrip(")").rsplit(":", 1)[0]


def _short(frame: str) -> str:
    """``function (path/to/file.py:12)`` shortened to ``function (file.py)``."""
    name, where = _split(frame)
    parts = where.split("/")
    return f"{name} ({'/'.join(parts[-2:])})"
