"""Stores on the real redis-server of ``redis_server`` (tests/conftest.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from server.store.redis_store import RedisStore
from server.tools.bench.redis_server import RedisServer


@pytest.fixture
async def redis_store(redis_server: RedisServer) -> AsyncIterator[RedisStore]:
    store = RedisStore(redis_server.url)
    yield store
    await store.close()
