"""The fuzzer's bookkeeping against a real server: each frame is matched to its answer, or to
the close that ended its connection; the raw socket can pipeline and misbehave on purpose."""

from __future__ import annotations

import json

from server.net.server import CardroomServer
from server.tools.fuzz.probe import Session, Tally, expected_ref


def test_expected_ref_follows_the_protocol() -> None:
    assert expected_ref('{"type": "ping", "id": 5}') == 5
    assert expected_ref('{"type": "ping", "id": "a"}') == "a"
    assert expected_ref('{"type": "ping", "id": true}') is None
    assert expected_ref('{"type": "ping", "id": ""}') is None
    assert expected_ref('{"type": "ping", "id": "' + "x" * 65 + '"}') is None
    assert expected_ref("[1]") is None
    assert expected_ref(b"\x00") is None
    assert expected_ref(json.dumps({"id": 1, "pad": "x" * 5000})) is None  # too large to read


async def test_pipelined_frames_are_each_answered(server: CardroomServer) -> None:
    session = Session(server.url)
    await session.open()
    frames: list[str | bytes] = [
        json.dumps({"type": "hello", "id": 1, "protocol": 1}),
        json.dumps({"type": "ping", "id": "p"}),
        "not json",
        b"\x01\x02",
        json.dumps({"type": "watch", "id": 2, "room": "ZZZZZ"}),
        json.dumps({"type": "hello", "id": 3, "protocol": 99}),
    ]
    await session.send(frames)  # one TCP write
    tally = Tally()
    await session.settle(tally, timeout=10)
    assert tally.frames == 6 and tally.unanswered == 0
    assert tally.answers == {
        "welcome": 1,
        "pong": 1,
        "error:bad_json": 1,
        "error:binary_frame": 1,
        "error:room_not_found": 1,
        "error:unsupported_protocol": 1,
    }
    await session.raw.close()


async def test_frames_cut_off_by_a_policy_close_are_counted_by_close_code(
    server: CardroomServer,
) -> None:
    session = Session(server.url)
    await session.open()
    await session.send(["nope"] * 15)  # the 10th bad frame in a row closes with 1008
    tally = Tally()
    await session.settle(tally, timeout=10)
    assert tally.answers["error:bad_json"] == 10
    assert tally.closes == {1008: 1} and tally.dropped_at_close == {1008: 5}
    assert tally.unanswered == 0 and not tally.undocumented_closes
    await session.raw.close()


async def test_a_frame_that_is_not_utf8_closes_with_1007(server: CardroomServer) -> None:
    session = Session(server.url)
    await session.open()
    session.broken_on_purpose = True
    await session.raw.send_bad_text(b'{"type": "ping", "id": "\xff"}')
    session.sent.append(b"\xff")
    tally = Tally()
    await session.settle(tally, timeout=10)
    assert tally.closes == {1007: 1} and not tally.undocumented_closes
    await session.raw.close()
