"""The import direction: protocol → rules → bots → rooms → store/metrics → runtime → net, and
nothing the other way; no import cycle in ``server/``; no module reaching another's privates.

Each layer may import only the layers before it (and itself). The room core (every module of
``server/rooms/``) stays sans-I/O: it imports no asyncio, sockets, clock, network library,
store or metrics, so its tests need no event loop; the asyncio runtime around it (actors, the
manager, finished games, the cluster) is ``server/runtime/``. The operator tools
(``server/tools/``) are the top layer: they may import the service, and nothing of the service
imports them.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# The top layer: may import every layer; only the ``cardroom`` command (server.cli) imports it.
TOOLS = "server.tools"
ABOVE_TOOLS = ("server.cli",)


def in_tools(name: str) -> bool:
    return name == TOOLS or name.startswith(TOOLS + ".")


# Layer order; a module may import its own layer and any layer to its left.
LAYERS: list[tuple[str, ...]] = [
    ("protocol",),
    ("server.rules",),
    ("server.bots",),
    ("server.rooms",),  # the pure room core
    ("server.store", "server.metrics"),  # what the runtime keeps and counts
    ("server.runtime",),  # the asyncio runtime: actors, manager, finished games, cluster
    ("server.net",),
    (TOOLS,),  # operator tools: bench, fuzz, sim, arena, remote bot, verify
]

# Every room module stays sans-I/O, and this is what it may not import.
SANS_IO = sorted(
    f"server.rooms.{p.stem}"
    for p in (ROOT / "server" / "rooms").glob("*.py")
    if p.stem != "__init__"
)
IO_MODULES = ("asyncio", "socket", "time", "websockets", "selectors", "ssl", "threading",
              "concurrent", "subprocess", "redis", "uvloop")  # fmt: skip


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@cache
def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


def imports(path: Path) -> set[str]:
    """Absolute module names imported anywhere in the file (TYPE_CHECKING blocks included)."""
    found: set[str] = set()
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def layer_of(name: str) -> int | None:
    for i, prefixes in enumerate(LAYERS):
        if any(name == p or name.startswith(p + ".") for p in prefixes):
            return i
    return None


def files() -> list[Path]:
    return sorted(p for d in ("protocol", "server", "clients") for p in (ROOT / d).rglob("*.py"))


def upward_imports(me: str, names: set[str]) -> Iterator[str]:
    """Each of the names module ``me`` imports that points up the layers (or from a client
    into server/)."""
    mine = layer_of(me)
    for name in sorted(names):
        if me.startswith(("clients", "protocol")) and name.startswith("server"):
            yield f"{me} imports {name}"
        theirs = layer_of(name)
        if mine is not None and theirs is not None and theirs > mine:
            yield f"{me} ({LAYERS[mine]}) imports {name} ({LAYERS[theirs]})"


def test_imports_point_down_the_layers() -> None:
    found = [o for path in files() for o in upward_imports(module_name(path), imports(path))]
    assert not found, "imports against the layers:\n" + "\n".join(found)


def test_the_layer_scan_sees_an_upward_import() -> None:
    assert list(upward_imports("server.rules.x", {"server.net.server", "protocol.cards"})) == [
        "server.rules.x (('server.rules',)) imports server.net.server (('server.net',))"
    ]
    assert list(upward_imports("clients.x", {"server.rules"})) == ["clients.x imports server.rules"]


def test_the_room_core_does_no_io() -> None:
    found = []
    for name in SANS_IO:
        path = ROOT / (name.replace(".", "/") + ".py")
        for imported in sorted(imports(path)):
            above = ("server.net", "server.store", "server.metrics", "server.runtime")
            if imported.split(".")[0] in IO_MODULES or imported.startswith(above):
                found.append(f"{name} imports {imported}")
    assert not found, "the room core does I/O:\n" + "\n".join(found)


def test_the_scan_sees_every_layer() -> None:
    seen = {layer_of(module_name(p)) for p in files()}
    assert set(range(len(LAYERS))) <= seen
    assert "server.rooms.core" in SANS_IO and len(SANS_IO) > 8


# --- no import cycle ---------------------------------------------------------------------


@cache
def server_modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted((ROOT / "server").rglob("*.py"))}


def _resolve(me: str, node: ast.ImportFrom, is_package: bool) -> str:
    """The absolute module a ``from ... import`` names (relative ones resolved from ``me``)."""
    if node.level == 0:
        return node.module or ""
    base = me.split(".")
    base = base[: len(base) - node.level + (1 if is_package else 0)]
    return ".".join(base + ([node.module] if node.module else []))


def edges(me: str) -> set[str]:
    """The modules of ``server/`` that module ``me`` imports (see :func:`edges_in`)."""
    known = server_modules()
    return edges_in(_tree(known[me]), me, set(known), known[me].name == "__init__.py")


def edges_in(tree: ast.Module, me: str, known: set[str], is_package: bool = False) -> set[str]:
    """The ``known`` modules that module ``me`` imports anywhere in it (TYPE_CHECKING blocks
    and function bodies included): ``from a import b`` is module ``a.b`` if there is one,
    else ``a``; a name that is no known module is no edge."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            module = _resolve(me, node, is_package)
            for alias in node.names:
                found.add(f"{module}.{alias.name}" if f"{module}.{alias.name}" in known else module)
    return {name for name in found if name in known and name != me}


