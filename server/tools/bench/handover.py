"""``cardroom bench handover``: a rolling restart under load, and what the players saw of it.

Two ``cardroom serve --redis`` processes, A and B, share a local ``redis-server``. ``--rooms``
Shithead rooms of three Python clients each (``auto_resume``, both URLs) are opened, the host
of each on one process and its other players spread over both, so about half of the clients
are relayed to their room's owner; they play as fast as they can, game after game. Meanwhile
the service is restarted one process at a time: SIGTERM A, start A again on its port, SIGTERM
B, start B again. Then each room plays its game to its end.

Printed: acknowledged actions lost (each ack checked against the room's log in Redis), games
lost (a room that stopped short of its game's end), clients back in their seats, and the
longest pause of each room (the longest time between two accepted actions) as p50/p99/max.
Everything runs on 127.0.0.1, bounded in rooms, time and count, and stops by itself.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import itertools
import random
import signal
import statistics
import tempfile
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

from clients import CardroomClient, CardroomError, ClientError, ReplyTimeout
from protocol.cards import parse_card
from protocol.errors import ErrorCode
from protocol.messages import State
from protocol.views import ActionWire, View
from server.rules.base import Action
from server.store.redis_client import connect as redis_connect
from server.store.redis_client import global_key
from server.store.redis_store import RedisStore
from server.tools.bench import players
from server.tools.bench.drive import probe_lag
from server.tools.bench.histogram import Histogram
from server.tools.bench.procs import RAISED_LIMITS, free_port, serve_process

#: Seats per room: the host and two players.
SEATS = 3
#: Turns after which a room's policy draws its plays at random: two lowest-play policies can
#: pass one Shithead pile back and forth for ever (SH-4.7); a random play leaves such a cycle.
LOOP_TURN = 150
#: Refusals a player simply meets again with its next turn (the room moved under it).
_RETRY = frozenset(
    {
        ErrorCode.STALE_VERSION,
        ErrorCode.SHUTTING_DOWN,
        ErrorCode.NOT_SEATED,
        ErrorCode.NOT_IN_ROOM,
        ErrorCode.NOT_YOUR_TURN,
    }
)


def choose(view: View, turn: int) -> ActionWire:
    """The load's quick policy (:func:`~server.tools.bench.players.choose`), drawing its plays
    at random after :data:`LOOP_TURN` turns."""
    plays = [a for a in view["legal"] if a["kind"] == "play"]
    if plays and turn >= LOOP_TURN and view["phase"] != "swap":
        return random.Random(turn).choice(plays)
    return players.choose(view)


@dataclass
class Table:
    """One room and its players, with what they were told was accepted."""

    code: str
    clients: list[CardroomClient]
    seats: list[int]
    acked: dict[int, tuple[int, ActionWire]] = field(default_factory=dict)
    accepted_at: list[float] = field(default_factory=list)
    games: int = 0  # games played to their end
    finished: bool = False  # the last game reached its end after the restarts
    #: what the players met on the way, with its time: a refusal, a lost reply, a drop
    events: list[tuple[float, str]] = field(default_factory=list)

    def longest_pause(self) -> float:
        """The longest time between two accepted actions of this room."""
        times = self.accepted_at
        return max((b - a for a, b in itertools.pairwise(times)), default=0.0)

    def met(self, what: str) -> None:
        self.events.append((time.monotonic(), what))

    def pause_report(self) -> str:
        """The longest pause and what the players met during it (for a failed bound)."""
        times = self.accepted_at
        if len(times) < 2:
            return "no pause: fewer than two accepted actions"
        start, end = max(itertools.pairwise(times), key=lambda pair: pair[1] - pair[0])
        during = [f"+{t - start:.3f}s {what}" for t, what in self.events if start <= t <= end]
        return f"longest pause {end - start:.3f}s; met meanwhile: {during or 'nothing'}"


async def open_table(urls: Sequence[str], index: int) -> Table:
    """A room hosted through ``urls[index % 2]``, its other players through each URL in turn."""
    ordered = [urls[(index + i) % len(urls)] for i in range(SEATS)]
    clients = [
        await CardroomClient.connect(url, auto_resume=True, urls=[u for u in urls if u != url])
        for url in ordered
    ]
    host = clients[0]
    await host.create("shithead", seats=SEATS, name="P0")
    assert host.room is not None
    for i, c in enumerate(clients[1:], 1):
        await c.join(host.room, name=f"P{i}")
    await host.wait_room(lambda r: all(s.kind == "human" for s in r.seats))
    await host.host("start")
    return Table(host.room, clients, [c.seat or 0 for c in clients])


async def _turn(clients: list[CardroomClient], timeout: float) -> tuple[CardroomClient, View, int]:
    """The first client whose turn it is (or whose game is over), its view and version."""
    waits = {asyncio.create_task(c.wait_turn(timeout=timeout)): c for c in clients}
    done, pending = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    for task in pending:  # only waiting: nothing is lost by stopping it
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
    failures = [exc for task in done if (exc := task.exception()) is not None]
    if failures:  # every failure is looked at (none left unretrieved); one is raised
        raise failures[0]
    task = done.pop()
    state = task.result()
    return waits[task], state.view, state.version


async def play_table(table: Table, restarted: asyncio.Event, *, timeout: float = 20.0) -> None:
    """Play game after game until the restarts are over, then the current game to its end.

    Raises:
        ClientError: a player could not come back, or no turn came in ``timeout`` seconds.
    """
    host, turn, over = table.clients[0], 0, -1
    table.accepted_at.append(time.monotonic())
    while True:
        try:
            client, view, version = await _turn(table.clients, timeout)
        except ConnectionError as exc:  # a process went away: its clients come back by themselves
            table.met(f"waiting for a turn: {exc}")
            await _recovered(table.clients)
            table.met("recovered")
            continue
        if view["phase"] == "over":
            if version <= over:  # a client that has not seen the next game's deal yet
                with contextlib.suppress(ConnectionError):
                    await client.wait_state(functools.partial(_newer, over), timeout)
                continue
            over = version
            table.games += 1
            if restarted.is_set():
                table.finished = True
                return
            await _next_game(host)
            continue
        turn += 1
        action = choose(view, turn)
        try:
            ack = await client.act(action, version=version)
        except CardroomError as exc:
            if exc.code not in _RETRY:
                raise
            table.met(f"seat {client.seat}: act refused: {exc.code}")
            continue
        except ConnectionError as exc:
            table.met(f"seat {client.seat}: act: {exc}")
            await _recovered(table.clients)
            table.met("recovered")
            continue
        except ReplyTimeout as exc:  # lost on its way (it shows as a pause): the turn comes again
            table.met(f"seat {client.seat}: act: {exc} (on {client.url})")
            continue
        assert ack.version is not None and client.seat is not None
        table.acked[ack.version] = (client.seat, action)
        table.accepted_at.append(time.monotonic())


def _newer(version: int, state: State) -> bool:
    return state.version > version


async def _recovered(clients: list[CardroomClient]) -> None:
    await asyncio.gather(*(c.recovered() for c in clients))
    for c in clients:
        if c.recovery_error is not None:
            raise c.recovery_error


async def _next_game(host: CardroomClient) -> None:
    """The host deals the next game of the match (the room is ``between`` games)."""
    for _attempt in range(50):
        try:
            await host.host("next_game")
            return
        except CardroomError as exc:
            if exc.code not in _RETRY and exc.code != ErrorCode.NOT_BETWEEN_GAMES:
                raise
        except ConnectionError:
            await host.recovered()
        await asyncio.sleep(0.02)


def same_action(entry: dict[str, object], seat: int, sent: ActionWire) -> bool:
    stored = Action.from_str(str(entry["a"]))
    cards = sorted(parse_card(c) for c in sent.get("cards", []))
    return entry["s"] == seat and stored.kind == sent["kind"] and sorted(stored.cards) == cards


async def lost_actions(redis_url: str, table: Table) -> int:
    """Acknowledged actions of ``table`` that its stored log does not hold as sent."""
    store = RedisStore(redis_url)
    try:
        stored = await store.load(table.code)
    finally:
        await store.close()
    if stored is None:
        return len(table.acked)
    by_version = {e["v"]: e for e in stored.actions}
    return sum(
        1
        for version, (seat, sent) in table.acked.items()
        if version not in by_version or not same_action(dict(by_version[version]), seat, sent)
    )


def back_in_seat(table: Table) -> int:
    """The table's clients in their room and seat at the end."""
    return sum(
        1
        for c, seat in zip(table.clients, table.seats, strict=True)
        if c.room == table.code and c.seat == seat and not c.closed
    )


