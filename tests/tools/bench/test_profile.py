"""The load test's profile summary puts each sample in the part of its innermost known frame."""

from __future__ import annotations

from pathlib import Path

from server.tools.bench.profile import part_of, summarize

READ = "data_received (server/net/receive.py:90)"
FRAME = "CardroomServer._frame (server/net/server.py:500)"
ROOM = "RoomCore.handle (server/rooms/core.py:200)"
VIEW = "build_view (server/rules/sheepshead_view.py:140)"
DUMP = "dump_state (protocol/messages.py:375)"
FLUSH = "Connection.flush (server/net/server.py:170)"
LOOP = "Runner.run (asyncio/runners.py:118)"


def test_a_sample_goes_to_its_innermost_part() -> None:
    assert part_of([LOOP, READ, FRAME, ROOM, VIEW]).startswith("building views")
    assert part_of([LOOP, READ, FRAME, ROOM, DUMP]).startswith("serialising")
    for writing in ("StateWriter.text (protocol/messages.py:640)", "json_bytes (protocol/m.py:9)"):
        assert part_of([LOOP, READ, FRAME, ROOM, writing]).startswith("serialising")
    assert part_of([LOOP, READ, FRAME, ROOM]).startswith("the room")
    assert part_of([LOOP, READ, FRAME]).startswith("checking client frames")
    assert part_of([LOOP, READ]).startswith("reading frames")
    assert part_of([LOOP, FLUSH]).startswith("writing frames")
    assert part_of([LOOP]).startswith("event loop")
    assert part_of(["main (x.py:1)"]).startswith("other")


def test_the_parts_add_up_to_every_sample(tmp_path: Path) -> None:
    path = tmp_path / "stacks.txt"
    stacks = [[LOOP, READ, FRAME, ROOM, VIEW], [LOOP, FLUSH], [LOOP, READ, FRAME, ROOM, DUMP]]
    path.write_text("".join(f"{';'.join(s)} {n}\n" for s, n in zip(stacks, [5, 3, 2], strict=True)))
    lines = summarize(path)
    assert "10 samples" in lines[0]
    shares = [float(line.split("%")[0]) for line in lines[1:4]]
    assert shares == [50.0, 30.0, 20.0]