def test_edges_include_type_checking_relative_and_late_imports() -> None:
    source = (
        "from typing import TYPE_CHECKING\n"
        "from server.p import q, helper\n"
        "from . import sibling\n"
        "if TYPE_CHECKING:\n"
        "    from server.p.r import Thing\n"
        "def f():\n"
        "    import server.late\n"
    )
    known = {"server.p", "server.p.q", "server.p.r", "server.p.sibling", "server.late"}
    found = edges_in(ast.parse(source), "server.p.me", known)
    assert found == {"server.p", "server.p.q", "server.p.r", "server.p.sibling", "server.late"}


def cycles(graph: dict[str, set[str]]) -> dict[frozenset[str], list[str]]:
    """Every import cycle of ``graph``: each group of modules that import each other (a
    strongly connected component, Tarjan's algorithm) with one cycle through its first
    module, as the modules along it and that one again at the end."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[set[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                connect(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = set()
            while (member := stack.pop()) != node:
                group.add(member)
            if group or node in graph.get(node, ()):
                groups.append(group | {node})

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return {frozenset(g): _path_around(graph, g) for g in sorted(groups, key=min)}


def _path_around(graph: dict[str, set[str]], group: set[str]) -> list[str]:
    """A shortest cycle from the group's first module back to itself, inside the group."""
    first = min(group)
    paths = {first: [first]}
    frontier = [first]
    while frontier:
        following = []
        for node in frontier:
            for nxt in sorted(graph.get(node, set()) & group):
                if nxt == first:
                    return [*paths[node], first]
                if nxt not in paths:
                    paths[nxt] = [*paths[node], nxt]
                    following.append(nxt)
        frontier = following
    raise AssertionError(f"no cycle in {group}")


def test_cycles_names_each_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c", "a"}, "c": {"a"}, "d": {"a", "d"}, "e": {"a"}}
    assert cycles(graph) == {
        frozenset("abc"): ["a", "b", "a"],  # the shortest way round from its first module
        frozenset("d"): ["d", "d"],
    }
    assert cycles({"a": {"b"}, "b": set(), "c": {"a", "b"}}) == {}


def test_the_import_graph_of_server_has_no_cycle() -> None:
    graph = {name: edges(name) for name in server_modules()}
    assert sum(map(len, graph.values())) > len(graph)  # (it sees the imports)
    found = [
        f"{' -> '.join(cycle)} (of the modules {', '.join(sorted(group))})"
        for group, cycle in cycles(graph).items()
    ]
    assert not found, f"import cycles: {found}"


# --- no reaching into another module's private members -----------------------------------

# ``x._name`` where ``x`` is neither ``self`` nor ``cls`` and no ``_name`` is defined in the
# module itself.