@dataclass
class Outcome:
    """What a rolling restart cost the players."""

    tables: list[Table]
    lost: int
    back: int
    restart_seconds: float
    #: this process's event-loop lag over the restarts (a 5 ms sleep's overrun): a pause
    #: its players saw may be the load generator's own, not the service's
    lag: Histogram = field(default_factory=Histogram)

    @property
    def games_lost(self) -> int:
        return sum(1 for t in self.tables if not t.finished)

    @property
    def clients(self) -> int:
        return sum(len(t.clients) for t in self.tables)

    @property
    def pauses(self) -> list[float]:
        return sorted(t.longest_pause() for t in self.tables)

    def summary(self) -> str:
        p = self.pauses
        p99 = p[min(len(p) - 1, round(0.99 * (len(p) - 1)))]
        actions = sum(len(t.acked) for t in self.tables)
        games = sum(t.games for t in self.tables)
        return (
            f"{len(self.tables)} rooms, {self.clients} clients, {actions} actions acked, "
            f"{games} games played; rolling restart took {self.restart_seconds:.1f} s\n"
            f"acked actions lost: {self.lost}; games lost: {self.games_lost}; "
            f"clients back in their seats: {self.back}/{self.clients}\n"
            f"longest pause per room: p50 {statistics.median(p) * 1000:.0f} ms, "
            f"p99 {p99 * 1000:.0f} ms, max {p[-1] * 1000:.0f} ms" + self._lag_line()
        )

    def _lag_line(self) -> str:
        lag = self.lag
        if not lag.count:
            return ""
        return (
            f"\nthe load generator's own loop lag over the restarts: p50 "
            f"{lag.percentile(0.5) * 1000:.1f} ms, p99 {lag.percentile(0.99) * 1000:.0f} ms"
        )


