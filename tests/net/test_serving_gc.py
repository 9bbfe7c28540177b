"""The collector tuned for serving (``cardroom serve``): start-up's objects frozen, rarer
collections, and cycles made afterwards still freed (the trim after closes runs a full one).
In a child process: the thresholds are the whole process's."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow

CHILD = """
import gc, weakref
from server.net.server import GC_THRESHOLDS, settle_gc, trim_memory

class Node:
    pass

settle_gc()
assert gc.get_threshold() == GC_THRESHOLDS, gc.get_threshold()
assert gc.get_freeze_count() > 1000, gc.get_freeze_count()
a, b = Node(), Node()
a.other, b.other = b, a  # a cycle, as a closed connection leaves (socket, protocol, tasks)
gone = weakref.ref(a)
del a, b
trim_memory()
assert gone() is None, "the cycle survived a trim"
print("ok")
"""


def test_settled_collector_still_frees_cycles() -> None:
    done = subprocess.run(
        [sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
