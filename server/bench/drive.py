"""The load tester's I/O: WebSocket connections that feed every frame to their
:class:`~server.bench.players.Player` (or :class:`~server.bench.players.EchoMember`), rooms of
such connections playing match after match, idle connections, and the measured window.

Clients offer permessage-deflate as browsers do unless ``compression`` is None. Everything
goes to 127.0.0.1 and stops by itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import orjson
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed
from websockets.protocol import State

from server.bench.players import EchoMember, Player
from server.bench.tally import Tally

#: Seconds a request made while setting a room up may take.
SETUP_TIMEOUT = 60.0
#: A room whose players receive nothing for this long is counted as stalled and opened anew.
STALL_TIMEOUT = 10.0
#: Connections opened at once (a burst of handshakes must not look like a flood).
CONNECT_AT_ONCE = 100


@dataclass(frozen=True)
class RoomSpec:
    game: str  # "sheepshead" or "shithead"
    seats: int
    humans: int  # scripted human clients; bots of ``level`` take the other seats
    level: str = "basic"


async def open_ws(url: str, compression: str | None) -> ClientConnection:
    return await connect(
        url, compression=compression, proxy=None, open_timeout=SETUP_TIMEOUT, max_size=2**20
    )


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


class Conn:
    """One connection of a scripted human: a reader that hands every frame to the player,
    sends its act as soon as it is due (or when the pacer allows), and answers setup requests."""

    def __init__(
        self,
        ws: ClientConnection,
        player: Player,
        pacer: Pacer,
        on_frame: Callable[[], None] | None = None,
    ) -> None:
        self.ws = ws
        self.player = player
        self.pacer = pacer
        self.on_frame = on_frame
        self.last_frame = time.monotonic()
        self.match_over = asyncio.Event()
        self._pending: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._ids = itertools.count(1)
        self._timer: asyncio.TimerHandle | None = None
        self.reader = asyncio.create_task(self._read())

    async def request(self, payload: dict[str, Any]) -> dict[str, Any]:
        """Send a setup request and await its reply (an error reply is returned, not raised)."""
        ident = f"s{next(self._ids)}"
        future = asyncio.get_running_loop().create_future()
        self._pending[ident] = future
        try:
            await self.ws.send(orjson.dumps({**payload, "id": ident}).decode())
            return await asyncio.wait_for(future, SETUP_TIMEOUT)
        finally:
            self._pending.pop(ident, None)

    async def _read(self) -> None:
        player = self.player
        clock = time.perf_counter
        with contextlib.suppress(ConnectionClosed):
            async for frame in self.ws:
                now = clock()
                self.last_frame = time.monotonic()
                text = frame if isinstance(frame, str) else frame.decode()
                msg = orjson.loads(text)
                for out in player.receive(msg, now, text):
                    await self.ws.send(out)
                future = self._pending.get(str(msg.get("ref")))
                if future is not None and not future.done():
                    future.set_result(msg)
                if player.match_over:
                    self.match_over.set()
                if player.due and self._timer is None:
                    await self._act_when_allowed(now)
                if self.on_frame is not None:
                    self.on_frame()

    async def _act_when_allowed(self, now: float) -> None:
        at = self.pacer.slot(now)
        if at <= now:
            await self.ws.send(self.player.act(time.perf_counter()))
        else:
            self._timer = asyncio.get_running_loop().call_later(at - now, self._paced)

    def _paced(self) -> None:
        self._timer = None
        if self.player.due:
            task = asyncio.ensure_future(self.ws.send(self.player.act(time.perf_counter())))
            task.add_done_callback(_quiet)

    async def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        with contextlib.suppress(Exception):
            await self.ws.close()
        with contextlib.suppress(BaseException):
            await asyncio.wait_for(self.reader, 5)


def _quiet(task: asyncio.Future[Any]) -> None:
    if not task.cancelled():
        task.exception()  # a send on a closing connection: nothing to do


async def _gather_limited(makers: list[Callable[[], Awaitable[Any]]], limit: int) -> list[Any]:
    gate = asyncio.Semaphore(limit)

    async def one(make: Callable[[], Awaitable[Any]]) -> Any:
        async with gate:
            return await make()

    return list(await asyncio.gather(*(one(m) for m in makers)))


class Room:
    """One room of ``spec.humans`` scripted humans, opened anew whenever its match ends."""

    def __init__(self, url: str, spec: RoomSpec, tally: Tally, pacer: Pacer) -> None:
        self.url = url
        self.spec = spec
        self.tally = tally
        self.pacer = pacer
        self.conns: list[Conn] = []
        self.started = asyncio.Event()
        self._changed: asyncio.Event | None = None

    def _frame_arrived(self) -> None:
        if self._changed is not None:
            self._changed.set()

    async def until(self, predicate: Callable[[], bool]) -> None:
        """Wait until ``predicate()`` holds, checking after each frame the room receives."""
        while not predicate():
            self._changed = asyncio.Event()
            await self._changed.wait()

    async def connect(self, compression: str | None) -> None:
        for i in range(self.spec.humans):
            ws = await open_ws(self.url, compression)
            player = Player(self.tally, host=i == 0)
            self.conns.append(Conn(ws, player, self.pacer, self._frame_arrived))
        for c in self.conns:
            welcome = await c.request({"type": "hello", "protocol": 1, "client": "loadtest"})
            if welcome.get("type") != "welcome":
                raise RuntimeError(f"hello refused: {welcome}")

    async def play(self, stop: asyncio.Event) -> None:
        """Open the room, play until its match is over (or it stalls), again, until ``stop``."""
        while not stop.is_set():
            await self._open()
            self.started.set()
            await self._until_over(stop)
            for c in self.conns:
                if c.ws.state is not State.OPEN:
                    return
                await c.request({"type": "leave", "room": c.player.room})

    async def _open(self) -> None:
        spec, host = self.spec, self.conns[0]
        joined = await host.request(
            {"type": "create", "game": spec.game, "seats": spec.seats, "name": "Load 0"}
        )
        code = _expect(joined, "joined")["room"]
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
        _expect(await host.request({"type": "host", "room": code, "op": "start"}), "ack")

    async def _until_over(self, stop: asyncio.Event) -> None:
        host = self.conns[0]
        while not stop.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(host.match_over.wait(), 1.0)
                return
            if time.monotonic() - max(c.last_frame for c in self.conns) > STALL_TIMEOUT:
                if self.tally.measuring:
                    self.tally.stalls += 1
                return

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


async def run_rooms(
    url: str,
    spec: RoomSpec,
    rooms: int,
    tally: Tally,
    *,
    warmup: float,
    seconds: float,
    compression: str | None,
    pace: float | None = None,
    on_window: Callable[[bool], None] | None = None,
) -> Window:
    """Play ``rooms`` rooms for ``warmup`` then ``seconds`` measured seconds.

    ``pace``: actions per second across all rooms (None: as fast as the rules allow).
    ``on_window(True/False)`` runs as the window opens and closes (to read the server's CPU).
    """
    interval = rooms / pace if pace else None
    all_rooms = [Room(url, spec, tally, Pacer(interval)) for _ in range(rooms)]
    await _gather_limited(
        [lambda r=r: r.connect(compression) for r in all_rooms],  # type: ignore[misc]
        max(1, CONNECT_AT_ONCE // max(spec.humans, 1)),
    )
    stop = asyncio.Event()
    players = [asyncio.create_task(r.play(stop)) for r in all_rooms]
    try:
        await asyncio.wait_for(
            asyncio.gather(*(r.started.wait() for r in all_rooms)), SETUP_TIMEOUT
        )
        await asyncio.sleep(warmup)
        cpu0 = time.process_time()
        start = time.perf_counter()
        if on_window:
            on_window(True)
        tally.start()
        await asyncio.sleep(seconds)
        tally.measuring = False
        elapsed = time.perf_counter() - start
        if on_window:
            on_window(False)
        cpu = time.process_time() - cpu0
        held = sum(c.ws.state is State.OPEN for r in all_rooms for c in r.conns)
    finally:
        stop.set()
        for task in players:
            task.cancel()
        await asyncio.gather(*players, return_exceptions=True)
        await asyncio.gather(*(r.close() for r in all_rooms), return_exceptions=True)
    return Window(elapsed, held, cpu)


class EchoConn:
    """One echo-ceiling client."""

    def __init__(self, ws: ClientConnection, member: EchoMember) -> None:
        self.ws = ws
        self.member = member
        self.reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        member = self.member
        clock = time.perf_counter
        with contextlib.suppress(ConnectionClosed):
            async for frame in self.ws:
                text = frame if isinstance(frame, str) else frame.decode()
                if member.receive(text, clock()):
                    await self.ws.send(member.request(clock()))

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self.ws.close()
        with contextlib.suppress(BaseException):
            await asyncio.wait_for(self.reader, 5)


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
        ws = await open_ws(f"{url}g{g}", compression)
        return EchoConn(ws, EchoMember(tally, k, size))

    makers = [lambda g=g, k=k: member(g, k) for g in range(groups) for k in range(size)]
    conns: list[EchoConn] = await _gather_limited(makers, CONNECT_AT_ONCE)  # type: ignore[arg-type]
    try:
        await asyncio.sleep(warmup)
        cpu0 = time.process_time()
        start = time.perf_counter()
        if on_window:
            on_window(True)
        tally.start()
        await asyncio.sleep(seconds)
        tally.measuring = False
        elapsed = time.perf_counter() - start
        if on_window:
            on_window(False)
        cpu = time.process_time() - cpu0
        held = sum(c.ws.state is State.OPEN for c in conns)
    finally:
        await asyncio.gather(*(c.close() for c in conns), return_exceptions=True)
    return Window(elapsed, held, cpu)


async def hold_idle(
    url: str, count: int, compression: str | None
) -> tuple[list[ClientConnection], int]:
    """Open ``count`` connections that each say hello and then stay idle; return them and how
    many were refused or failed."""

    async def one() -> ClientConnection | None:
        try:
            ws = await open_ws(url, compression)
            await ws.send('{"type":"hello","id":1,"protocol":1,"client":"loadtest"}')
            reply = orjson.loads(await asyncio.wait_for(ws.recv(), SETUP_TIMEOUT))
            if reply.get("type") != "welcome":
                await ws.close()
                return None
            return ws
        except (OSError, ConnectionClosed, TimeoutError):
            return None
        except Exception:  # a refused handshake (e.g. a connection cap): counted, not fatal
            return None

    opened = await _gather_limited([one] * count, CONNECT_AT_ONCE)
    held = [ws for ws in opened if ws is not None]
    return held, count - len(held)
