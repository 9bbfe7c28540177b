"""The asyncio actor around one :class:`~server.rooms.core.RoomCore`: one task and one queue,
so every change to a room is serialised. It owns the clock, the timers, the bot tasks and the
store calls, and performs the core's outputs in order (a ``Persist`` is awaited before anything
after it is sent)."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from server.bots.base import Bot, RandomBot, make_bot
from server.bots.pool import SLOW_LEVELS
from server.metrics import Metrics
from server.rooms.core import RoomCore
from server.rooms.outputs import (
    CancelTimer,
    CloseRoom,
    Detach,
    Output,
    Persist,
    PersistAction,
    RunBot,
    Send,
    SetTimer,
    TimerKey,
)
from server.store.base import RoomStore

if TYPE_CHECKING:
    from server.rooms.manager import RoomManager

log = logging.getLogger(__name__)

_STOP = object()


class RoomActor:
    """Serialises everything that happens to one room."""

    def __init__(
        self,
        core: RoomCore,
        manager: RoomManager,
        store: RoomStore,
        metrics: Metrics,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.core = core
        self.manager = manager
        self.store = store
        self.metrics = metrics
        self.clock = clock
        self.queue: asyncio.Queue[Any] = asyncio.Queue()
        self._timers: dict[TimerKey, asyncio.TimerHandle] = {}
        self._bot_tasks: set[asyncio.Task[None]] = set()
        self._bots: dict[tuple[int, str], Bot] = {}
        self._task: asyncio.Task[None] | None = None

    @property
    def code(self) -> str:
        return self.core.code

    def start(self, initial: list[Output] | None = None) -> None:
        self._task = asyncio.create_task(self._run(initial or []), name=f"room-{self.code}")

    def submit(self, method: str, *args: Any, received: float | None = None) -> None:
        """Queue a call of ``core.<method>(*args, now=...)``."""
        self.queue.put_nowait((method, args, received))

    async def _run(self, initial: list[Output]) -> None:
        await self._perform(initial, None, "init")
        while True:
            item = await self.queue.get()
            if item is _STOP:
                return
            method, args, received = item
            before = self.core.version
            try:
                outputs = getattr(self.core, method)(*args, now=self.clock())
            except Exception:  # a bug in the room must not kill the room
                log.exception("room %s: %s failed", self.code, method)
                continue
            if method in ("request", "create_host"):
                conn = args[0]
                self.manager.sync_member(conn, self.code, conn in self.core.where)
            if self.core.version != before and self.core.match is not None:
                by = {"request": "player", "bot_action": "bot", "timer": "timer"}.get(
                    method, method
                )
                self.metrics.actions.labels(self.core.game, by).inc(self.core.version - before)
            try:
                await self._perform(outputs, received, method)
            except Exception:
                log.exception("room %s: performing outputs of %s failed", self.code, method)

    async def _perform(self, outputs: list[Output], received: float | None, method: str) -> None:
        loop = asyncio.get_running_loop()
        for o in outputs:
            if isinstance(o, Send):
                if o.refusal:
                    self.metrics.refusals.labels(o.refusal).inc()
                self.manager.send(o.conn, o.text)
            elif isinstance(o, PersistAction):
                await self.store.append(self.code, o.entry)
            elif isinstance(o, Persist):
                await self.store.save(self.code, o.record)
            elif isinstance(o, SetTimer):
                old = self._timers.pop(o.key, None)
                if old is not None:
                    old.cancel()
                delay = max(0.0, o.at - self.clock())
                self._timers[o.key] = loop.call_later(delay, self._fire, o.key)
            elif isinstance(o, CancelTimer):
                old = self._timers.pop(o.key, None)
                if old is not None:
                    old.cancel()
            elif isinstance(o, RunBot):
                task = asyncio.create_task(self._run_bot(o))
                self._bot_tasks.add(task)
                task.add_done_callback(self._bot_tasks.discard)
            elif isinstance(o, Detach):
                self.manager.detach(o.conn, self.code)
            elif isinstance(o, CloseRoom):
                self.manager.close_room_soon(self.code, o.reason)
        if received is not None:
            self.metrics.latency.observe(time.perf_counter() - received)

    def _fire(self, key: TimerKey) -> None:
        self._timers.pop(key, None)
        self.submit("timer", key)

    def _bot_seed(self, seat: int) -> int:
        return (self.core.seed + 7919 * seat) % 2**63

    def bot(self, seat: int, level: str, game: str) -> Bot:
        bot = self._bots.get((seat, level))
        if bot is None:
            bot = make_bot(level, game, seed=self._bot_seed(seat))
            self._bots[(seat, level)] = bot
        return bot

    async def _run_bot(self, o: RunBot) -> None:
        if o.delay > 0:
            await asyncio.sleep(o.delay)
        try:
            if o.level in SLOW_LEVELS:
                action = await self.manager.bot_pool.choose(
                    o.level, o.game, self._bot_seed(o.seat), o.view
                )
            else:
                action = self.bot(o.seat, o.level, o.game).choose(o.view)
        except Exception:
            log.exception("room %s: %s bot failed in seat %d", self.code, o.level, o.seat)
            action = RandomBot().choose(o.view)
        self.submit("bot_action", o.seat, o.version, action)

    async def stop(self) -> None:
        """Stop after the changes already queued; cancel timers and bots."""
        for handle in self._timers.values():
            handle.cancel()
        self._timers.clear()
        for task in list(self._bot_tasks):
            task.cancel()
        if self._task is not None and not self._task.done():
            self.queue.put_nowait(_STOP)
            await self._task
