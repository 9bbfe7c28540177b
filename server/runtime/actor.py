"""The asyncio actor around one :class:`~server.rooms.core.RoomCore`: one task and one queue,
so every change to a room is serialised. It owns the clock, the timers, the bot tasks and the
store calls, and performs the core's outputs in order (a ``Persist`` is awaited before anything
after it is sent). What it needs of the rooms it belongs to is its :class:`Owner` (the
manager); everything else it is given when it is built.

With stores whose calls complete at once (``completes_at_once``: the in-memory ones, nothing
to wait for), an input that arrives while the room is idle (its task waiting, nothing queued)
is handled at once, in the caller's turn of the event loop, instead of waking the task for it:
the same steps in the same order, without a queue hop per input (should it have to wait after
all, the room's task finishes it before anything queued after it). So too with a store that
queues its calls (``queues_calls``: one Redis, whose writes go in the turn's batch): the input
is handled at once up to its first write, which only joins the batch; the batch's answer (a
:class:`~server.store.answer.Answer`) resumes the rest where Redis's reply is read, in that
turn, so the ack goes only once Redis answered and no turn later. The Redis
client's timeouts belong to the task that runs a call, and the caller may be no task at all (a
frame's read, a timer): so a store whose calls run in their caller's task (a Redis Cluster)
takes every input through the task, and the boards, called only after the store's write of a
finished game (:class:`~server.runtime.finished.FinishedGames`), always run in the task.
"""

from __future__ import annotations

import asyncio
import datetime
import logging
import time
from collections import deque
from collections.abc import Callable, Coroutine, Generator, Hashable
from dataclasses import dataclass
from typing import Any, Protocol

from protocol import messages as m
from protocol.errors import ErrorCode
from protocol.messages import BotLevel
from server.bots.base import Bot, RandomBot, make_bot
from server.bots.pool import FALLBACK_LEVEL, SLOW_LEVELS, BotPool, Share
from server.bots.reasons import explain
from server.metrics import Metrics
from server.rooms.core import RoomCore
from server.rooms.inputs import (
    BotMove,
    CreateHost,
    HintReady,
    RatingsShown,
    Request,
    RoomInput,
    TimerFired,
    sender,
)
from server.rooms.outputs import (
    CancelTimer,
    CloseRoom,
    Detach,
    Output,
    Persist,
    PersistAction,
    Reply,
    RunBot,
    RunHint,
    Send,
    SetTimer,
    TimerKey,
)
from server.rooms.refusal import error_frame
from server.runtime.finished import Devices, FinishedGames, HandSink
from server.store.answer import Answer
from server.store.base import RoomStore, StoreUnavailable, WriteRejected
from server.store.health import StoreHealth
from server.store.leaderboard import Board, Leaderboards, Player
from server.store.ratings import Ratings

log = logging.getLogger(__name__)

_UNSAVED = "the room cannot be saved right now, so nothing changed; try again shortly"
_MOVED = "the room was changed elsewhere, so this was not saved; resume with your token"


@dataclass(frozen=True, slots=True)
class Queued:
    """An input waiting for the room, with when its frame arrived (``None``: not a client's)."""

    input: RoomInput
    received: float | None = None


class Stop:
    """Ends the actor's loop after everything queued before it."""


class _Rest:
    """The rest of an input's handling that was started at once and stopped to wait on
    ``first`` (what its coroutine yielded): awaited by the room's task, which resumes the
    coroutine exactly as a task running it from the start would have (``yield from``)."""

    def __init__(self, coro: Coroutine[Any, Any, None], first: Any) -> None:
        self.coro = coro
        self.first = first

    def __await__(self) -> Generator[Any, Any, None]:
        coro, value = self.coro, self.first
        while True:
            try:
                sent = yield value
            except GeneratorExit:
                coro.close()
                raise
            except BaseException as exc:  # cancellation, thrown in by the task
                try:
                    value = coro.throw(exc)
                except StopIteration:
                    return
            else:
                try:
                    value = coro.send(sent)
                except StopIteration:
                    return


def _counted_as(item: RoomInput) -> str:
    """Who an accepted action is counted for in the ``cardroom_actions`` metric (a host's
    ``start`` or ``next_game`` moves the version too, but is nobody's move in the game)."""
    match item:
        case BotMove():
            return "bot"
        case TimerFired():
            return "timer"
        case Request(msg=m.Host()):
            return "host"
        case _:
            return "player"


