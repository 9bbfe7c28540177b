"""Builds the rules core with mypyc (the modules in server/compiled.py), in place beside the
sources. ``CARDROOM_PURE=1 pip install .`` builds the pure package instead (the fallback; no C
compiler needed). Everything else about the package is in pyproject.toml."""

from __future__ import annotations

import os
import runpy
import sys

from setuptools import setup

HERE = os.path.dirname(os.path.abspath(__file__))

# pip asks for the metadata first (egg_info, dist_info) and builds no extension from it, yet
# mypycify type-checks and writes the C on every call: skip it there (about 12 s of CPU a setup)
if os.environ.get("CARDROOM_PURE") == "1" or sys.argv[1:2] in (["egg_info"], ["dist_info"]):
    setup()
else:
    from mypyc.build import mypycify

    compiled = runpy.run_path(os.path.join(HERE, "server", "compiled.py"), run_name="build")
    setup(
        ext_modules=mypycify(
            # mypyc.ini, not pyproject.toml's [tool.mypy]: its `files` and overrides are the
            # checker's, and with them mypyc type-checks and writes no C
            ["--config-file", os.path.join(HERE, "mypyc.ini"), *compiled["sources"](HERE)],
            group_name=compiled["GROUP"],
        )
    )
