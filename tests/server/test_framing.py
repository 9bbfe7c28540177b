"""The server frames its own outgoing text frames when no extension was negotiated: the bytes
must be exactly what websockets' framing writes, at every length boundary."""

from __future__ import annotations

import pytest
from websockets.frames import Frame, Opcode

from server.net.server import framed, text_frame


@pytest.mark.parametrize("size", [0, 1, 125, 126, 127, 1273, 65535, 65536, 70000])
def test_text_frame_is_websockets_framing(size: int) -> None:
    data = ("é" * size).encode()[:size]  # multi-byte text, cut at the length asked
    expected = Frame(Opcode.TEXT, data).serialize(mask=False, extensions=[])
    assert text_frame(data) == expected


def test_a_connections_frames_in_one_piece_are_each_framed_in_order() -> None:
    texts = ["", "a", "é" * 63, "x" * 125, "y" * 126, "z" * 70000, '{"type":"ack"}']
    expected = b"".join(
        Frame(Opcode.TEXT, t.encode()).serialize(mask=False, extensions=[]) for t in texts
    )
    assert framed(texts) == expected