class Owner(Protocol):
    """What a room's actor needs of the rooms it belongs to
    (:class:`~server.runtime.manager.RoomManager`)."""

    def send(self, conn: int, text: str) -> None:
        """Queue a frame for a connection."""

    def sync_member(self, conn: int, code: str, member: bool) -> None:
        """Whether ``conn`` is in the room after the room handled its request."""

    def detach(self, conn: int, code: str) -> None:
        """``conn`` left the room."""

    def close_room_soon(self, code: str, reason: str) -> None:
        """The room closes (and is deleted from the store)."""

    def evict_soon(self, code: str, reason: str) -> None:
        """The room leaves this process (it lives on in the store)."""


class RoomActor:
    """Serialises everything that happens to one room."""

    def __init__(
        self,
        core: RoomCore,
        owner: Owner,
        store: RoomStore,
        metrics: Metrics,
        clock: Callable[[], float] = time.time,
        *,
        boards: Leaderboards,
        health: StoreHealth,
        bots: BotPool,
        devices: Devices,
        fence: int = 0,
        opener: Hashable = None,
        ratings: Ratings | None = None,
        hands: HandSink | None = None,
    ) -> None:
        self.core = core
        self.owner = owner
        self.store = store
        self.metrics = metrics
        self.clock = clock
        self.health = health
        self.bots = bots
        self.fence = fence  # the room lease's fencing token (0: one process, no lease)
        self.opener = opener  # who opened the room (its creator's address), if known
        self.queue: deque[Queued | Stop | _Rest] = deque()
        self._wake: asyncio.Future[None] | None = None  # set while the task waits for input
        self._busy = False  # an input is being handled (at once, or by the task)
        # inputs handled at once only when nothing they do waits on I/O (see the docstring)
        self._at_once = (store.completes_at_once and boards.completes_at_once) or (
            store.queues_calls
        )
        self._timers: dict[TimerKey, asyncio.TimerHandle] = {}
        self._bot_tasks: set[asyncio.Task[None]] = set()
        self._bots: dict[tuple[int, str], Bot] = {}
        # the slow bots' states between decisions (they think in the pool's workers, which
        # keep nothing): (seat, level) -> state; they leave with the room
        self._states: dict[tuple[int, str], bytes] = {}
        self._task: asyncio.Task[None] | None = None
        self._held: list[Queued] = []  # the server's own inputs waiting for the store
        self._retry: asyncio.Task[None] | None = None
        self._moved = False  # the store refused a write: this copy of the room is stale
        self.games = FinishedGames(
            core,
            store,
            boards=boards,
            health=health,
            devices=devices,
            fence=fence,
            clock=clock,
            ratings=ratings,
            shown=lambda shifts: self.submit(RatingsShown(shifts)),
            hands=hands,
        )

    @property
    def code(self) -> str:
        return self.core.code

    def start(self, initial: list[Output] | None = None) -> None:
        self._task = asyncio.create_task(self._run(initial or []), name=f"room-{self.code}")

    def submit(self, item: RoomInput, received: float | None = None) -> None:
        """Hand the room one input; it handles inputs one at a time, in order: at once if it
        is idle, else after those queued before it."""
        queued = Queued(item, received)
        if self._at_once and self._wake is not None and not self._busy and not self.queue:
            self._now(queued)
        else:
            self._put(queued)

    def _put(self, item: Queued | Stop) -> None:
        self.queue.append(item)
        self._wake_task()

    def _now(self, item: Queued) -> None:
        """Handle ``item`` in the caller's turn; if it must wait, see :meth:`_drive`."""
        self._busy = True
        self._drive(self._step(item), item)

    def _drive(self, step: Coroutine[Any, Any, None], item: Queued) -> None:
        """Run ``step`` on from where it waits, in this turn: to its end, or to a store's
        :class:`~server.store.answer.Answer`, which resumes it here again in the callback that
        sets it (no turn between Redis's reply and the ack), or to anything else, which the
        room's task awaits before it takes anything queued."""
        try:
            waits_on = step.send(None)
        except StopIteration:
            self._idle()
            return
        except Exception:
            log.exception("room %s: handling %s failed", self.code, item.input)
            self._idle()
            return
        if type(waits_on) is Answer:
            waits_on._asyncio_future_blocking = False  # taken, as a task takes what it awaits
            waits_on.on_settled(lambda: self._drive(step, item))
            return
        self._busy = False  # the task's now: it takes the rest first, ahead of the queue
        self.queue.appendleft(_Rest(step, waits_on))
        self._wake_task()

    def _idle(self) -> None:
        self._busy = False
        if self.queue:  # inputs submitted while it was handled (by its own outputs)
            self._wake_task()

    def _wake_task(self) -> None:
        """Wake the task for what is queued."""
        wake = self._wake
        if wake is not None and not wake.done():
            wake.set_result(None)

    async def _run(self, initial: list[Output]) -> None:
        await self._perform(initial, None)
        await self.games.record(None)  # a room reloaded just after a game ended
        loop = asyncio.get_running_loop()
        while True:
            # busy: an input's step goes on in the store's answers (_drive), not in this task
            while not self.queue or self._busy:
                self._wake = loop.create_future()
                try:
                    await self._wake  # meanwhile inputs may be handled at once by submit
                finally:
                    self._wake = None
            item = self.queue.popleft()
            match item:
                case Stop():
                    return
                case _Rest():
                    self._busy = True
                    try:
                        await item
                    finally:
                        self._busy = False
                case Queued() if self._at_once:
                    self._now(item)
                case Queued():
                    self._busy = True
                    try:
                        await self._step(item)
                    finally:
                        self._busy = False

    async def _step(self, item: Queued) -> None:
        """Handle one input: the core's outputs performed in order, metrics, finished games."""
        if self._moved:  # on its way out: nothing more is handled here
            self._refuse(item.input, _MOVED)
            return
        before = self.core.version
        progress = self.games.progress()
        now = self.clock()
        if self.core.starts_daily(item.input):
            if asyncio.current_task() is not self._task:
                await asyncio.sleep(0)  # the boards' calls run in the room's task (see below)
            try:
                await self._claim_daily(now)
            except StoreUnavailable:  # nothing done yet: the host is told to try again
                self.health.down()
                self._refuse(item.input, _UNSAVED)
                return
        # the core never raises: a failure puts the room back and answers internal_error
        outputs = self.core.handle(item.input, now=now)
        self._sync_member(item.input)
        try:
            await self._perform(outputs, item.received)
        except StoreUnavailable as exc:
            self._unsaved(item, exc)
            return
        except WriteRejected as exc:  # another process holds the room, or it expired
            # (or an earlier write whose reply was lost did land): the store is right
            log.warning("room %s: %s; letting it go", self.code, exc)
            self.core.undo()  # nothing of it was sent; it must not be sent later either
            self._sync_member(item.input)
            self._moved = True
            self._refuse(item.input, _MOVED)
            self.owner.evict_soon(self.code, "the room moved; resume with your token")
            return
        except Exception:  # a bug in an output: logged, the room goes on
            log.exception("room %s: performing outputs of %s failed", self.code, item.input)
        self.core.settled()  # stored (or failed for a bug): it will not be undone
        if self.core.version != before and self.core.match is not None:
            by = _counted_as(item.input)
            self.metrics.count_actions(self.core.game, by, self.core.version - before)
            self.games.acted(item.input)  # a person's own move: the minimum play to be ranked
            # a game ends only with a new version: an input that made none ended none
            if self.games.ended(progress) and asyncio.current_task() is not self._task:
                # the boards' calls (redis-py's, timed by the task that runs them) run in the
                # room's task, not in a store's answer nor in a caller's task
                await asyncio.sleep(0)
            await self.games.record(progress)

    async def _claim_daily(self, now: float) -> None:
        """Before a daily match's first card: whether it is its player's first daily match of
        the day (rooms of one day deal the same hands: a later one would be played knowing
        them), which the room then shows (``daily_ranked``) and its results obey."""
        device = self.core.daily_player()
        ranked = False
        if device is not None:
            day = datetime.datetime.fromtimestamp(now, datetime.UTC).date()
            player = Player.known(device, "?").id
            match = f"{self.core.code}:{self.core.nonce}"
            ranked = await self.games.boards.first_daily(Board.daily(day), player, match)
        self.core.set_daily_ranked(ranked)

    def _sync_member(self, item: RoomInput) -> None:
        if isinstance(item, Request | CreateHost):
            self.owner.sync_member(item.conn, self.code, item.conn in self.core.where)

    def _unsaved(self, item: Queued, exc: StoreUnavailable) -> None:
        """What ``item`` did could not be stored: it is undone (nothing of it was sent, since
        every send waits on the persist before it); a client is told to try again, and the
        server's own inputs (bots, timers) are retried once the store is back."""
        self.core.undo()
        self._sync_member(item.input)
        self.health.down()
        if sender(item.input) is None:
            log.warning("room %s: %s; will retry %s", self.code, exc, type(item.input).__name__)
            self._held.append(item)
            if self._retry is None or self._retry.done():
                self._retry = asyncio.create_task(self._retry_held(), name=f"retry-{self.code}")
            return
        self._refuse(item.input, _UNSAVED)

    def _refuse(self, item: RoomInput, text: str) -> None:
        """Tell the sender of ``item`` (if a client sent it) that it was not stored."""
        conn = sender(item)
        if conn is None:
            return
        ref = item.msg.id if isinstance(item, Request | CreateHost) else None
        refusal = error_frame(conn, ref, ErrorCode.STORE_UNAVAILABLE, text)
        self.metrics.refusals.labels(ErrorCode.STORE_UNAVAILABLE.value).inc()
        self.owner.send(conn, refusal.text)

    async def _retry_held(self) -> None:
        await self.health.wait_up()
        held, self._held = self._held, []
        for item in held:
            self._put(item)

    async def _perform(self, outputs: list[Output], received: float | None) -> None:
        """Do what the core asked, in order: a save is awaited before anything after it."""
        send = self.owner.send
        for o in outputs:
            if type(o) is Send:  # most outputs: tested first, without the match below
                if o.refusal is not None:
                    self.metrics.refusals.labels(o.refusal.value).inc()
                send(o.conn, o.text)
                continue
            match o:
                case PersistAction(entry=entry):
                    started = time.perf_counter()
                    await self.store.append(self.code, entry, fence=self.fence)
                    self.metrics.persist.observe(time.perf_counter() - started)
                case Persist(record=record):
                    await self.store.save(self.code, record, fence=self.fence)
                case SetTimer(key=key, at=at):
                    self._cancel_timer(key)
                    delay = max(0.0, at - self.clock())
                    loop = asyncio.get_running_loop()
                    self._timers[key] = loop.call_later(delay, self._fire, key)
                case CancelTimer(key=key):
                    self._cancel_timer(key)
                case RunBot():
                    task = asyncio.create_task(self._run_bot(o))
                    self._bot_tasks.add(task)
                    task.add_done_callback(self._bot_tasks.discard)
                case RunHint():
                    task = asyncio.create_task(self._run_hint(o))
                    self._bot_tasks.add(task)
                    task.add_done_callback(self._bot_tasks.discard)
                case Detach(conn=conn):
                    self.owner.detach(conn, self.code)
                case CloseRoom(reason=reason):
                    self.owner.close_room_soon(self.code, reason)
                case Reply(to=to, ok=ok):
                    to(ok)
        if received is not None:
            self.metrics.latency.observe(time.perf_counter() - received)

    def _cancel_timer(self, key: TimerKey) -> None:
        old = self._timers.pop(key, None)
        if old is not None:
            old.cancel()

    def _fire(self, key: TimerKey) -> None:
        self._timers.pop(key, None)
        self.submit(TimerFired(key))

    def _bot_seed(self, seat: int) -> int:
        return (self.core.bot_seed + 7919 * seat) % 2**63  # never a deal's seed

    @property
    def share(self) -> Share:
        """Whose turn this room's bot requests wait for in the pool (a room opened by no
        known address is its own owner)."""
        return Share(self.code if self.opener is None else self.opener, self.code)

    def bot_states(self) -> tuple[int, int]:
        """The slow bots' states this room holds: how many, and their bytes."""
        return len(self._states), sum(len(s) for s in self._states.values())

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
                key = (o.seat, o.level)
                decision = await self.bots.choose(
                    o.level,
                    o.game,
                    self._bot_seed(o.seat),
                    o.view,
                    share=self.share,
                    state=self._states.get(key),
                )
                if decision.state is not None:
                    self._states[key] = decision.state
                action = decision.action
            else:
                action = self.bot(o.seat, o.level, o.game).choose(o.view)
        except Exception:
            log.exception("room %s: %s bot failed in seat %d", self.code, o.level, o.seat)
            action = RandomBot().choose(o.view)
        self.submit(BotMove(o.seat, o.version, action))

    async def _run_hint(self, o: RunHint) -> None:
        """Work out a hint in the bot pool (never on this loop), explain it, hand it back."""
        level: str
        try:
            action, level, advice = await self.bots.advise(o.game, o.seed, o.view, share=self.share)
        except Exception:
            log.exception("room %s: the hint bot failed in seat %d", self.code, o.seat)
            action, level = make_bot(FALLBACK_LEVEL, o.game, seed=o.seed).choose(o.view), "basic"
            advice = None
        reason = explain(o.view, action, searched=level == "strong", advice=advice)
        bot_level: BotLevel = "strong" if level == "strong" else "basic"
        self.submit(HintReady(o.conn, o.seat, o.version, o.ref, action, bot_level, reason))

    async def stop(self) -> None:
        """Stop after the changes already queued; cancel timers and bots."""
        for handle in self._timers.values():
            handle.cancel()
        self._timers.clear()
        for task in list(self._bot_tasks):
            task.cancel()
        self._states.clear()
        if self._task is not None and not self._task.done():
            self._put(Stop())
            await self._task
