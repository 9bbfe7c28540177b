"""The import direction: protocol → rules → bots → rooms → net, and nothing the other way.

Each layer may import only the layers before it (and itself). The room core stays sans-I/O: it
imports no asyncio, sockets, clock or network library, so its tests need no event loop.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# Layer order; a module may import its own layer and any layer to its left.
LAYERS = ["protocol", "server.rules", "server.bots", "server.rooms", "server.net"]
# Modules the room layer shares with the rest (metrics, stores) sit between rooms and net.
BESIDE_ROOMS = ("server.metrics", "server.store")

# Room modules that must stay sans-I/O, and what they may not import.
SANS_IO = ["server.rooms.core", "server.rooms.host", "server.rooms.inputs",
           "server.rooms.outputs", "server.rooms.seats", "server.rooms.names",
           "server.rooms.status", "server.rooms.matches", "server.rooms.state",
           "server.rooms.clock", "server.rooms.frames", "server.rooms.record",
           "server.rooms.rollback", "server.rooms.play",
           "server.rooms.requests"]  # fmt: skip
IO_MODULES = ("asyncio", "socket", "time", "websockets", "selectors", "ssl", "threading",
              "concurrent", "subprocess", "redis", "uvloop")  # fmt: skip


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports(path: Path) -> set[str]:
    """Absolute module names imported anywhere in the file (TYPE_CHECKING blocks included)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def layer_of(name: str) -> int | None:
    for i, prefix in enumerate(LAYERS):
        if name == prefix or name.startswith(prefix + "."):
            return i
    if name.startswith(BESIDE_ROOMS):
        return LAYERS.index("server.rooms")
    return None


def files() -> list[Path]:
    return sorted(p for d in ("protocol", "server", "clients") for p in (ROOT / d).rglob("*.py"))


@pytest.mark.parametrize("path", files(), ids=lambda p: module_name(p))
def test_imports_point_down_the_layers(path: Path) -> None:
    me = module_name(path)
    mine = layer_of(me)
    for name in imports(path):
        if me.startswith("clients") or me.startswith("protocol"):
            assert not name.startswith("server"), f"{me} imports {name}"
        theirs = layer_of(name)
        if mine is None or theirs is None:
            continue
        assert theirs <= mine, f"{me} ({LAYERS[mine]}) imports {name} ({LAYERS[theirs]})"


@pytest.mark.parametrize("name", SANS_IO)
def test_the_room_core_does_no_io(name: str) -> None:
    path = ROOT / (name.replace(".", "/") + ".py")
    for imported in imports(path):
        top = imported.split(".")[0]
        assert top not in IO_MODULES, f"{name} imports {imported}"
        assert not imported.startswith(("server.net", "server.store", "server.metrics")), (
            f"{name} imports {imported}"
        )


def test_the_scan_sees_every_layer() -> None:
    seen = {layer_of(module_name(p)) for p in files()}
    assert set(range(len(LAYERS))) <= seen
