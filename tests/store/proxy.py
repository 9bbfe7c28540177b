"""A TCP proxy in front of a real redis-server that can lose replies: a request that contains
a marker reaches Redis (and is carried out), but nothing Redis answers on that connection
reaches the client any more, as when the network fails between the write and its reply."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Coroutine
from types import TracebackType


class LossyProxy:
    """``async with LossyProxy(port) as proxy``: clients use ``proxy.url``."""

    def __init__(self, redis_port: int) -> None:
        self.redis_port = redis_port
        self.marker: bytes | None = None
        self.times = 0  # replies still to lose
        self.lost = 0  # requests whose replies were lost
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self.port = 0

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def lose_reply_to(self, marker: bytes, times: int = 1) -> None:
        """Lose the replies of the next ``times`` requests that contain ``marker``."""
        self.marker, self.times = marker, times

    async def __aenter__(self) -> LossyProxy:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        assert self._server is not None
        self._server.close()
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, OSError):
                await task

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.redis_port)
        muted = asyncio.Event()  # this connection's replies are lost from now on

        async def upstream() -> None:
            while data := await reader.read(65536):
                if self.times > 0 and self.marker is not None and self.marker in data:
                    self.times -= 1
                    self.lost += 1
                    muted.set()
                up_writer.write(data)
                await up_writer.drain()
            up_writer.close()

        async def downstream() -> None:
            while data := await up_reader.read(65536):
                if not muted.is_set():
                    writer.write(data)
                    await writer.drain()
            writer.close()

        async def guarded(pipe: Coroutine[None, None, None]) -> None:
            with contextlib.suppress(OSError):  # either side closed: the connection ends
                await pipe
            writer.close()
            up_writer.close()

        for pipe in (upstream(), downstream()):
            task = asyncio.create_task(guarded(pipe))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
