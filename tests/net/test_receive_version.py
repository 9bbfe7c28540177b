"""server/net/receive.py reads websockets internals that a release may change without notice
(its module docstring names them): the websockets running here must be a release it was checked
against, and pyproject.toml's pin must keep every other release out."""

from __future__ import annotations

import tomllib
from pathlib import Path

import websockets
from packaging.requirements import Requirement

from server.net.receive import CHECKED_WEBSOCKETS, DIRECT

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def pinned() -> Requirement:
    data = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))
    (spec,) = [d for d in data["project"]["dependencies"] if d.startswith("websockets")]
    return Requirement(spec)


def test_the_websockets_running_is_a_release_receive_was_checked_against() -> None:
    running = websockets.version.version
    assert running in CHECKED_WEBSOCKETS, (
        f"websockets {running} is not a release server/net/receive.py was checked against "
        f"({', '.join(CHECKED_WEBSOCKETS)}): run tests/net/test_direct_frames.py, "
        "test_framing.py, test_frame_order.py, test_compression.py and test_bad_input.py on "
        "it, then add it to receive.CHECKED_WEBSOCKETS (and widen the pin in pyproject.toml)"
    )
    assert DIRECT  # so the frames are read by receive.py, the path those tests check


def test_the_pin_admits_the_checked_releases_and_none_before_them() -> None:
    spec = pinned().specifier
    assert all(spec.contains(v) for v in CHECKED_WEBSOCKETS), spec
    # 15.x lacks the protocol's max_message_size: receive.py crashed on its first frame
    assert not spec.contains("15.0.1") and not spec.contains("14.2")
    # the next major release is not admitted before it is checked
    assert not spec.contains("18.0")
