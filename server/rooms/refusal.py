"""The refusal a room answers a bad request with, and the ``error`` frame it becomes."""

from __future__ import annotations

from protocol import messages as m
from protocol.errors import ErrorCode
from server.rooms.outputs import ConnId, Send


class Refusal(Exception):
    """A request refused by the room: becomes an ``error`` frame to its sender only."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(code.value, message)
        self.code: ErrorCode = code
        self.message = message


def error_frame(conn: ConnId, ref: m.RequestId | None, code: ErrorCode, message: str) -> Send:
    return Send(conn, m.dump(m.Error(code=code, message=message, ref=ref)), refusal=code)
