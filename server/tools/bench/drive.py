"""The load tester's I/O: WebSocket connections that feed every frame to their
:class:`~server.tools.bench.players.Player` (or :class:`~server.tools.bench.players.EchoMember`),
rooms of such connections playing match after match, idle connections, and the measured window.

Clients offer permessage-deflate as browsers do unless ``compression`` is None. The host of
a room connects to the base URL and creates it; the others connect to ``/ws/CODE`` under it
(the form that lets a proxy route them to the room's process) for each room they join.
Everything goes to loopback (optionally from several loopback source addresses) and stops by
itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import orjson
from websockets.exceptions import InvalidHandshake

from clients.client import room_url
from server.tools.bench.histogram import Histogram
from server.tools.bench.players import EchoMember, Player
from server.tools.bench.sources import Rotation
from server.tools.bench.tally import Tally
from server.tools.bench.wsclient import WsClient

#: Seconds a request made while setting a room up may take.
SETUP_TIMEOUT = 60.0
#: What a room's setup may fail with on a busy machine (counted, not fatal).
SETUP_ERRORS = (OSError, TimeoutError, InvalidHandshake, RuntimeError)
#: Seconds each room may add to the time all of them take to be set up.
SETUP_PER_ROOM = 1.0
#: A room whose players receive nothing for this long is counted as stalled and opened anew.
STALL_TIMEOUT = 10.0
#: Connections opened at once (a burst of handshakes must not look like a flood).
CONNECT_AT_ONCE = 100
#: Seconds the players' requests in flight at the end of the window may take to be answered.
DRAIN_TIMEOUT = 10.0
#: The loop-lag probe's sleep: its oversleep is how late the event loop runs callbacks.
LAG_PROBE = 0.005


@dataclass(frozen=True)
class RoomSpec:
    game: str  # "sheepshead" or "shithead"
    seats: int
    humans: int  # scripted human clients; bots of ``level`` take the other seats
    level: str = "basic"


class Pacer:
    """At most one action per ``interval`` seconds in one room (None: as fast as possible)."""

    def __init__(self, interval: float | None) -> None:
        self.interval = interval
        self.last = 0.0

    def slot(self, now: float) -> float:
        if self.interval is None:
            return now
        self.last = max(now, self.last + self.interval)
        return self.last


class Think:
    """A person's thinking time before each action: uniform between ``low`` and ``high``
    seconds (drawn from a generator seeded per run, so runs are comparable).

    >>> t = Think(0.5, 2.0, random.Random(1))
    >>> all(0.5 <= t.draw() <= 2.0 for _ in range(1000))
    True
    """

    def __init__(self, low: float, high: float, rng: random.Random) -> None:
        if not 0 <= low <= high:
            raise ValueError(f"think time {low:g}-{high:g}: want 0 <= MIN <= MAX")
        self.low, self.high, self.rng = low, high, rng

    def draw(self) -> float:
        return self.rng.uniform(self.low, self.high)


@dataclass
class Dial:
    """How the connections of a run are opened: compression offered, source addresses."""

    compression: str | None
    sources: Rotation = field(default_factory=lambda: Rotation([]))


class Conn:
    """One connection of a scripted human: every frame goes to the player as it arrives; its
    act goes out as soon as it is due (after its thinking time, when the pacer allows); setup
    requests get replies."""

    def __init__(
        self,
        player: Player,
        pacer: Pacer,
        on_frame: Callable[[], None] | None = None,
        think: Think | None = None,
    ) -> None:
        self.player = player
        self.pacer = pacer
        self.think = think
        self.on_frame = on_frame
        self.last_frame = time.monotonic()
        self.match_over = asyncio.Event()
        self.client: WsClient | None = None
        self._pending: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._ids = itertools.count(1)
        self._timer: asyncio.TimerHandle | None = None
        self.moved: str | None = None  # the room a ``moved`` named: it lives at its address

    async def connect(self, url: str, dial: Dial) -> None:
        # the client exists before any frame can arrive
        self.client = WsClient(url, dial.compression, self._text, dial.sources.local_addr())
        await self.client.start(SETUP_TIMEOUT)

    async def hello(self) -> None:
        welcome = await self.request({"type": "hello", "protocol": 1, "client": "loadtest"})
        if welcome.get("type") != "welcome":
            raise RuntimeError(f"hello refused: {welcome}")

    @property
    def open(self) -> bool:
        return self.client is not None and self.client.open

    def send(self, text: str) -> None:
        assert self.client is not None
        self.client.send_text(text)

    async def request(self, payload: dict[str, Any]) -> dict[str, Any]:
        """Send a setup request and await its reply (an error reply is returned, not raised)."""
        ident = f"s{next(self._ids)}"
        future = asyncio.get_running_loop().create_future()
        self._pending[ident] = future
        try:
            self.send(orjson.dumps({**payload, "id": ident}).decode())
            return await asyncio.wait_for(future, SETUP_TIMEOUT)
        finally:
            self._pending.pop(ident, None)

    def _text(self, data: bytes) -> None:
        now = time.perf_counter()
        self.last_frame = time.monotonic()
        player = self.player
        msg = orjson.loads(data)
        if msg.get("type") == "moved":  # a create at /ws: the room was let go for its address
            self.moved = msg["room"]
        for out in player.receive(msg, now, data):
            self.send(out)
        future = self._pending.get(str(msg.get("ref")))
        if future is not None and not future.done():
            future.set_result(msg)
        if player.match_over:
            self.match_over.set()
        if player.due and self._timer is None:
            at = self.pacer.slot(now)
            if self.think is not None:
                at = max(at, now + self.think.draw())
            if at <= now:
                self.send(player.act(time.perf_counter()))
            else:
                self._timer = asyncio.get_running_loop().call_later(at - now, self._paced)
        if self.on_frame is not None:
            self.on_frame()

    def _paced(self) -> None:
        self._timer = None
        if self.player.due:
            self.send(self.player.act(time.perf_counter()))

    async def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        if self.client is not None:
            await self.client.close()


async def _gather_limited(makers: list[Callable[[], Awaitable[Any]]], limit: int) -> list[Any]:
    gate = asyncio.Semaphore(limit)

    async def one(make: Callable[[], Awaitable[Any]]) -> Any:
        async with gate:
            return await make()

    return list(await asyncio.gather(*(one(m) for m in makers)))


class Room:
    """One room of ``spec.humans`` scripted humans, opened anew whenever its match ends: the
    host creates it on its connection to ``url``, the others connect to its ``/ws/CODE``."""

    def __init__(
        self, url: str, spec: RoomSpec, tally: Tally, pacer: Pacer, think: Think | None = None
    ) -> None:
        self.url = url
        self.spec = spec
        self.tally = tally
        self.pacer = pacer
        self.think = think
        self.dial = Dial(None)
        self.seating: asyncio.Semaphore | None = None  # rooms of a run seating guests at once
        # the rooms of a run start their first match together, once every one is seated, so
        # that setting them up and playing are measured apart (None: start when seated)
        self.go: asyncio.Event | None = None
        self.failed: str | None = None  # why the room could not be opened, if it could not
        self.conns: list[Conn] = []
        self.seated = asyncio.Event()  # everyone joined (or the room failed)
        self.started = asyncio.Event()
        self.playing = False  # in a match: :meth:`check` may wake it
        self._changed: asyncio.Event | None = None

    def _frame_arrived(self) -> None:
        if self._changed is not None:
            self._changed.set()

    def settled(self) -> bool:
        """Whether every request of the room's open connections has its answer."""
        return all(c.player.settled or not c.open for c in self.conns)

    async def until(self, predicate: Callable[[], bool]) -> None:
        """Wait until ``predicate()`` holds, checking after each frame the room receives."""
        while not predicate():
            self._changed = asyncio.Event()
            await self._changed.wait()

    def _conn(self, host: bool) -> Conn:
        return Conn(Player(self.tally, host=host), self.pacer, self._frame_arrived, self.think)

    async def connect(self, dial: Dial | str | None) -> None:
        """Open the host's connection (the others connect as each room is opened); ``dial``
        may be just the compression offered."""
        self.dial = dial if isinstance(dial, Dial) else Dial(dial)
        host = self._conn(True)
        await host.connect(self.url, self.dial)
        self.conns.append(host)
        await host.hello()

    async def _seat_guests(self, code: str) -> None:
        """Connect the guests to the room's own URL (anew if they were on another room's)."""
        async with self.seating or contextlib.nullcontext():
            await self._connect_guests(room_url(self.url, code))

    async def _connect_guests(self, url: str) -> None:
        for i in range(1, self.spec.humans):
            if i < len(self.conns):
                old = self.conns[i]
                if old.client is not None and old.client.url == url:
                    continue
                await old.close()
                self.conns[i] = self._conn(False)
            else:
                self.conns.append(self._conn(False))
            await self.conns[i].connect(url, self.dial)
            await self.conns[i].hello()

    async def play(self, stop: asyncio.Event) -> None:
        """Open the room, play until its match is over (or it stalls), again, until ``stop``.
        A room that cannot be opened (a connection refused or timed out on a busy machine)
        is counted as failed and stops; the others play on."""
        try:
            while not stop.is_set() and self.failed is None:
                await self._open()
                self.started.set()
                await self._until_over(stop)
                for c in self.conns:
                    if not c.open:
                        return
                    await c.request({"type": "leave", "room": c.player.room})
        except SETUP_ERRORS as exc:
            self._fail(exc)

    def _fail(self, exc: BaseException) -> None:
        self.failed = f"{type(exc).__name__}: {exc}"[:200]
        self.seated.set()  # nobody waits for it any longer
        self.started.set()

    async def open_host(self, dial: Dial) -> None:
        """:meth:`connect`, a failure counted instead of raised."""
        try:
            await self.connect(dial)
        except SETUP_ERRORS as exc:
            self._fail(exc)

    async def _open(self) -> None:
        spec, host = self.spec, self.conns[0]
        joined = await host.request(
            {"type": "create", "game": spec.game, "seats": spec.seats, "name": "Load 0"}
        )
        code = _expect(joined, "joined")["room"]
        if host.moved == code:  # resume at the room's address, where its owner will be
            host = await self._follow(host, code, joined["token"])
        await self._seat_guests(code)
        for i, c in enumerate(self.conns[1:], 1):
            _expect(
                await c.request({"type": "join", "room": code, "name": f"Load {i}", "seat": i}),
                "joined",
            )
        if spec.humans < spec.seats:
            host.player.bots = frozenset(range(spec.humans, spec.seats))
            _expect(
                await host.request(
                    {"type": "host", "room": code, "op": "fill_bots", "level": spec.level}
                ),
                "ack",
            )
        for c in self.conns:
            c.match_over.clear()
        if not self.seated.is_set():
            self.seated.set()
            if self.go is not None:
                await self.go.wait()
        _expect(await host.request({"type": "host", "room": code, "op": "start"}), "ack")

    async def _follow(self, host: Conn, code: str, token: str) -> Conn:
        """The host's seat resumed on a new connection to the room's own address."""
        await host.close()
        moved = Conn(host.player, self.pacer, self._frame_arrived, self.think)
        await moved.connect(room_url(self.url, code), self.dial)
        await moved.hello()
        _expect(await moved.request({"type": "resume", "room": code, "token": token}), "joined")
        self.conns[0] = moved
        return moved

    async def _until_over(self, stop: asyncio.Event) -> None:
        """Until the match is over, or :meth:`check` (the run's one watcher, once a second)
        finds the room stalled or the run stopping: no timer of its own per room (a
        ``wait_for`` a second per room was a quarter of a worker's CPU at 500 rooms)."""
        if stop.is_set():
            return
        self.playing = True
        try:
            await self.conns[0].match_over.wait()
        finally:
            self.playing = False

    def check(self, now: float, stopping: bool) -> None:
        """Wake a playing room that stalled (counted) or whose run is stopping."""
        if not self.playing:
            return
        if not stopping:
            if now - max(c.last_frame for c in self.conns) <= STALL_TIMEOUT:
                return
            if self.tally.measuring:
                self.tally.stalls += 1
        self.conns[0].match_over.set()

    async def close(self) -> None:
        await asyncio.gather(*(c.close() for c in self.conns))


