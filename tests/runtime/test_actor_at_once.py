"""An idle room handles an input at once (server/runtime/actor.py); one whose handling has to
wait after all is finished by the room's task before anything submitted after it, so every
connection still sees the room's frames in the order the inputs came."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from typing import Any

from protocol import messages as m
from server.metrics import Metrics
from server.rooms.settings import RoomSettings
from server.runtime.connected import Connected
from server.runtime.manager import RoomManager
from server.store.memory import MemoryStore


class SlowAppends(MemoryStore):
    """A memory store whose action appends wait a moment (as a store doing I/O would)."""

    async def append(self, code: str, entry: Mapping[str, Any], *, fence: int = 0) -> None:
        await asyncio.sleep(0.01)
        await super().append(code, entry, fence=fence)


class Outbox:
    def __init__(self) -> None:
        self.frames: list[dict[str, Any]] = []

    def send(self, text: str) -> None:
        self.frames.append(json.loads(text))


async def test_an_input_that_waits_keeps_its_place_before_later_ones() -> None:
    clients: Connected[Outbox] = Connected()
    manager = RoomManager(SlowAppends(), Metrics(), RoomSettings(bot_delay=0.0), clients=clients)
    ann, bob = Outbox(), Outbox()
    clients.open(1, ann)
    clients.open(2, bob)
    await manager.create(1, m.Create(id=1, game="shithead", seats=2, name="Ann"), 0)
    await asyncio.sleep(0.05)  # the room's task starts and waits for input
    code = clients.room_of(1)
    assert code is not None
    assert manager.route_now(2, m.Join(id=2, room=code, name="Bob"), 0) is None
    assert manager.route_now(1, m.Host(id=3, room=code, op="start"), 0) is None
    assert bob.frames[-1]["type"] == "state"  # handled at once: nothing waited
    version = bob.frames[-1]["version"]
    ready = m.Act(id=4, room=code, version=version, action=m.ActionModel(kind="ready"))
    manager.route_now(1, ready, 0)  # its append waits: the room's task finishes it
    manager.route_now(2, m.Chat(id=5, room=code, text="hi"), 0)  # submitted after
    assert not any(f["type"] == "chat" for f in bob.frames)  # not overtaking the act
    for _ in range(100):
        if any(f["type"] == "chat" for f in bob.frames):
            break
        await asyncio.sleep(0.01)
    kinds = [(f["type"], f.get("version"), f.get("ref")) for f in bob.frames[-3:]]
    assert kinds == [("state", version + 1, None), ("ack", None, 5), ("chat", None, None)]
    assert [(f["type"], f.get("ref")) for f in ann.frames[-3:]] == [
        ("ack", 4),
        ("state", None),
        ("chat", None),
    ]
    await manager.shutdown()