class Service:
    """Processes of ``cardroom serve --redis`` on fixed loopback ports, restarted one by one."""

    def __init__(self, redis_url: str, ports: Sequence[int], *extra: str) -> None:
        self.redis_url = redis_url
        self.ports = list(ports)
        self.extra = (*RAISED_LIMITS, *extra)
        self.procs: dict[int, asyncio.subprocess.Process] = {}
        self._stack = AsyncExitStack()

    @property
    def urls(self) -> list[str]:
        return [f"ws://127.0.0.1:{p}/" for p in self.ports]

    async def start(self, port: int) -> None:
        serving = serve_process(port, "--redis", self.redis_url, *self.extra)
        self.procs[port] = await self._stack.enter_async_context(serving)
        await self.listening(len(self.procs))

    async def listening(self, count: int, timeout: float = 10.0) -> None:
        """Wait until ``count`` processes listen on their cluster channels (a process says it
        serves a moment before it subscribes)."""
        client = redis_connect(self.redis_url)
        try:
            deadline = time.monotonic() + timeout
            while len(await client.pubsub_channels(global_key("proc:*"))) < count:
                if time.monotonic() > deadline:
                    raise TimeoutError(f"fewer than {count} processes listen")
                await asyncio.sleep(0.02)
        finally:
            await client.aclose()

    async def restart(self, port: int) -> None:
        """SIGTERM the process on ``port``, wait for it to exit, start a fresh one there."""
        proc = self.procs.pop(port)
        proc.send_signal(signal.SIGTERM)
        code = await asyncio.wait_for(proc.wait(), 30)
        if code != 0:
            raise RuntimeError(f"the process on port {port} exited with {code}")
        await self.start(port)

    async def close(self) -> None:
        await self._stack.aclose()


@asynccontextmanager
async def service(redis_url: str, processes: int = 2, *extra: str) -> AsyncIterator[Service]:
    """A running :class:`Service` of ``processes`` processes, stopped at the end."""
    svc = Service(redis_url, [free_port() for _ in range(processes)], *extra)
    try:
        for port in svc.ports:
            await svc.start(port)
        yield svc
    finally:
        await svc.close()


async def rolling_restart(svc: Service, rooms: int, warmup: float = 0.5) -> Outcome:
    """``rooms`` tables play while every process of ``svc`` is restarted in turn."""
    tables: list[Table] = []
    for at in range(0, rooms, 20):  # open the rooms a few at a time
        tables += await asyncio.gather(
            *(open_table(svc.urls, i) for i in range(at, min(rooms, at + 20)))
        )
    restarted = asyncio.Event()
    playing = [asyncio.create_task(play_table(t, restarted)) for t in tables]
    lag = Histogram()
    ticking = asyncio.create_task(probe_lag(lag))
    try:
        await asyncio.sleep(warmup)
        began = time.monotonic()
        for port in list(svc.ports):
            await svc.restart(port)
            await asyncio.sleep(warmup)
        took = time.monotonic() - began
        ticking.cancel()
        restarted.set()
        await asyncio.gather(*playing)
    finally:
        for task in [*playing, ticking]:
            task.cancel()
        await asyncio.gather(*playing, ticking, return_exceptions=True)
    lost = sum([await lost_actions(svc.redis_url, t) for t in tables])
    back = sum(back_in_seat(t) for t in tables)
    for t in tables:
        for c in t.clients:
            with contextlib.suppress(ClientError):
                await c.close()
    return Outcome(tables, lost, back, took, lag)


async def _bench(rooms: int) -> Outcome:
    from server.tools.bench.redis_server import RedisServer

    with tempfile.TemporaryDirectory() as tmp, RedisServer(Path(tmp), fsync="everysec") as redis:
        async with service(redis.url) as svc:
            return await rolling_restart(svc, rooms)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="cardroom bench handover")
    parser.add_argument("--rooms", type=int, default=100, help="rooms of three players")
    args = parser.parse_args(argv)
    rooms = max(1, min(args.rooms, 500))
    print(
        f"rolling restart of two `cardroom serve --redis` processes under {rooms} rooms x "
        f"{SEATS} players as fast as they can (loopback; limits raised: {' '.join(RAISED_LIMITS)})"
    )
    outcome = asyncio.run(_bench(rooms))
    print(outcome.summary())
    return 0 if outcome.lost == 0 and outcome.games_lost == 0 else 1