def _expect(reply: dict[str, Any], kind: str) -> dict[str, Any]:
    if reply.get("type") != kind:
        raise RuntimeError(f"expected {kind}, got {reply}")
    return reply


@dataclass
class Window:
    """What the measured window saw besides the tally."""

    seconds: float
    connections: int
    load_cpu: float  # CPU seconds of this process in the window
    lag: Histogram = field(default_factory=Histogram)  # the event loop's lateness in it
    failed: int = 0  # rooms that could not be opened (refused or timed out connections)
    setup: float = 0.0  # seconds from the first connection until every room was seated


class Clock(Protocol):
    """When the rooms start, and when the measured window opens and closes (a timer, or the
    lead of several workers)."""

    async def seated(self) -> None:
        """Every room here is seated: return when all may start (those of every worker)."""

    async def opened(self) -> None: ...

    async def closed(self) -> None: ...


@dataclass
class Timed:
    """The window of one load generator: ``warmup`` seconds of play, then ``seconds``."""

    warmup: float
    seconds: float

    async def seated(self) -> None:
        return

    async def opened(self) -> None:
        await asyncio.sleep(self.warmup)

    async def closed(self) -> None:
        await asyncio.sleep(self.seconds)


async def run_rooms(
    url: str,
    spec: RoomSpec,
    rooms: int,
    tally: Tally,
    *,
    warmup: float = 0.0,
    seconds: float = 0.0,
    compression: str | None = None,
    pace: float | None = None,
    on_window: Callable[[bool], None] | None = None,
    clock: Clock | None = None,
    think: Think | None = None,
    dial: Dial | None = None,
    from_start: bool = False,
    on_seated: Callable[[float], None] | None = None,
) -> Window:
    """Play ``rooms`` rooms for ``warmup`` then ``seconds`` measured seconds (or as ``clock``
    says), then let the requests in flight be answered (each counted only if it was sent in
    the window, so that acks, refusals and requests add up).

    ``pace``: actions per second across all rooms (None: as fast as the rules allow);
    ``think``: each player's thinking time before each action; ``dial``: compression and
    source addresses (default: ``compression`` from the system's address).
    ``on_window(True/False)`` runs as the window opens and closes (to read the server's CPU).
    ``from_start``: count from the first frame, setup included (to compare with a server's
    counters read before the run).

    Every room is seated (connections, hellos, joins) before any starts its first match, so
    that setting up and playing are told apart: ``on_seated(seconds)`` runs then, with the
    seconds setting up took (the same for every worker: the lead's ``clock`` says when all
    may start).
    """
    clock = clock or Timed(warmup, seconds)
    dial = dial or Dial(compression)
    interval = rooms / pace if pace else None
    all_rooms = [Room(url, spec, tally, Pacer(interval), think) for _ in range(rooms)]
    seating = asyncio.Semaphore(max(1, CONNECT_AT_ONCE // max(spec.humans - 1, 1)))
    go = asyncio.Event()
    for r in all_rooms:
        r.seating, r.go = seating, go
    if from_start:
        tally.start()
    began = time.perf_counter()
    await _gather_limited(
        [lambda r=r: r.open_host(dial) for r in all_rooms],  # type: ignore[misc]
        CONNECT_AT_ONCE,
    )
    stop = asyncio.Event()
    players = [asyncio.create_task(r.play(stop)) for r in all_rooms]
    players.append(asyncio.create_task(_watch_rooms(all_rooms, stop)))
    try:
        # thousands of rooms take a while to set up on a busy machine: bounded all the same
        setup = max(SETUP_TIMEOUT, rooms * SETUP_PER_ROOM)
        await asyncio.wait_for(asyncio.gather(*(r.seated.wait() for r in all_rooms)), setup)
        seated = time.perf_counter() - began
        if on_seated is not None:
            on_seated(seated)
        await clock.seated()
        go.set()
        await asyncio.wait_for(asyncio.gather(*(r.started.wait() for r in all_rooms)), setup)
        # counted as the window opens: at its close a room between two matches may be
        # reconnecting its players to the next one
        held = sum(c.open for r in all_rooms for c in r.conns)
        window = await _window(tally, clock, on_window, fresh=not from_start)
        window.connections = held
        window.failed = sum(r.failed is not None for r in all_rooms)
        window.setup = seated
        await _drain(tally, all_rooms)
    finally:
        stop.set()
        for task in players:
            task.cancel()
        await asyncio.gather(*players, return_exceptions=True)
        await asyncio.gather(*(r.close() for r in all_rooms), return_exceptions=True)
    return window


async def _watch_rooms(rooms: list[Room], stop: asyncio.Event) -> None:
    """Once a second (and as the run stops), wake the rooms that stalled or must stop."""
    while not stop.is_set():
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 1.0)
        now, stopping = time.monotonic(), stop.is_set()
        for room in rooms:
            room.check(now, stopping)


async def _drain(tally: Tally, rooms: list[Room]) -> None:
    """Stop acting and wait (bounded) for the answers of the requests in flight."""
    for c in (c for r in rooms for c in r.conns):
        c.player.paused = True
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(DRAIN_TIMEOUT):
            await asyncio.gather(*(r.until(r.settled) for r in rooms))
    tally.measuring = False


async def probe_lag(lag: Histogram) -> None:
    """Sleep :data:`LAG_PROBE` over and over; count how late each wake-up came."""
    while True:  # perf_counter: uvloop's own clock only moves in whole milliseconds
        before = time.perf_counter()
        await asyncio.sleep(LAG_PROBE)
        lag.add(max(0.0, time.perf_counter() - before - LAG_PROBE))


async def _window(
    tally: Tally,
    clock: Clock,
    on_window: Callable[[bool], None] | None,
    fresh: bool = True,
) -> Window:
    """Wait for the window to open, then count until it closes: its wall time, this process's
    CPU time and event-loop lag in it (``fresh``: the counts start from zero)."""
    await clock.opened()
    cpu0 = time.process_time()
    start = time.perf_counter()
    if on_window:
        on_window(True)
    if fresh:
        tally.start()
    lag = Histogram()
    probe = asyncio.create_task(probe_lag(lag))
    try:
        await clock.closed()
    finally:
        probe.cancel()
    elapsed = time.perf_counter() - start
    if on_window:
        on_window(False)
    return Window(elapsed, 0, time.process_time() - cpu0, lag)


class EchoConn:
    """One echo-ceiling client."""

    def __init__(self, member: EchoMember) -> None:
        self.member = member
        self.client: WsClient | None = None

    async def connect(self, url: str, compression: str | None) -> EchoConn:
        self.client = WsClient(url, compression, self._text)  # "go" may come with the handshake
        await self.client.start(SETUP_TIMEOUT)
        return self

    def _text(self, data: bytes) -> None:
        member, client = self.member, self.client
        if member.receive(data, time.perf_counter()) and client is not None:
            client.send_text(member.request(time.perf_counter()))

    @property
    def open(self) -> bool:
        return self.client is not None and self.client.open

    async def close(self) -> None:
        if self.client is not None:
            await self.client.close()


async def run_echo(
    url: str,
    groups: int,
    size: int,
    tally: Tally,
    *,
    warmup: float,
    seconds: float,
    compression: str | None,
    on_window: Callable[[bool], None] | None = None,
) -> Window:
    """``groups`` groups of ``size`` clients against the echo server: the same window."""

    async def member(g: int, k: int) -> EchoConn:
        return await EchoConn(EchoMember(tally, k, size)).connect(f"{url}g{g}", compression)

    makers = [lambda g=g, k=k: member(g, k) for g in range(groups) for k in range(size)]
    conns: list[EchoConn] = await _gather_limited(makers, CONNECT_AT_ONCE)  # type: ignore[arg-type]
    try:
        window = await _window(tally, Timed(warmup, seconds), on_window)
        tally.measuring = False
        window.connections = sum(c.open for c in conns)
    finally:
        await asyncio.gather(*(c.close() for c in conns), return_exceptions=True)
    return window


async def hold_idle(
    url: str, count: int, compression: str | None, sources: Rotation | None = None
) -> tuple[list[WsClient], int]:
    """Open ``count`` connections (from ``sources`` in turn) that each say hello and then stay
    idle; return them and how many were refused or failed."""
    rotation = sources or Rotation([])

    async def one() -> WsClient | None:
        welcome: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()

        def arrived(data: bytes) -> None:
            if not welcome.done():
                welcome.set_result(data)

        try:
            local = rotation.local_addr()
            client = await WsClient.connect(url, compression, arrived, SETUP_TIMEOUT, local)
            client.send_text('{"type":"hello","id":1,"protocol":1,"client":"loadtest"}')
            reply = orjson.loads(await asyncio.wait_for(welcome, SETUP_TIMEOUT))
        except (OSError, TimeoutError, InvalidHandshake):
            return None  # refused (e.g. a connection cap) or failed: counted, not fatal
        if reply.get("type") != "welcome":
            await client.close()
            return None
        return client

    opened = await _gather_limited([one] * count, CONNECT_AT_ONCE)
    held = [c for c in opened if c is not None]
    return held, count - len(held)
