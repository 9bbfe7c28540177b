"""Where a WebSocket connects: ``/ws/CODE`` names the room a client is for, ``/ws`` none yet.

A proxy in front of several processes routes ``/ws/CODE`` by the code (deploy/nginx.conf: a
consistent hash), so a room's clients reach the process that holds it. The code is a hint
only: the messages still say which room. The bare ``/`` is the old address, kept working.

>>> parse_ws_path("/ws/ABCDE"), parse_ws_path("/ws"), parse_ws_path("/")
(WsPath(routed=True, room='ABCDE'), WsPath(routed=True, room=None), WsPath(routed=False, room=None))
>>> parse_ws_path("/ws/abc") is None, ws_path("FGHJK")
(True, '/ws/FGHJK')
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import TypeAdapter, ValidationError

from protocol.messages import RoomCode

#: The WebSocket path of a client in no room yet; ``/ws/CODE`` for room ``CODE``.
WS_PATH = "/ws"

_CODE: TypeAdapter[str] = TypeAdapter(RoomCode)


@dataclass(frozen=True, slots=True)
class WsPath:
    """A WebSocket path: ``routed`` if it is ``/ws`` or ``/ws/CODE`` (a client that knows to
    reconnect to its room's address), ``room`` the code it names."""

    routed: bool
    room: str | None = None


def ws_path(room: str | None) -> str:
    """The path to connect to for ``room`` (``None``: no room yet)."""
    return WS_PATH if room is None else f"{WS_PATH}/{room}"


def parse_ws_path(path: str) -> WsPath | None:
    """The WebSocket path ``path`` (its query dropped), or ``None`` if it is no such path:
    anything but ``/``, ``/ws``, ``/ws/`` and ``/ws/CODE`` with a code in its canonical
    (upper-case) form, which is what a proxy hashes."""
    path = path.partition("?")[0]
    if path == "/":
        return WsPath(routed=False)
    if path in (WS_PATH, WS_PATH + "/"):
        return WsPath(routed=True)
    head, _, code = path.rpartition("/")
    if head != WS_PATH:
        return None
    try:
        canonical = _CODE.validate_python(code)
    except ValidationError:
        return None
    return WsPath(routed=True, room=code) if canonical == code else None
