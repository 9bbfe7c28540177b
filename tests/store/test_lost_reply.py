"""An append whose reply is lost (Redis stored it, the answer never came back): the writer sees
``StoreUnavailable`` (the outcome unknown); sending the same action again is accepted once, and
anything else at that version is refused, so the writer never drifts from what Redis holds."""

from __future__ import annotations

from typing import Any

import pytest

from server.store.base import StoreUnavailable, VersionConflict
from server.store.redis_client import connect
from server.store.redis_store import RedisStore
from server.tools.bench.redis_server import RedisServer
from tests.store.proxy import LossyProxy

pytestmark = pytest.mark.slow


def entry(v: int, action: str, deadline: float | None = None) -> dict[str, Any]:
    e: dict[str, Any] = {"v": v, "g": 0, "s": 1, "a": action}
    if deadline is not None:
        e["d"] = deadline
    return e


async def test_a_lost_reply_then_a_retry_or_another_write(redis_server: RedisServer) -> None:
    async with LossyProxy(redis_server.port) as proxy:
        writer = RedisStore(client=connect(proxy.url, timeout=0.5))
        direct = RedisStore(redis_server.url)
        try:
            proxy.lose_reply_to(b"LOSTX")
            # the create landed, its reply was lost, the client sent it again: still created
            assert await writer.create("LOSTX", {"version": 0, "code": "LOSTX"})
            assert proxy.lost == 1
            assert not await writer.create("LOSTX", {"version": 0, "code": "other"})
            proxy.lose_reply_to(b"ready")
            # one lost reply: the client sends the script again on a fresh connection at once,
            # and the retry of an append that landed is accepted without adding it twice
            await writer.append("LOSTX", entry(1, "ready"))
            assert proxy.lost == 2
            stored = await direct.load("LOSTX")
            assert stored is not None and stored.actions == [entry(1, "ready")]

            proxy.lose_reply_to(b"play 7C", times=2)  # the retry's reply is lost too
            with pytest.raises(StoreUnavailable):  # the outcome is unknown to the writer
                await writer.append("LOSTX", entry(2, "play 7C", deadline=100.0))
            assert proxy.lost == 4
            stored = await direct.load("LOSTX")  # Redis did store it, once
            assert stored is not None
            assert stored.actions == [entry(1, "ready"), entry(2, "play 7C", 100.0)]

            # something else at version 2 is refused: the writer learns its copy is stale
            with pytest.raises(VersionConflict) as refused:
                await writer.append("LOSTX", entry(2, "pickup", deadline=130.0))
            assert (refused.value.version, refused.value.stored) == (2, 2)
            # the same action again is accepted once, with the retry's later deadline
            await writer.append("LOSTX", entry(2, "play 7C", deadline=130.0))
            stored = await direct.load("LOSTX")
            assert stored is not None
            assert stored.actions == [entry(1, "ready"), entry(2, "play 7C", 130.0)]
            await writer.append("LOSTX", entry(3, "pickup"))  # and the log goes on
        finally:
            await writer.close()
            await direct.close()
