"""The load tester's I/O: WebSocket connections that feed every frame to their
:class:`~server.tools.bench.players.Player` (or :class:`~server.tools.bench.players.EchoMember`),
rooms of such connections playing match after match, idle connections, and the measured window.

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
from websockets.exceptions import InvalidHandshake

from server.tools.bench.players import EchoMember, Player
from server.tools.bench.tally import Tally
from server.tools.bench.wsclient import WsClient

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
    """One connection of a scripted human: every frame goes to the player as it arrives; its
    act goes out as soon as it is due (or when the pacer allows); setup requests get replies."""

    def __init__(
        self, player: Player, pacer: Pacer, on_frame: Callable[[], None] | None = None
    ) -> None:
        self.player = player
        self.pacer = pacer
        self.on_frame = on_frame
        self.last_frame = time.monotonic()
        self.match_over = asyncio.Event()
        self.client: WsClient | None = None
        self._pending: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._ids = itertools.count(1)
        self._timer: asyncio.TimerHandle | None = None

    async def connect(self, url: str, compression: str | None) -> None:
        self.client = WsClient(url, compression, self._text)  # before any frame can arrive
        await self.client.start(SETUP_TIMEOUT)

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
        for out in player.receive(msg, now, data):
            self.send(out)
        future = self._pending.get(str(msg.get("ref")))
        if future is not None and not future.done():
            future.set_result(msg)
        if player.match_over:
            self.match_over.set()
        if player.due and self._timer is None:
            at = self.pacer.slot(now)
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
            conn = Conn(Player(self.tally, host=i == 0), self.pacer, self._frame_arrived)
            await conn.connect(self.url, compression)
            self.conns.append(conn)
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
                if not c.open:
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
    room: type[Room] | None = None,
) -> Window:
    """Play ``rooms`` rooms for ``warmup`` then ``seconds`` measured seconds.

    ``pace``: actions per second across all rooms (None: as fast as the rules allow).
    ``on_window(True/False)`` runs as the window opens and closes (to read the server's CPU).
    """
    interval = rooms / pace if pace else None
    make = room or Room  # a subclass: other ways to connect (server/tools/bench/scaleout.py)
    all_rooms = [make(url, spec, tally, Pacer(interval)) for _ in range(rooms)]
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
        elapsed, cpu = await _window(tally, warmup, seconds, on_window)
        held = sum(c.open for r in all_rooms for c in r.conns)
    finally:
        stop.set()
        for task in players:
            task.cancel()
        await asyncio.gather(*players, return_exceptions=True)
        await asyncio.gather(*(r.close() for r in all_rooms), return_exceptions=True)
    return Window(elapsed, held, cpu)


async def _window(
    tally: Tally, warmup: float, seconds: float, on_window: Callable[[bool], None] | None
) -> tuple[float, float]:
    """Wait ``warmup``, then count for ``seconds``: the window's wall time and this process's
    CPU time in it."""
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
    return elapsed, time.process_time() - cpu0


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
        elapsed, cpu = await _window(tally, warmup, seconds, on_window)
        held = sum(c.open for c in conns)
    finally:
        await asyncio.gather(*(c.close() for c in conns), return_exceptions=True)
    return Window(elapsed, held, cpu)


async def hold_idle(url: str, count: int, compression: str | None) -> tuple[list[WsClient], int]:
    """Open ``count`` connections that each say hello and then stay idle; return them and how
    many were refused or failed."""

    async def one() -> WsClient | None:
        welcome: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()

        def arrived(data: bytes) -> None:
            if not welcome.done():
                welcome.set_result(data)

        try:
            client = await WsClient.connect(url, compression, arrived, SETUP_TIMEOUT)
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
