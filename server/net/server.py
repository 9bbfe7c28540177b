"""``cardroom serve``: one asyncio ``websockets`` server answering WebSockets and plain HTTP
(``/healthz``, ``/metrics``, and the web client's files) on one port.

A client's frames are handled as they arrive (:mod:`server.net.receive` hands them over from
the socket's read, in order; one whose handling must wait holds the connection's later frames
behind it). They are checked here: size, rate, JSON, schema; a refusal never reaches a room.
Room messages go to the room's actor. What a client frame's handling sends goes out once that
frame is handled, in one write per connection (an ack and its state together); what else is
sent (timers, bots, replies from the store) waits until the end of the event loop's turn. A
writer task with a bounded queue takes over for a socket that backs up, so a slow client never
holds up a room.

>>> import asyncio
>>> async def demo() -> str:
...     async with CardroomServer(ServerConfig(port=0)) as server:
...         return server.url.split(":")[0]
>>> asyncio.run(demo())
'ws'
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import functools
import gc
import gzip
import itertools
import logging
import signal
import sys
import time
from collections import deque
from collections.abc import Callable, Coroutine, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, cast

import orjson
from prometheus_client import CONTENT_TYPE_LATEST
from pydantic import ValidationError
from redis.asyncio import Redis
from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.datastructures import Headers, MultipleValuesError
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response
from websockets.protocol import State

from protocol import messages as m
from protocol.errors import ErrorCode
from protocol.paths import parse_ws_path
from server.bots.pool import MAX_QUEUED, MAX_QUEUED_PER_OWNER, BotPool
from server.metrics import Metrics
from server.net import address, api
from server.net.admission import Admission, Cap, Door, Gated
from server.net.devices import DeviceIssuer, WorkChallenges
from server.net.keepalive import Keepalive
from server.net.limits import TokenBucket
from server.net.loop_lag import LoopLag
from server.net.moves import IdentityMoves
from server.net.receive import DirectConnection
from server.net.replays import ReplayCache
from server.net.static import CSP, StaticFiles, accepts_gzip
from server.rooms.event_settings import EventLimits
from server.rooms.inputs import RoomRequest
from server.rooms.refusal import Refusal
from server.rooms.settings import RoomSettings
from server.rules.registry import GAME_NAMES
from server.runtime.cluster import Cluster
from server.runtime.connected import Connected
from server.runtime.events import EventService
from server.runtime.manager import SHUTDOWN, Ownership, RoomManager
from server.runtime.ownership import OneProcess
from server.runtime.queue_service import QueueService, QueueSettings
from server.store.base import RoomStore, StoreUnavailable
from server.store.budgets import (
    MAX_KEYS,
    SITE_MULTIPLE,
    Budgets,
    Daily,
    LiveCounts,
    MemoryBudget,
    Rate,
    levels,
)
from server.store.leaderboard import (
    BadBoard,
    Board,
    Entry,
    Player,
    is_bot_device,
    player_id,
)
from server.store.lease import Leases
from server.store.open import open_stores
from server.store.queue import MemoryQueue, QueueStore
from server.store.redis_queue import RedisQueue
from server.store.redis_sentinel import Durability
from server.store.redis_store import RedisStore

log = logging.getLogger(__name__)

SERVER_NAME = "cardroom/0.1"
#: Refusals that count as a strike: frames no well-behaved client sends.
STRIKES = frozenset(
    {
        ErrorCode.BINARY_FRAME,
        ErrorCode.TOO_LARGE,
        ErrorCode.BAD_JSON,
        ErrorCode.UNKNOWN_TYPE,
        ErrorCode.INVALID_MESSAGE,
        ErrorCode.HELLO_REQUIRED,
    }
)
TRIM_EVERY = 256  # closes between two memory trims while connections stay open
TRIM_DELAY = 1.0  # seconds from the close that asks for a trim to the trim
WEB_ROOT = Path(__file__).resolve().parents[2] / "clients" / "web"
#: Request headers the server (or websockets' handshake) reads as one value: a request that
#: sends one twice is refused with 400 before anything reads it (which one would count is
#: anyone's guess, and websockets raises on it).
SINGLE_HEADERS = (
    "Host",
    "Origin",
    "Upgrade",
    "Accept-Encoding",
    "Authorization",
    "If-None-Match",
    "Sec-WebSocket-Key",
    "Sec-WebSocket-Version",
)


@dataclass(frozen=True)
class ServerConfig:
    host: str = "127.0.0.1"
    port: int = 8765
    max_message: int = 4096  # bytes: a larger frame gets a typed error (too_large)
    max_frame: int = 65536  # bytes: a larger frame closes the connection (1009)
    rate: float = 20.0  # messages a second per connection, on average
    burst: float = 40.0
    strikes: int = 10  # consecutive bad frames before the connection is closed with 1008
    flood_limit: int = 100  # consecutive rate-limited frames before it is closed with 1008
    # browser Origins allowed besides the server's own host ("*": any; None entries, meaning
    # "no Origin", are kept for older callers: clients that send none are always let in)
    origins: tuple[str | None, ...] | None = None
    outbox: int = 512  # frames queued for a client before it is dropped as too slow
    hello_timeout: float = 10.0  # seconds a new connection has to say hello (else 1008)
    # keepalive: every connection pinged this often, closed (1011) if its pong is this late;
    # one sweep for all of them (server/net/keepalive.py), not a task per connection
    ping_interval: float = 20.0
    ping_timeout: float = 20.0
    max_connections: int = 10_000  # open WebSockets in this process; more are refused (503)
    max_per_address: int = 50  # open WebSockets from one client address (IPv6: /64); 503
    # peers whose X-Forwarded-For (or Forwarded) names the client (CIDRs; none by default)
    trusted_proxies: tuple[str, ...] = ()
    # the trusted proxy writes X-Forwarded-Host (or Forwarded host=) itself, over the client's:
    # the origin check reads it instead of Host (off: Host, which a proxy passes as it came)
    forwarded_host: bool = False
    # host names the server answers to (lower case, no port); a request naming another Host
    # gets 421 but /healthz and /metrics (DNS rebinding); empty: any
    allowed_hosts: tuple[str, ...] = ()
    proxy_header: address.ProxyHeader = address.ProxyHeader.X_FORWARDED_FOR
    open_timeout: float = 10.0  # seconds from the accept to the end of the handshake
    max_handshakes: int = 1000  # handshakes in progress (at most a quarter of the fd limit)
    # ... from one peer address (a proxy: not capped); a page or a NAT opening many at once
    # is through in milliseconds, so the cap only bites on connections that hold back
    max_handshakes_per_address: int = 64
    # connections the kernel completes and queues before the server accepts them (capped by
    # net.core.somaxconn): asyncio's default of 100 drops the SYNs of a rolling restart's
    # reconnections past it, and each dropped one waits a second or more for its retransmission
    backlog: int = 1024
    trim_memory: bool = True  # collect and return freed memory to the system after closes
    # every this many new connections, what is alive leaves the collector's sight (gc.freeze):
    # a burst of arrivals is never one older collection's work (one stopped the server 0.5 s
    # at 10,000 people); 0: never. It acts on the whole
    # process, so it is off here and on (500) in `cardroom serve`, a process of its own
    gc_freeze_every: int = 0
    # seconds between two probes of the event loop's lateness (cardroom_loop_lag_seconds in
    # /metrics: server/net/loop_lag.py); 0: none
    loop_lag_interval: float = 0.01
    # permessage-deflate: "off" declines it (measured: it cost about a quarter of the server's
    # CPU per action and 40 KiB per connection), "deflate" accepts it
    compression: Literal["off", "deflate"] = "off"
    rooms: RoomSettings = field(default_factory=RoomSettings)
    events: EventLimits = field(default_factory=EventLimits)  # what strangers may open
    web_root: Path | None = WEB_ROOT
    redis_url: str | None = None  # rooms, history and leaderboards in Redis (None: memory)
    # when a room's write to Redis counts as stored: on the primary, or on a replica too
    durability: Durability = Durability.LOCAL
    # with Redis: a room created for a /ws client is let go at once for the process a proxy
    # routes its /ws/CODE to (server/runtime/placement.py); off: it stays where it was made
    place_rooms: bool = True
    bot_workers: int | None = None  # processes for slow bots (None: one a core, up to 4)
    # bot requests the rooms of one address may have waiting; more get the basic bot at once
    bot_queue_per_address: int = MAX_QUEUED_PER_OWNER
    bot_queue: int = MAX_QUEUED  # bot requests waiting in all; more get the basic bot at once
    history_rate: float = 2.0  # API requests (history, boards, daily) a second per address (429)
    history_burst: float = 20.0  # ... in a burst
    # requests for rooms that do not exist (room_not_found) a second per address, and in a
    # burst: past them the address's requests for rooms it is not in are too_many_misses, hit
    # or miss, until the budget refills (room codes are not to be found by guessing)
    miss_rate: float = 0.2
    miss_burst: float = 10.0
    miss_floor: float = 0.05  # seconds a miss is answered after it arrived, at the soonest
    replay_cache_bytes: int = 64 * 1024 * 1024  # replayed games' steps kept (LRU, JSON bytes)
    # addresses whose budgets a process keeps in memory, each budget (one in use is never
    # forgotten: past it, new addresses are refused until one is worth nothing)
    budget_addresses: int = MAX_KEYS
    # an IPv6 /48 gets this many times the budgets of one /64 (its client address key)
    ipv6_site_multiple: float = SITE_MULTIPLE
    devices_per_address: int = 3  # device identities issued to one address a UTC day
    # ...and past those, identities earned by a proof of work (bits: its difficulty)
    worked_devices_per_address: int = 3
    identity_work_bits: int = 16
    # identity move codes asked for or tried (guesses) a second per address, and in a burst
    move_rate: float = 1 / 60
    move_burst: float = 5.0

    queue: QueueSettings = field(default_factory=QueueSettings)  # Play now


def _utc_day() -> str:
    return time.strftime("%Y-%m-%d", time.gmtime())


class Connection:
    """One client: its socket, its limits and its outgoing frames.

    The rooms' frames for a connection wait in ``pending`` until the client frame being handled
    is done, or else the end of the event loop's turn, when the server flushes every
    connection that has some: while the socket keeps up
    they go straight to it, all of them in one write (an ack and its state, a state and the
    room's news). Once its buffer backs up, a writer task (started then) sends them one at a
    time with websockets' flow control, so a slow client never holds up a room; more than
    ``outbox`` frames waiting closes it (1013).
    """

    def __init__(
        self,
        conn_id: int,
        ws: ServerConnection,
        config: ServerConfig,
        mark: Callable[[Connection], None],
    ) -> None:
        self.id = conn_id
        self.ws = ws
        self.outbox = config.outbox
        self.pending: list[str] = []
        self.queue: asyncio.Queue[str | None] | None = None  # the slow path, once needed
        self.writer: asyncio.Task[None] | None = None
        self._queued = 0  # frames given to the writer and not yet written by it
        self._mark = mark
        self.bucket = TokenBucket(config.rate, config.burst, time.monotonic())
        self.greeted = False
        self.bot = False  # its hello said it is a program (an identity earned is a bot's)
        self.strikes = 0
        self.flooded = 0
        self.closing = False
        self.address = _address(ws)
        # no extension negotiated (compression declined): a frame is its header and the text
        self.plain = not ws.protocol.extensions
        self.limited_notice = 0.0
        self.closer: asyncio.Future[None] | None = None
        self.hello_timer: asyncio.TimerHandle | None = None  # until the hello
        # frames wait here, in order, while an earlier one's handling awaits something
        self.inbox: deque[tuple[str | bytes, float]] | None = None  # made when first needed
        self.handling: asyncio.Task[None] | None = None

    def send(self, text: str) -> None:
        if self.closer is not None:
            return  # being closed: nothing more goes out
        pending = self.pending
        if self.queue is None and len(pending) < self.outbox:  # the usual case: no writer
            pending.append(text)
            if len(pending) == 1:
                self._mark(self)
            return
        waiting = len(self.pending) + (self.queue.qsize() if self.queue is not None else 0)
        if waiting >= self.outbox:
            log.warning("connection %d is too slow; closing it", self.id)
            self.pending.clear()
            if self.writer is not None:
                self.writer.cancel()
            self.closer = asyncio.ensure_future(self.ws.close(1013, "too slow to keep up"))
            return
        self.pending.append(text)
        if len(self.pending) == 1:
            self._mark(self)

    def flush(self) -> None:
        """Write the pending frames: at once if the socket keeps up, else through the writer."""
        texts, self.pending = self.pending, []
        ws = self.ws
        if not texts or ws.protocol.state is not State.OPEN:
            return
        # not while the writer still holds a frame (taken from its queue, not yet written):
        # writing past it would put a newer state before an older one
        caught_up = self._queued == 0
        if caught_up and not ws.transport.get_write_buffer_size():
            if self.plain:  # no extension: the frames are framed here, all in one write
                ws.transport.write(framed(texts))
                return
            for text in texts:
                ws.protocol.send_text(text.encode())
            ws.transport.writelines(ws.protocol.data_to_send())
            return
        if self.queue is None:
            self.queue = asyncio.Queue(self.outbox)
            self.writer = asyncio.create_task(self._write(self.queue), name=f"writer-{self.id}")
        for text in texts:
            self.queue.put_nowait(text)  # room for them: send() counted them
        self._queued += len(texts)

    async def _write(self, queue: asyncio.Queue[str | None]) -> None:
        with contextlib.suppress(ConnectionClosed):
            while True:
                text = await queue.get()
                if text is None:
                    return
                try:
                    await self.ws.send(text)
                finally:
                    self._queued -= 1

    def finish(self) -> None:
        """The connection is gone: end the writer, if one was started."""
        self.pending.clear()
        if self.queue is not None:
            with contextlib.suppress(asyncio.QueueFull):
                self.queue.put_nowait(None)

    async def drain(self, timeout: float) -> None:
        """Send what is waiting (used at shutdown and before a policy close)."""
        self.flush()
        if self.queue is None or self.writer is None:
            return
        with contextlib.suppress(asyncio.QueueFull):
            self.queue.put_nowait(None)
        with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
            await asyncio.wait_for(asyncio.shield(self.writer), timeout)


class CardroomServer:
    """The whole server of one process. Use as ``async with CardroomServer(config) as s``."""

    def __init__(
        self,
        config: ServerConfig | None = None,
        store: RoomStore | None = None,
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.config = config or ServerConfig()
        # the wall clock of the rooms and the API (the daily match's day; a test's own clock)
        self.clock = clock
        self.stores = open_stores(self.config.redis_url, store, self.config.durability)
        self.store = self.stores.rooms
        self.metrics = Metrics()
        if isinstance(self.store, RedisStore) and self.store.batch is not None:
            batch = self.store.batch
            self.metrics.watch_batches(batch.sizes, batch.round_trips, batch.queue_waits)
        # who is connected, and where each client is: the one place it is known
        self.connected: Connected[Connection] = Connected()
        ownership: Ownership = OneProcess()
        if self.stores.redis is not None:  # several processes on one Redis hold rooms by lease
            leases = Leases(self.stores.redis)
            ownership = Cluster(
                self.stores.redis,
                leases,
                self.connected,
                self.stores.health,
                bus=self.stores.bus,
                metrics=self.metrics,
                places_rooms=self.config.place_rooms,
            )
        c = self.config
        # per-address budgets: shared through Redis by every process of the service
        self.budgets = Budgets(self.stores.redis, c.ipv6_site_multiple, c.budget_addresses)
        self.metrics.watch_budgets(self.budgets.counts)
        # open WebSockets per address, as the other processes of one Redis count them
        self.live_sockets = (
            None if self.stores.redis is None else LiveCounts(self.stores.redis, "sockets")
        )
        rooms = c.rooms
        self.manager = RoomManager(
            self.store,
            self.metrics,
            self.config.rooms,
            clients=self.connected,
            ownership=ownership,
            boards=self.stores.boards,
            ratings=self.stores.ratings,
            health=self.stores.health,
            clock=clock,
            # a store that outlives this process: rooms come back when their players do
            load_on_demand=self.stores.redis is not None,
            create_budget=self.budgets.make(
                "rooms", Rate(rooms.rooms_per_minute / 60.0, rooms.rooms_burst)
            ),
            bot_pool=BotPool(
                self.config.bot_workers,
                max_queued=self.config.bot_queue,
                max_queued_per_owner=self.config.bot_queue_per_address,
            ),
        )
        # Play now: one line per game, in Redis for every process of the service
        queue_store: QueueStore = MemoryQueue()
        relay = None
        owner = "local"
        if self.stores.redis is not None and isinstance(ownership, Cluster):
            queue_store = RedisQueue(self.stores.redis)
            cluster = ownership
            owner = cluster.owner

            def relay(to: str, conn: int, text: str) -> None:
                cluster.post(to, {"k": "frame", "conn": conn, "text": text})

        q = c.queue
        self.queue = QueueService(
            queue_store,
            self.manager,
            self.connected,
            q,
            owner=owner,
            relay=relay,
            budget=self.budgets.make("queue", Rate(q.joins_per_minute / 60.0, q.joins_burst)),
            clock=clock,
            ratings=self.stores.ratings,
        )
        ev = c.events
        self.events = EventService(
            self.stores.events,
            self.manager,
            self.connected,
            ev,
            self.budgets.make("events", Rate(ev.events_per_minute / 60.0, ev.events_burst)),
            clock=clock,
        )
        self.manager.hands = self.events.hand_played  # the tables' hands, to their events
        self._ids = itertools.count(1)
        self._ws: Server | None = None
        self._stopping = False
        self.static: StaticFiles | None = None
        self._closes = 0
        self._trim: asyncio.TimerHandle | None = None
        self._arrivals = 0  # connections opened since the last freeze
        self.admission = Admission(
            Door(
                proxies=address.Proxies.parse(c.trusted_proxies, c.proxy_header),
                origins=tuple(o for o in c.origins or () if o is not None),
                forwarded_host=c.forwarded_host,
                allowed_hosts=tuple(h.lower() for h in c.allowed_hosts),
                max_connections=c.max_connections,
                max_per_address=c.max_per_address,
                max_handshakes=c.max_handshakes,
                max_handshakes_per_address=c.max_handshakes_per_address,
                open_timeout=c.open_timeout,
            ),
            self.metrics,
        )
        # every read's budget per address (the HTTP API's and the leaderboard message's): a
        # replay costs CPU, so one address may not ask for many
        self.history_budget = self.budgets.make("api", Rate(c.history_rate, c.history_burst))
        # misses answered by this process: its own, taken and given back on the way (see _route)
        self.misses = MemoryBudget(
            "misses", Rate(c.miss_rate, c.miss_burst), c.ipv6_site_multiple, c.budget_addresses
        )
        self.replays = ReplayCache(c.replay_cache_bytes)
        self.ladder_cache = api.LadderCache()  # /api/ladder, per game, for seconds
        self.metrics.watch_replays(self.replays)
        # signs with a key of the server secret once start() has it (until then: none issued)
        self.devices = DeviceIssuer(None)
        self.device_budget = self.budgets.make("devices", Daily(c.devices_per_address))
        self.worked_budget = self.budgets.make("worked", Daily(c.worked_devices_per_address))
        self.work: WorkChallenges | None = None  # with the devices' key (_use_key)
        self.metrics.watch_devices(self.devices)
        self.moves = IdentityMoves(
            self.stores.moves, self.budgets.make("moves", Rate(c.move_rate, c.move_burst))
        )
        self._secret: asyncio.Task[None] | None = None  # reading the secret while the store is away
        self._dirty: list[Connection] = []  # connections with frames to flush this turn
        self._flush_due = False  # a flush at the end of this turn is scheduled
        self.keepalive = Keepalive(c.ping_interval, c.ping_timeout, self._direct_sockets)
        self.metrics.watch_keepalive(lambda: self.keepalive.closed)
        self.metrics.watch_keepalive_pings(
            lambda: self.keepalive.pinged, lambda: self.keepalive.spared
        )
        self._keepalive: asyncio.Task[None] | None = None
        self.loop_lag = LoopLag(c.loop_lag_interval, self.metrics.loop_lag)

    def _direct_sockets(self) -> Iterator[DirectConnection]:
        """Every open connection's socket (the keepalive's sweep), picked out as the sweep
        draws them from a snapshot (a copy made in C: ~30 µs at 10,000)."""
        for conn in list(self.connected.sockets.values()):
            if isinstance(conn.ws, DirectConnection):
                yield conn.ws

    # outgoing frames

    def _mark(self, conn: Connection) -> None:
        """``conn`` has frames to send: flush it (with every other) once the client frame being
        handled is done (:meth:`_received`), else at the end of this turn."""
        if not self._flush_due:
            self._flush_due = True
            asyncio.get_running_loop().call_soon(self._flush_turn)
        self._dirty.append(conn)

    def _flush_turn(self) -> None:
        self._flush_due = False
        self._flush()

    def _flush(self) -> None:
        dirty, self._dirty = self._dirty, []
        if not dirty:
            return
        sent = 0
        for conn in dirty:
            sent += len(conn.pending)
            conn.flush()
        self.metrics.frames_sent += sent
        self.metrics.flushes += 1

    # lifecycle

    async def start(self) -> None:
        root = self.config.web_root
        if root is not None and (root / "index.html").is_file():
            # read once, off the event loop: serving a file never touches the disk
            self.static = await asyncio.to_thread(StaticFiles.load, root)
        try:
            self._use_key((await self.manager.keys()).devices())
        except Refusal:  # the store is away: no identities until it is back
            self._secret = asyncio.create_task(self._sign_devices())
        await self.manager.start()
        self.queue.start()
        bus = self.stores.bus or self.stores.redis
        if isinstance(bus, Redis):  # the events' changes, told to the other processes
            self.events.use_bus(bus)
        if not self.manager.load_on_demand:
            await self.manager.restore()
        try:  # the tables of a round a process was killed before opening
            await self.events.resume()
        except (Refusal, StoreUnavailable):
            log.warning("events' tables not checked: the store is away")
        self._ws = await serve(
            self._handle,
            self.config.host,
            self.config.port,
            process_request=self._http,
            max_size=self.config.max_frame,
            open_timeout=self.config.open_timeout,
            backlog=self.config.backlog,
            server_header=SERVER_NAME,
            compression="deflate" if self.config.compression == "deflate" else None,
            ping_interval=None,  # self._keepalive pings them all
            ping_timeout=None,
            # counted from the accept (see server.net.admission); a DirectConnection
            create_connection=cast(
                type[ServerConnection], functools.partial(Gated, door=self.admission)
            ),
        )
        self._keepalive = asyncio.create_task(self.keepalive.run(), name="keepalive")
        self.loop_lag.start()
        if self.live_sockets is not None:
            self.live_sockets.start()

    def _use_key(self, key: bytes) -> None:
        """Issue identities, and offer work for more, under ``key``."""
        self.devices.use(key)
        self.work = WorkChallenges(key, self.config.identity_work_bits)

    async def _sign_devices(self, retry: float = 1.0) -> None:
        """Give the device issuer its key once the server secret can be read from the store
        (meanwhile connections get no identity and nobody is ranked)."""
        while True:
            try:
                self._use_key((await self.manager.keys()).devices())
                return
            except Refusal:
                await asyncio.sleep(retry)

    @property
    def port(self) -> int:
        assert self._ws is not None
        sockets = self._ws.sockets
        port: int = sockets[0].getsockname()[1]
        return port

    @property
    def url(self) -> str:
        return f"ws://{self.config.host}:{self.port}/"

    async def stop(self, timeout: float = 5.0) -> None:
        """Graceful and idempotent: stop accepting, tell clients, persist rooms, close (1001)."""
        if self._stopping or self._ws is None:
            return
        self._stopping = True
        await self.queue.stop()  # the entries of this process's people keep their places
        # The listener stays open while rooms are saved, so a load balancer polling /healthz
        # sees "503 stopping" and new WebSockets are turned away with 1001.
        # rooms stop after what they queued, records saved, handed to a live peer (or leases
        # released); only then are clients told, so those that come back at once find them
        await self.manager.shutdown()
        await self.events.stop()
        notice = m.dump(m.Closing(reason=SHUTDOWN))
        for conn in list(self.connected.sockets.values()):
            if conn.id not in self.manager.told:  # those of rooms handed over were told
                conn.send(notice)
        await asyncio.gather(
            *(c.drain(timeout / 2) for c in list(self.connected.sockets.values())),
            return_exceptions=True,
        )
        self._ws.server.close()  # no new connections
        if self._secret is not None:
            self._secret.cancel()
        if self._trim is not None:
            self._trim.cancel()
        if self._keepalive is not None:
            self._keepalive.cancel()
        self.loop_lag.stop()
        self._ws.close(close_connections=True)
        try:
            await asyncio.wait_for(asyncio.shield(self._ws.wait_closed()), timeout)
        except TimeoutError:
            # a peer that never answers the closing handshake (one that connected while the
            # rooms were saved, say) would keep its socket for websockets' close_timeout,
            # after this server is gone: cut what is left
            for ws in list(self._ws.all_connections):
                ws.transport.abort()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._ws.wait_closed(), 1.0)
        if self.live_sockets is not None:
            await self.live_sockets.stop()
        await self.stores.close()

    async def __aenter__(self) -> CardroomServer:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    # HTTP on the same port

    async def _http(self, connection: ServerConnection, request: Request) -> Response | None:
        assert isinstance(connection, Gated)
        headers = request.headers
        if any(len(headers.get_all(name)) > 1 for name in SINGLE_HEADERS):
            return self._unreadable("duplicate_header")
        try:
            return await self._request(connection, request)
        except MultipleValuesError:  # any other header read as one: the same, not a 500
            return self._unreadable("duplicate_header")

    def _unreadable(self, reason: str) -> Response:
        """A 400 for a request the server cannot read one way: counted, never logged (a
        client sends as many as it likes)."""
        self.metrics.http_refused.labels(reason).inc()
        return _response(400, b"a header was sent more than once\n", "text/plain")

    async def _request(self, connection: Gated, request: Request) -> Response | None:
        self.admission.requested(connection, request)  # _address(connection) is known now
        path, _, query = request.path.partition("?")
        if path not in ("/healthz", "/metrics") and not self.admission.host_allowed(
            connection.host
        ):
            self.metrics.http_refused.labels("host").inc()
            return _response(421, b"this server does not answer to that host name\n", "text/plain")
        if request.headers.get("Upgrade", "").lower() == "websocket":
            if parse_ws_path(request.path) is None:  # /, /ws and /ws/CODE only
                return _response(
                    404, b"no WebSocket here: connect to /ws or /ws/CODE\n", "text/plain"
                )
            return await self._admit(connection, request.headers)
        if path == "/healthz":
            return await self._health()
        if path.startswith("/api/"):
            return await self._api(path, query, request.headers, _address(connection))
        if path == "/metrics":
            self.metrics.connections.set(len(self.connected.sockets))
            return _response(200, self.metrics.render(), CONTENT_TYPE_LATEST)
        return self._static(path, request.headers)

    async def _more_reads(self, address: str, reads: int) -> bool:
        """Spend ``reads`` more of ``address``'s read budget (a long replay's cost)."""
        for _ in range(reads):
            if not await self.history_budget.take(address):
                return False
        return True

    async def _health(self) -> Response:
        """200 ``ok``; 503 ``stopping``, or ``degraded`` while the room store is away."""
        if self._stopping:
            return _response(503, b"stopping\n", "text/plain")
        if not await self.stores.health.check():
            return _response(503, b"degraded: room store unavailable\n", "text/plain")
        return _response(200, b"ok\n", "text/plain")

    async def _api(self, path: str, query: str, headers: Headers, address: str) -> Response:
        parts = path.strip("/").split("/")
        history = len(parts) == 4 and parts[:2] == ["api", "rooms"] and parts[3] == "history"
        player = len(parts) == 3 and parts[1] == "players"
        route = (
            "history"
            if history
            else "players"
            if player
            else "event"
            if len(parts) == 3 and parts[:2] == ["api", "events"]
            else {"leaderboard": "leaderboard", "daily": "daily", "ladder": "ladder"}.get(
                parts[1] if len(parts) == 2 else "", "other"
            )
        )
        # one budget per client address for every API request (history, boards, daily, players)
        if not await self.history_budget.take(address):
            status, body = 429, _API_RATE_LIMITED
        elif route == "leaderboard":
            status, body = await api.leaderboard(self.stores.boards, query)
        elif route == "players":
            status, body = await api.player(self.stores.ratings, parts[2])
        elif route == "ladder":
            status, body = await self.ladder_cache.get(self.stores.ratings, query)
        elif route == "history":
            token = api.bearer_token(headers.get("Authorization"))
            status, body = await api.history(
                self.store,
                parts[2],
                query,
                token,
                self.replays,
                now=self.clock(),
                hide_daily=self.config.rooms.daily_alone,
                charge=lambda reads: self._more_reads(address, reads),
                public=self.events.table_public,
            )
        elif route == "event":
            status, body = await self._event_api(parts[2])
        elif route == "daily":
            try:
                keys = await self.manager.keys()  # no --secret: the store's, made once
            except Refusal:
                status, body = 503, b'{"error":"store_unavailable","message":"try again"}'
            else:
                status, body = api.daily(keys, query, self.clock())
        else:
            status, body = 404, b'{"error":"not_found","message":"no such API"}'
        self.metrics.api.labels(route, str(status)).inc()
        extra = [("Cache-Control", "no-store")]
        if status == 429:
            extra.append(("Retry-After", str(max(1, round(1 / self.config.history_rate)))))
        if len(body) > 1024 and accepts_gzip(headers.get("Accept-Encoding", "")):
            # a long game's replay steps are hundreds of KB of JSON and compress ~40x
            body = await asyncio.to_thread(gzip.compress, body, 6)
            extra += [("Content-Encoding", "gzip"), ("Vary", "Accept-Encoding")]
        return _response(status, body, "application/json", extra)

    async def _event_api(self, code: str) -> tuple[int, bytes]:
        """``GET /api/events/CODE``: the event's public state (its page)."""
        try:
            info = await self.events.info(code.upper()[:16])
        except (Refusal, StoreUnavailable):
            return 503, b'{"error":"store_unavailable","message":"try again"}'
        if info is None:
            return 404, b'{"error":"event_not_found","message":"no event has that code"}'
        return 200, info.model_dump_json().encode()

    async def _admit(self, connection: Gated, headers: Headers) -> Response | None:
        """Refuse a WebSocket handshake from a foreign browser page (403) or over the global
        or per-address cap (503)."""
        # an IPv6 client counts in its /48 too, which holds a multiple of one /64's sockets;
        # with Redis, the other processes' sockets from the address count too
        here = 0
        for key, multiple in levels(_address(connection), self.config.ipv6_site_multiple):
            count = self.connected.from_address(key)
            if self.live_sockets is not None:
                count += await self.live_sockets.others(key)
            here = max(here, int(count // multiple))
        match self.admission.admit(connection, headers, len(self.connected.sockets), here):
            case None:
                return None
            case Cap.ORIGIN:
                return _response(403, b"this page's origin may not connect\n", "text/plain")
            case _:
                return _response(503, b"too many connections; try again later\n", "text/plain")

    def _static(self, path: str, headers: Headers) -> Response:
        """The web client's files (from memory), ``/r/CODE`` share links, else 404."""
        if self.static is None:
            if path in ("", "/"):
                return _response(200, _ABOUT, "text/plain; charset=utf-8")
            return _response(404, b"not found\n", "text/plain")
        found = self.static.lookup(path)
        if found is None:
            return _response(404, b"not found\n", "text/plain")
        extra = [
            ("ETag", found.etag),
            # no hashed file names: let the browser keep files but check them (304) each load
            ("Cache-Control", "no-cache"),
            ("Vary", "Accept-Encoding"),
            ("X-Content-Type-Options", "nosniff"),
            ("Content-Security-Policy", CSP),
            ("Referrer-Policy", "no-referrer"),
        ]
        if found.etag in headers.get("If-None-Match", ""):
            return _response(304, b"", None, extra)
        body = found.body
        if found.gzip is not None and accepts_gzip(headers.get("Accept-Encoding", "")):
            body = found.gzip
            extra.append(("Content-Encoding", "gzip"))
        return _response(200, body, found.content_type, extra)

    # WebSockets

    async def _handle(self, ws: ServerConnection) -> None:
        if self._stopping:
            await ws.close(1001, "server shutting down")
            return
        conn = Connection(next(self._ids), ws, self.config, self._mark)
        self.connected.open(conn.id, conn, conn.address)
        self._count_live(conn.address)
        where = parse_ws_path(ws.request.path if ws.request is not None else "/")
        if where is not None and where.routed:  # it follows its room to the room's address
            self.connected.routed(conn.id)
        self.metrics.connections.set(len(self.connected.sockets))
        self._arrived()
        conn.hello_timer = asyncio.get_running_loop().call_later(
            self.config.hello_timeout, self._hello_overdue, conn
        )
        try:
            assert isinstance(ws, DirectConnection)
            # frames are handled as they arrive (see _received); this task only waits for the end
            ws.deliver_to(functools.partial(self._received, conn))
            await ws.wait_closed()
            if conn.handling is not None:  # the last frames' handling, before the goodbye
                await asyncio.shield(conn.handling)
        finally:
            if conn.hello_timer is not None:
                conn.hello_timer.cancel()
                conn.hello_timer = None
            self.queue.disconnected(conn.id)  # out of the Play now line
            self.manager.disconnected(conn.id)  # gone from the rooms and from self.connected
            self.events.unfollow(conn.id)
            self._count_live(conn.address)
            self.metrics.connections.set(len(self.connected.sockets))
            conn.finish()
            if isinstance(ws, DirectConnection):  # freed by reference counting, not the collector
                ws.release()
            self._closed_some()

    def _count_live(self, address: str) -> None:
        """Tell the other processes how many sockets this one has from ``address`` now."""
        if self.live_sockets is not None:
            for key, _ in levels(address):
                self.live_sockets.set(key, self.connected.from_address(key))

    def _arrived(self) -> None:
        """Every ``gc_freeze_every`` arrivals, freeze what is alive (O(1): the collector's lists
        are spliced). What arrivals leave behind (connections, rooms, seats) lives long, and an
        older collection would visit all of it at once; frozen objects are still freed by
        reference counting (no cycle is left in play: a run of 2,000 rooms collected none), and
        a cycle among them is collected when nobody is connected (:func:`trim_memory`)."""
        every = self.config.gc_freeze_every
        if every <= 0:
            return
        self._arrivals += 1
        if self._arrivals >= every:
            self._arrivals = 0
            gc.freeze()
            self.metrics.gc_freezes += 1

    def _hello_overdue(self, conn: Connection) -> None:
        if conn.greeted or conn.closing:
            return
        self.metrics.refusals.labels(ErrorCode.HELLO_TIMEOUT.value).inc()
        conn.send(_err(ErrorCode.HELLO_TIMEOUT, "no hello in time; closing the connection", None))
        conn.closing = True

        async def close() -> None:
            await conn.drain(1.0)
            await conn.ws.close(1008, "no hello in time")

        conn.closer = asyncio.ensure_future(close())

    def _closed_some(self) -> None:
        """After a burst of closes, hand freed memory back to the system (glibc keeps it)."""
        self._closes += 1
        if not self.config.trim_memory or self._trim is not None:
            return
        if not self.connected.sockets or self._closes >= TRIM_EVERY:
            # a moment later, once the closed connections' last references are dropped
            loop = asyncio.get_running_loop()
            self._trim = loop.call_later(TRIM_DELAY, self._trim_now)

    def _trim_now(self) -> None:
        self._trim = None
        self._closes = 0
        trim_memory(collect=not self.connected.sockets)

    def _received(self, conn: Connection, frame: str | bytes) -> None:
        """A frame from ``conn``: handled now, or after the earlier one still being handled."""
        received = time.perf_counter()
        if conn.handling is not None:  # keep the order: after the one that is waiting
            if not conn.inbox:
                _pause(conn.ws)  # no more reading from this client until it has caught up
            if conn.inbox is None:
                conn.inbox = deque()
            conn.inbox.append((frame, received))
            return
        later = self._frame(conn, frame, received)
        if later is not None:
            conn.handling = asyncio.create_task(self._finish(conn, later))
        # its replies leave now, not at the end of the turn: with 10,000 people, one turn
        # reads 30-80 frames back to back, and the first one's view waited for all of them
        # and for their flush, 13-22 ms
        self._flush()

    async def _finish(self, conn: Connection, later: Coroutine[Any, Any, None]) -> None:
        """Finish a frame's handling that had to wait, then handle the frames behind it."""
        try:
            await later
            while conn.inbox:
                frame, received = conn.inbox.popleft()
                more = self._frame(conn, frame, received)
                if more is not None:
                    await more
                self._flush()
        finally:
            conn.handling = None
            conn.inbox = None
            _resume(conn.ws)

    def _frame(
        self, conn: Connection, frame: str | bytes, received: float
    ) -> Coroutine[Any, Any, None] | None:
        """Handle one frame; what has to wait (the store, another process) is returned, to be
        awaited before the connection's next frame."""
        if conn.closing:
            return None  # dropped: the connection is being closed
        now = time.monotonic()
        if not conn.bucket.allow(now):
            self.metrics.refusals.labels("rate_limited").inc()
            conn.flooded += 1
            if now - conn.limited_notice > 1.0:  # one notice a second, not one per frame
                conn.limited_notice = now
                notice = "slow down: too many messages"
                conn.send(_err(ErrorCode.RATE_LIMITED, notice, _peek_ref(frame)))
            if conn.flooded >= self.config.flood_limit:
                self._close_policy(conn, "flooding")
            return None
        conn.flooded = 0
        ref = None
        try:
            if isinstance(frame, bytes):
                raise Refusal(ErrorCode.BINARY_FRAME, "send JSON as text frames")
            limit = self.config.max_message
            # UTF-8 takes at most 4 bytes a character: most frames need no encoding to check
            if len(frame) * 4 > limit and len(frame.encode()) > limit:
                raise Refusal(ErrorCode.TOO_LARGE, f"messages are at most {limit} bytes")
            try:
                data = orjson.loads(frame)
            except orjson.JSONDecodeError:
                raise Refusal(ErrorCode.BAD_JSON, "that frame is not JSON") from None
            if isinstance(data, dict):
                ref = _ref(data.get("id"))
                kind = data.get("type")
                if not isinstance(kind, str) or kind not in m.CLIENT_TYPES:
                    shown = kind[:32] if isinstance(kind, str) else type(kind).__name__
                    raise Refusal(ErrorCode.UNKNOWN_TYPE, f"unknown message type {shown!r}")
            try:
                msg = m.CLIENT_ADAPTER.validate_python(data)
            except ValidationError as exc:
                first = exc.errors()[0]
                where = ".".join(str(p) for p in first["loc"][1:]) or "message"
                raise Refusal(ErrorCode.INVALID_MESSAGE, f"{where}: {first['msg']}") from None
            conn.strikes = 0
            later = self._dispatch(conn, msg, received)
            return None if later is None else self._later(conn, later, ref)
        except Refusal as r:
            self._refused(conn, r, ref)
        except Exception:  # a bug must not close the connection with 1011
            self._failed(conn, ref)
        return None

    async def _later(
        self, conn: Connection, work: Coroutine[Any, Any, None], ref: m.RequestId | None
    ) -> None:
        try:
            await work
        except Refusal as r:
            self._refused(conn, r, ref)
        except Exception:
            self._failed(conn, ref)

    def _refused(self, conn: Connection, r: Refusal, ref: m.RequestId | None) -> None:
        self.metrics.refusals.labels(r.code).inc()
        conn.send(_err(r.code, r.message, ref))
        if r.code in STRIKES:
            conn.strikes += 1
            if conn.strikes >= self.config.strikes:
                self._close_policy(conn, "too many bad messages")

    def _failed(self, conn: Connection, ref: m.RequestId | None) -> None:
        log.exception("connection %d: a frame failed", conn.id)
        self.metrics.refusals.labels(ErrorCode.INTERNAL_ERROR.value).inc()
        message = "the server failed to handle that; nothing changed"
        conn.send(_err(ErrorCode.INTERNAL_ERROR, message, ref))

    def _close_policy(self, conn: Connection, why: str) -> None:
        """Close a connection that keeps misbehaving with 1008 (policy violation).

        The close runs beside the reader, which goes on reading (and dropping) frames: a
        reader that stopped would leave the peer's close frame unread behind them.
        """
        self.metrics.refusals.labels(ErrorCode.POLICY_VIOLATION.value).inc()
        conn.send(_err(ErrorCode.POLICY_VIOLATION, f"{why}; closing the connection", None))
        conn.closing = True

        async def close() -> None:
            await conn.drain(1.0)
            await conn.ws.close(1008, why)

        conn.closer = asyncio.ensure_future(close())

    def _dispatch(
        self, conn: Connection, msg: m.ClientMessage, received: float
    ) -> Coroutine[Any, Any, None] | None:
        """Act on a valid message; what has to wait is returned as a coroutine."""
        match msg:
            case m.Hello():
                return self._hello(conn, msg)
            case m.Ping():
                conn.send(m.dump(m.Pong(ref=msg.id)))
            case _ if not conn.greeted:
                raise Refusal(
                    ErrorCode.HELLO_REQUIRED, "start with a hello naming the protocol version"
                )
            case _ if self._stopping:
                raise Refusal(
                    ErrorCode.SHUTTING_DOWN, "the server is restarting; try again shortly"
                )
            case m.Queue():
                return self.queue.queue(conn.id, msg)
            case m.QueueCancel():
                return self.queue.cancel(conn.id, msg)
            case m.Create() | m.Join() if self.queue.queued(conn.id):
                raise Refusal(
                    ErrorCode.ALREADY_QUEUED, "you are waiting for Play now: cancel it first"
                )
            case m.Create():
                return self.manager.create(conn.id, msg, received)
            case m.Leaderboard():
                return self._standings(conn, msg)
            case m.Identify():
                return self._identify(conn, msg)
            case m.MoveCode() | m.MoveClaim():
                return self._move(conn, msg)
            case m.EventCreate():
                return self.events.request(conn.id, msg)
            case m.EventJoin() | m.EventWatch() | m.EventLeave() | m.EventHost():
                return self._event(conn, msg, received)
            case m.Resume():
                self.queue.resumed(conn.id, msg.room)  # a seat Play now gave was received
                return self._route(conn, msg, received)
            case _:
                return self._route(conn, msg, received)
        return None

    def _route(
        self, conn: Connection, msg: RoomRequest, received: float
    ) -> Coroutine[Any, Any, None] | None:
        """A room request, within its address's budget of misses (requests for rooms that do
        not exist): past it, refused whether the room exists or not, so it tells nothing.

        A request takes a token on its way in and gives it back once its room is found: the
        requests of an address's connections in flight at once never outrun its budget. A
        member's requests of its own room tell it nothing and take none (others of its address
        may be guessing: their games go on).
        """
        if self.connected.is_in(conn.id, msg.room):
            return self.manager.route_now(conn.id, msg, received)
        address = conn.address
        if not self.misses.take_now(address):
            why = "too many requests for rooms that do not exist; wait a minute"
            raise Refusal(ErrorCode.TOO_MANY_MISSES, why)
        try:
            later = self.manager.route_now(conn.id, msg, received)
        except Refusal:
            self.misses.refund(address)  # the room is here (one room at a time: not free)
            raise
        if later is None:
            self.misses.refund(address)
            return None
        return self._counting_misses(address, later, received)

    def _event(
        self,
        conn: Connection,
        msg: m.EventJoin | m.EventWatch | m.EventLeave | m.EventHost,
        received: float,
    ) -> Coroutine[Any, Any, None]:
        """An event request, within the address's budget of misses as a room's is (event
        codes are not to be found by guessing either); the event it follows takes none."""
        later = self.events.request(conn.id, msg)
        if self.events.following.get(conn.id) == msg.event:
            return later
        if not self.misses.take_now(conn.address):
            later.close()
            why = "too many requests for events that do not exist; wait a minute"
            raise Refusal(ErrorCode.TOO_MANY_MISSES, why)
        return self._counting_misses(conn.address, later, received)

    async def _counting_misses(
        self, address: str, later: Coroutine[Any, Any, None], received: float
    ) -> None:
        try:
            await later
        except Refusal as r:
            if r.code not in (ErrorCode.ROOM_NOT_FOUND, ErrorCode.EVENT_NOT_FOUND):
                self.misses.refund(address)
                raise
            # no sooner than the floor: a connection's next frame waits for this answer
            await asyncio.sleep(received + self.config.miss_floor - time.perf_counter())
            raise
        self.misses.refund(address)

    def _hello(self, conn: Connection, msg: m.Hello) -> Coroutine[Any, Any, None] | None:
        if msg.protocol not in m.SUPPORTED_VERSIONS:
            speaks = ", ".join(str(v) for v in m.SUPPORTED_VERSIONS)
            raise Refusal(
                ErrorCode.UNSUPPORTED_PROTOCOL,
                f"this server speaks protocol {speaks}, not {msg.protocol}",
            )
        conn.greeted = True
        conn.bot = msg.bot
        if conn.hello_timer is not None:  # its handle need not live as long as the connection
            conn.hello_timer.cancel()
            conn.hello_timer = None
        origin = self.devices.origin(conn.address)
        if origin is not None:
            self.connected.locate(conn.id, origin)
        # only an identity this server issued ranks a player (made-up ones would let one person
        # fill a board): a made-up one gets a new identity, within the address's budget for
        # the day (shared by every process: awaited, and the client's next frames wait)
        # a bot's hello with a person's identity gets a bot identity of its own: an identity
        # is a person's or a bot's for good
        valid = self.devices.valid(msg.device) and (not msg.bot or is_bot_device(msg.device))
        if valid or not self.devices.ready:
            self._welcome(conn, msg, msg.device if valid else None)
            return None
        return self._issue(conn, msg)

    async def _issue(self, conn: Connection, msg: m.Hello) -> None:
        device = None
        work = None
        if await self.device_budget.take(conn.address):
            device = self.devices.mint(conn.address, bot=msg.bot)
        else:
            self.devices.refused += 1
            # a household behind one address: a few more, each for some seconds of work
            if self.work is not None and self.config.worked_devices_per_address > 0:
                challenge = self.work.offer(conn.address, _utc_day())
                work = m.Work(challenge=challenge, bits=self.work.bits)
        self._welcome(conn, msg, device, work)

    def _welcome(
        self, conn: Connection, msg: m.Hello, device: str | None, work: m.Work | None = None
    ) -> None:
        if device is not None:
            self.connected.identify(conn.id, device)
        games = [cast(m.GameName, name) for name in GAME_NAMES]
        welcome = m.Welcome(
            ref=msg.id,
            protocol=msg.protocol,
            server=SERVER_NAME,
            games=games,
            device=device,
            work=work,
            player=player_id(device) if device is not None else None,
            bot=is_bot_device(device),
        )
        conn.send(m.dump(welcome))

    async def _identify(self, conn: Connection, msg: m.Identify) -> None:
        """The work a welcome offered, done: an identity, within the address's daily budget of
        earned ones (a flood of sock puppets from one address stops there)."""
        work = self.work
        if work is None or not work.check(conn.address, _utc_day(), msg.challenge, msg.nonce):
            why = "that work is not a challenge of this address today, was used, or is undone"
            raise Refusal(ErrorCode.BAD_WORK, why)
        if not await self.worked_budget.take(conn.address):
            why = "this address has earned all the identities it may today"
            raise Refusal(ErrorCode.IDENTITIES_SPENT, why)
        device = self.devices.mint(conn.address, bot=conn.bot)
        assert device is not None  # the key is set: self.work was made with it
        self.connected.identify(conn.id, device)
        conn.send(m.dump(m.Identified(ref=msg.id, device=device)))

    async def _move(self, conn: Connection, msg: m.MoveCode | m.MoveClaim) -> None:
        """An identity's one-time code, asked for or said (:mod:`server.net.moves`)."""
        try:
            if isinstance(msg, m.MoveCode):
                device = self.connected.device_of(conn.id)
                conn.send(m.dump(await self.moves.offer(msg, device, conn.address)))
                return
            found = await self.moves.claim(msg, conn.address)
        except StoreUnavailable:
            self.stores.health.down()
            raise Refusal(ErrorCode.STORE_UNAVAILABLE, "try again in a moment") from None
        self.connected.identify(conn.id, found.device)  # this connection is that player now
        conn.send(m.dump(found))

    async def _standings(self, conn: Connection, msg: m.Leaderboard) -> None:
        # the same budget as the HTTP API's reads, from the same address's bucket
        if not await self.history_budget.take(conn.address):
            raise Refusal(ErrorCode.RATE_LIMITED, "too many reads (boards, history); slow down")
        try:
            board = Board.parse(msg.board)
        except BadBoard as exc:
            raise Refusal(ErrorCode.BAD_BOARD, str(exc)) from None
        device = self.connected.device_of(conn.id)
        try:
            entries = await self.stores.boards.top(board, msg.limit)
            you = await self.stores.boards.entry(board, Player(device, "").id) if device else None
            players = await self.stores.boards.size(board)
        except StoreUnavailable:
            self.stores.health.down()
            raise Refusal(
                ErrorCode.STORE_UNAVAILABLE, "leaderboards cannot be read now; try again"
            ) from None

        def wire(e: Entry) -> m.StandingsEntry:
            return m.StandingsEntry(
                rank=e.rank, player=e.player, name=e.name, score=e.score, games=e.games
            )

        reply = m.Standings(
            ref=msg.id,
            board=board.key,
            entries=[wire(e) for e in entries],
            you=wire(you) if you else None,
            players=players,
        )
        conn.send(m.dump(reply))

    # running from the command line

    async def serve_forever(self) -> None:
        """Run until SIGTERM or SIGINT, then stop gracefully."""
        await self.start()
        settle_gc()  # a process of its own: the collector tuned for serving
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            with contextlib.suppress(NotImplementedError):
                loop.add_signal_handler(sig, stop.set)
        log.info(
            "cardroom listening on %s (http://%s:%d/), event loop %s.%s",
            self.url,
            self.config.host,
            self.port,
            type(loop).__module__,
            type(loop).__name__,
        )
        print(
            f"cardroom serving on http://{self.config.host}:{self.port}/ "
            f"(WebSocket {self.url}); Ctrl-C to stop",
            flush=True,
        )
        await stop.wait()
        await self.stop()


_API_RATE_LIMITED = orjson.dumps(
    {"error": ErrorCode.RATE_LIMITED.value, "message": "too many API requests; slow down"}
)

_ABOUT = (
    f"{SERVER_NAME}: a Cardroom game server (Shithead, Sheepshead).\n"
    "Connect a WebSocket client to this address and send "
    '{"type": "hello", "id": 1, "protocol": 1}; see docs/protocol.md.\n'
    "/healthz: health; /metrics: Prometheus metrics.\n"
).encode()


def _response(
    status: int,
    body: bytes,
    content_type: str | None,
    extra: list[tuple[str, str]] | None = None,
) -> Response:
    reasons = {
        200: "OK",
        304: "Not Modified",
        400: "Bad Request",
        403: "Forbidden",
        404: "Not Found",
        421: "Misdirected Request",
        429: "Too Many Requests",
        500: "Internal Server Error",
        503: "Service Unavailable",
    }
    pairs = [("Content-Type", content_type)] if content_type else []
    pairs.append(("Content-Length", str(len(body))))
    pairs += extra if extra is not None else [("Cache-Control", "no-store")]
    return Response(status, reasons.get(status, "OK"), Headers(pairs), body)


def framed(texts: list[str]) -> bytes:
    """Each text as one unfragmented, unmasked text frame (RFC 6455 5.2), in order, as one
    piece (each payload copied once): what a server sends when no extension was negotiated,
    the bytes websockets' own framing would write for them."""
    parts = []
    for text in texts:
        data = text.encode()
        parts.append(_header(len(data)))
        parts.append(data)
    return b"".join(parts)


def _header(n: int) -> bytes:
    """A text frame's header for an ``n``-byte payload (FIN, opcode 1, no mask)."""
    if n < 126:
        return bytes((0x81, n))
    if n < 65536:
        return b"\x81\x7e" + n.to_bytes(2, "big")
    return b"\x81\x7f" + n.to_bytes(8, "big")


def _err(code: ErrorCode, message: str, ref: m.RequestId | None) -> str:
    return m.dump(m.Error(code=code, message=message, ref=ref))


def _pause(ws: ServerConnection) -> None:
    with contextlib.suppress(Exception):  # a transport already closing
        ws.transport.pause_reading()


def _resume(ws: ServerConnection) -> None:
    with contextlib.suppress(Exception):
        ws.transport.resume_reading()


def _address(ws: ServerConnection) -> str:
    """The client's key for per-address budgets: behind a trusted proxy the forwarded
    address, IPv6 by its /64 (:mod:`server.net.address`; known once the request is in)."""
    client = getattr(ws, "client", None)
    if isinstance(client, str):
        return client
    peer = ws.remote_address
    ip = address.parse_ip(str(peer[0])) if isinstance(peer, tuple) and peer else None
    return address.key(ip)


def trim_memory(collect: bool = True) -> None:
    """Hand memory freed by closed connections back to the system (glibc keeps freed heap
    pages unless asked: ``malloc_trim``), after a full collection if ``collect``.

    A closed connection is freed by reference counting (``DirectConnection.release``), so
    while others are connected the trim skips the collection: one of the whole heap stopped
    the server for ~0.4 s at 5,000 connections. With nobody connected,
    it runs one for whatever else is left in cycles, frozen ones too (``gc.freeze`` after
    arrivals), and, if anything was frozen, freezes what survives it.
    """
    if collect:
        frozen = gc.get_freeze_count() > 0  # (a walk of the frozen list: nobody is connected)
        if frozen:
            gc.unfreeze()
        gc.collect()
        if frozen:
            gc.freeze()
    if _LIBC is not None:
        _LIBC.malloc_trim(0)


#: The cyclic collector's thresholds while serving (Python's default: 700, 10, 10). Almost
#: everything an action allocates is freed by reference counting; with the defaults the
#: collector still ran some 60 times a second under load, rescanning the rooms and their
#: histories, about 5 % of the server's CPU (``gc.callbacks`` timing, 20 rooms of five); with
#: these, 0.5 %. Cycles still go: a young collection every 5,000 new containers, an older one
#: every 200 of those (the same 1,000,000 as before), and the trim once nobody is connected
#: runs a full one. A young collection stops the server while it runs: at 20,000 it took
#: 5 ms (median) to 50 ms at 5,000 people, at 5,000 0.9 to 11 ms, for the same CPU in all.
GC_THRESHOLDS = (5_000, 200, 100)


def settle_gc() -> None:
    """Tune the cyclic collector for a long-running server, once it has started: what start-up
    made is moved out of the collector's sight for good (``gc.freeze``: modules, classes,
    static files), and collections run less often (:data:`GC_THRESHOLDS`)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def _load_libc() -> ctypes.CDLL | None:
    if sys.platform != "linux":
        return None
    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.malloc_trim  # noqa: B018  # glibc only (musl has none)
    except (OSError, AttributeError):
        return None
    return libc


_LIBC = _load_libc()


def _peek_ref(frame: str | bytes) -> m.RequestId | None:
    """The ``id`` of a frame refused before parsing, if it has a readable one."""
    if isinstance(frame, bytes) or len(frame) > 4096:
        return None
    try:
        data = orjson.loads(frame)
    except orjson.JSONDecodeError:
        return None
    return _ref(data.get("id")) if isinstance(data, dict) else None


def _ref(value: object) -> m.RequestId | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int) or (isinstance(value, str) and 0 < len(value) <= 64):
        return value
    return None
