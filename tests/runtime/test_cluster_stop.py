"""A process that stops answers every message Redis delivered to it. A client relayed through
another process sends its move to the room's owner over pub/sub; when the owner stops (a
rolling restart), a message Redis counted as delivered must not vanish with the listener, or
the client waits out its reply timeout (the 10 s pause the proxy handover test once saw in
CI). The stopping listener unsubscribes and handles what came before Redis confirmed it; a
publish after that counts 0, and the relaying process then serves its client itself."""

from __future__ import annotations

import asyncio
import time

import orjson

from protocol import messages as m
from protocol.errors import ErrorCode
from server.rooms.inputs import RoomRequest
from server.rooms.refusal import Refusal
from server.runtime.cluster import channel
from server.tools.bench.redis_server import RedisServer
from tests.support.cluster import IdleProcess, process_me


class StoppingRooms(IdleProcess):
    """The rooms and clients of a process that is stopping: every relayed request is refused
    with ``shutting_down`` (as RoomManager.route does then); what is sent back is recorded."""

    def __init__(self) -> None:
        self.routed: list[str | int] = []
        self.sent: list[tuple[int, str]] = []

    async def route(
        self, conn: int, msg: RoomRequest, received: float, *, forwarded: bool = False
    ) -> None:
        self.routed.append(msg.id)
        raise Refusal(ErrorCode.SHUTTING_DOWN, "the server is restarting; try again shortly")

    def send(self, conn: int, text: str) -> None:
        self.sent.append((conn, text))


def relayed(i: int) -> bytes:
    """A client of process "peer" (its connection 7) leaving room ABCDE, request ``i``."""
    msg = m.Leave(id=i, room="ABCDE")
    return orjson.dumps({"k": "msg", "from": "peer", "conn": 7, "msg": msg.model_dump()})


async def test_every_message_delivered_to_a_stopping_process_is_answered(
    redis_server: RedisServer,
) -> None:
    rooms = StoppingRooms()
    async with process_me(redis_server.url, rooms) as (cluster, peer):
        await cluster.start(rooms)
        deadline = time.monotonic() + 5
        while (await peer.pubsub_numsub(channel("me")))[0][1] == 0:
            assert time.monotonic() < deadline, "the cluster never subscribed"
            await asyncio.sleep(0.01)
        stopping = asyncio.create_task(cluster.stop())
        delivered: list[int] = []
        for i in range(3000):  # until Redis says nobody listens there any more
            if await peer.publish(channel("me"), relayed(i)) == 0:
                break
            delivered.append(i)
        else:
            raise AssertionError("still subscribed after 3,000 messages: the listener was left")
        await asyncio.wait_for(stopping, 10)
        assert delivered, "nothing reached the process before it stopped listening"
        assert rooms.routed == delivered  # each one handled, in order
        answers = [orjson.loads(text) for _, text in rooms.sent]
        assert [a["ref"] for a in answers] == delivered
        assert {a["code"] for a in answers} == {ErrorCode.SHUTTING_DOWN.value}
