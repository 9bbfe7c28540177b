"""The server frames its own outgoing text frames when no extension was negotiated: the bytes
must be exactly what websockets' framing writes, at every length boundary."""

from __future__ import annotations

import pytest
from websockets.frames import Frame, Opcode

from server.net.server import framed

#: Payload lengths at each boundary of the frame header: 7-bit, 16-bit, 64-bit lengths.
SIZES = [0, 1, 125, 126, 127, 1273, 65535, 65536, 70000]


def websockets_framing(texts: list[str]) -> bytes:
    return b"".join(
        Frame(Opcode.TEXT, t.encode()).serialize(mask=False, extensions=[]) for t in texts
    )


@pytest.mark.parametrize("size", SIZES)
def test_a_text_is_framed_as_websockets_frames_it(size: int) -> None:
    text = ("é" * size).encode()[:size].decode(errors="ignore")  # multi-byte, near ``size``
    text += "x" * (size - len(text.encode()))  # ... and exactly ``size`` bytes
    assert len(text.encode()) == size
    assert framed([text]) == websockets_framing([text])


def test_a_connections_frames_in_one_piece_are_each_framed_in_order() -> None:
    texts = ["", "a", "é" * 63, "x" * 125, "y" * 126, "z" * 70000, '{"type":"ack"}']
    texts += ["w" * size for size in SIZES]
    assert framed(texts) == websockets_framing(texts)
    assert framed([]) == b""
