"""The lock (``requirements/``, written by ``make lock``) agrees with pyproject.toml: every
requirement of the project, its extras and its build is pinned, with hashes, at a version its
range allows; and the runtime lock is the same resolution as the whole one."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
PIN = re.compile(r"^([A-Za-z0-9._-]+)==([^\s;\\]+)")


def pins(name: str) -> dict[str, str]:
    """Package -> pinned version, from a pip-compile file; checks each pin carries a hash."""
    text = (ROOT / "requirements" / name).read_text(encoding="utf-8")
    found: dict[str, str] = {}
    for block in re.split(r"\n(?=\S)", text):
        match = PIN.match(block)
        if match:
            assert "--hash=sha256:" in block, f"{name}: {match[1]} has no hash"
            found[canonicalize_name(match[1])] = match[2]
    return found


def project() -> dict[str, object]:
    with (ROOT / "pyproject.toml").open("rb") as f:
        return tomllib.load(f)


def requirements(*, extras: bool) -> list[Requirement]:
    data = project()
    meta = data["project"]
    assert isinstance(meta, dict)
    build = data["build-system"]
    assert isinstance(build, dict)
    found = [Requirement(r) for r in (*meta["dependencies"], *build["requires"])]
    if extras:
        for group in meta["optional-dependencies"].values():
            found += [Requirement(r) for r in group]
    return found


@pytest.mark.parametrize(("lock", "extras"), [("dev.txt", True), ("run.txt", False)])
def test_every_requirement_is_pinned_inside_its_range(lock: str, extras: bool) -> None:
    locked = pins(lock)
    wrong = []
    for req in requirements(extras=extras):
        version = locked.get(canonicalize_name(req.name))
        if version is None or not req.specifier.contains(version, prereleases=True):
            wrong.append(f"{req} -> {version}")
    assert not wrong, f"requirements/{lock} is stale, run `make lock`: {wrong}"


def test_the_runtime_lock_is_the_whole_locks_resolution() -> None:
    dev, run = pins("dev.txt"), pins("run.txt")
    assert set(run) <= set(dev)
    assert {name: dev[name] for name in run} == run
    # the runtime lock carries no test tool: the Docker image installs it whole
    assert not {"pytest", "playwright", "ruff"} & set(run)
