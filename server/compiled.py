"""The modules the shipped build compiles with mypyc: the one list that ``setup.py`` builds
from and that the tests check. The rules core whole, and the bots' search where it spends its
time (the Sheepshead playouts, the policy and conventions they play by, the sampling and the
bidding's playouts).

``pip install .`` (and ``-e .``) compiles these in place, beside their ``.py`` sources;
``CARDROOM_PURE=1`` at install time builds none (the pure fallback). It imports nothing of the
package, so that ``setup.py`` can read it before the package is installed.
"""

from __future__ import annotations

import importlib
import os
import sys
from types import ModuleType

#: Packages compiled whole (every module in them, ``__init__`` included).
PACKAGES: tuple[str, ...] = ("server.rules",)
#: Single modules compiled, of packages that are not (their search drivers stay Python: tests
#: replace their functions, which compiled callers in the same module would not see).
MODULES: tuple[str, ...] = (
    "server.bots.sampling",
    "server.bots.sheepshead_bidding",
    "server.bots.sheepshead_conventions",
    "server.bots.sheepshead_policy",
    "server.bots.sheepshead_rollout",
)
#: mypyc's name for the build: its code is in one shared library, ``GROUP + "__mypyc"`` (each
#: module's own extension only loads its part from there).
GROUP = "cardroom_rules"


def sources(root: str) -> list[str]:
    """The compiled modules' source files under the project directory ``root``, relative to it
    (what ``setup.py`` hands mypyc)."""
    out: list[str] = []
    for package in PACKAGES:
        folder = os.path.join(root, *package.split("."))
        out += sorted(
            os.path.relpath(os.path.join(folder, name), root)
            for name in os.listdir(folder)
            if name.endswith(".py")
        )
    return out + [os.path.join(*name.split(".")) + ".py" for name in MODULES]


def modules() -> list[str]:
    """The dotted names of the modules the build compiles."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    names = [path[: -len(".py")].replace(os.sep, ".") for path in sources(root)]
    return [name.removesuffix(".__init__") for name in names]


def is_compiled(module: ModuleType) -> bool:
    """Whether ``module`` was imported from mypyc's extension module, not from its ``.py``."""
    return not (module.__file__ or "").endswith(".py")


def running_compiled() -> dict[str, bool]:
    """Each compiled module's name and whether it runs compiled here (imports them)."""
    return {name: is_compiled(importlib.import_module(name)) for name in modules()}


if __name__ == "__main__":  # python -m server.compiled: which modules run compiled
    for name, compiled in running_compiled().items():
        print(f"{name}: {'compiled' if compiled else 'pure'}")
    sys.exit(0)