def _defined(tree: ast.Module) -> set[str]:
    """Names a module defines itself: functions, classes, assigned names and attributes,
    parameters, import aliases and ``__slots__`` entries."""
    names: set[str] = set()
    for node in ast.walk(tree):
        match node:
            case ast.FunctionDef() | ast.AsyncFunctionDef() | ast.ClassDef():
                names.add(node.name)
            case ast.Name(ctx=ast.Store()) | ast.Name(ctx=ast.Del()):
                names.add(node.id)
            case ast.Attribute(ctx=ast.Store()) | ast.Attribute(ctx=ast.Del()):
                names.add(node.attr)
            case ast.arg():
                names.add(node.arg)
            case ast.alias():
                names.add((node.asname or node.name).split(".")[0])
            case ast.Assign(targets=[ast.Name(id="__slots__")], value=value):
                names.update(
                    c.value
                    for c in ast.walk(value)
                    if isinstance(c, ast.Constant) and isinstance(c.value, str)
                )
    return names


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def foreign_privates(path: Path) -> Iterator[tuple[str, str]]:
    """Each place the module reads a private member that another module defines: an
    attribute ``x._name`` (``x`` not ``self``/``cls``) or ``from m import _name``."""
    tree = _tree(path)
    mine = _defined(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr) and node.attr not in mine:
            if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
                continue
            yield node.attr, f"line {node.lineno}: {ast.unparse(node)}"
        elif isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if _private(alias.name):
                    yield alias.name, f"line {node.lineno}: from {node.module} import {alias.name}"


def service_files() -> list[Path]:
    """The service's modules: everything under ``protocol/`` and ``server/`` but the
    operator tools."""
    return [
        p
        for d in ("protocol", "server")
        for p in sorted((ROOT / d).rglob("*.py"))
        if not in_tools(module_name(p))
    ]


def test_the_private_member_scan_sees_a_reach() -> None:
    source = "class A:\n    def f(self, o):\n        return o._x + self._y + o.__len__()\n"
    tree = ast.parse(source)
    found = [
        ast.unparse(n)
        for n in ast.walk(tree)
        if isinstance(n, ast.Attribute) and _private(n.attr) and n.attr not in _defined(tree)
    ]
    assert found == ["o._x", "self._y"]  # self is skipped by foreign_privates itself


def test_no_module_reaches_another_modules_private_members() -> None:
    reached = [
        f"{module_name(path)} {where}"
        for path in service_files()
        for _, where in foreign_privates(path)
    ]
    assert not reached, "private members reached from another module:\n" + "\n".join(reached)


def test_nothing_of_the_service_imports_the_tools() -> None:
    found = [
        f"{module_name(path)} imports {name} ({TOOLS} is the top layer)"
        for path in files()
        if not (in_tools(module_name(path)) or module_name(path) in ABOVE_TOOLS)
        for name in sorted(imports(path))
        if in_tools(name)
    ]
    assert not found, "\n".join(found)


def test_the_scan_sees_the_tools_above_the_service() -> None:
    tools = [p for p in files() if in_tools(module_name(p))]
    assert {module_name(p) for p in tools} >= {f"{TOOLS}.bench.loadtest", f"{TOOLS}.arena"}
    service = {n for p in tools for n in imports(p) if layer_of(n) is not None}
    assert any(layer_of(n) == layer_of("server.net") for n in service)


def suite_files() -> list[Path]:
    return sorted((ROOT / "tests").rglob("*.py"))


def test_no_test_module_imports_another() -> None:
    # shared helpers live in tests/support/: a test module imported by another runs its tests
    # twice in one process's eyes and ties the two modules' edits together
    found = [
        f"{module_name(path)} imports {name} (a test module: move it to tests/support/)"
        for path in suite_files()
        for name in sorted(imports(path))
        if name.split(".")[0] == "tests" and any(p.startswith("test_") for p in name.split(".")[1:])
    ]
    assert not found, "\n".join(found)


# Folders of tests/ that test no one package: shared helpers, and the docs
NOT_CODE = {"support", "docs"}


def test_the_tests_mirror_the_code() -> None:
    # each folder of tests/ is named for what it tests: a package of server/ (tools' own
    # subfolders under tests/tools), protocol/, clients/ (web/ its browser client), or the
    # deployment files (deploy/)
    code = {p.name for p in (ROOT / "server").iterdir() if (p / "__init__.py").exists()}
    code |= {"protocol", "clients", "web", "deploy"}
    folders = {p.name for p in (ROOT / "tests").iterdir() if p.is_dir() and p.name[0] != "_"}
    assert folders - NOT_CODE <= code, f"tests/ folders that mirror no code: {folders - code}"
    tools = {p.name for p in (ROOT / "server" / "tools").iterdir() if p.is_dir()}
    below = {p.name for p in (ROOT / "tests" / "tools").iterdir() if (p / "__init__.py").exists()}
    assert below <= tools, f"tests/tools/ folders that mirror no tool: {below - tools}"
