"""``cardroom serve``: one asyncio ``websockets`` server answering WebSockets and plain HTTP
(``/healthz``, ``/metrics``, and the web client's files) on one port.

Each connection has one reader (this module's handler) and one writer task with a bounded
queue, so a slow client never holds up a room. Frames are checked here: size, rate, JSON,
schema; a refusal never reaches a room. Room messages go to the room's actor.

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
import itertools
import logging
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
from prometheus_client import CONTENT_TYPE_LATEST
from pydantic import ValidationError
from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

from protocol import messages as m
from server.metrics import Metrics
from server.net.limits import TokenBucket
from server.net.static import CSP, StaticFiles, accepts_gzip
from server.rooms.manager import RoomManager
from server.rooms.seats import Refusal, RoomSettings
from server.store.base import RoomStore
from server.store.memory import MemoryStore

log = logging.getLogger(__name__)

SERVER_NAME = "cardroom/0.1"
CLIENT_TYPES = {
    "hello",
    "create",
    "join",
    "watch",
    "resume",
    "act",
    "host",
    "chat",
    "leave",
    "ping",
}
WEB_ROOT = Path(__file__).resolve().parents[2] / "clients" / "web"


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
    origins: tuple[str | None, ...] | None = None  # browser Origins allowed (None: any)
    outbox: int = 512  # frames queued for a client before it is dropped as too slow
    rooms: RoomSettings = field(default_factory=RoomSettings)
    web_root: Path | None = WEB_ROOT


class Connection:
    """One client: its socket, its outgoing queue and writer task, its limits."""

    def __init__(self, conn_id: int, ws: ServerConnection, config: ServerConfig) -> None:
        self.id = conn_id
        self.ws = ws
        self.queue: asyncio.Queue[str | None] = asyncio.Queue(config.outbox)
        self.bucket = TokenBucket(config.rate, config.burst, time.monotonic())
        self.greeted = False
        self.strikes = 0
        self.flooded = 0
        self.closing = False
        self.limited_notice = 0.0
        self.writer = asyncio.create_task(self._write(), name=f"writer-{conn_id}")
        self.closer: asyncio.Future[None] | None = None

    def send(self, text: str) -> None:
        if self.closer is not None:
            return  # being closed: nothing more goes out
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            log.warning("connection %d is too slow; closing it", self.id)
            self.writer.cancel()
            self.closer = asyncio.ensure_future(self.ws.close(1013, "too slow to keep up"))

    async def _write(self) -> None:
        with contextlib.suppress(ConnectionClosed):
            while True:
                text = await self.queue.get()
                if text is None:
                    return
                await self.ws.send(text)

    async def drain(self, timeout: float) -> None:
        """Let the writer send what is queued (used at shutdown)."""
        with contextlib.suppress(asyncio.QueueFull):
            self.queue.put_nowait(None)
        with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
            await asyncio.wait_for(asyncio.shield(self.writer), timeout)


class CardroomServer:
    """The whole server of one process. Use as ``async with CardroomServer(config) as s``."""

    def __init__(self, config: ServerConfig | None = None, store: RoomStore | None = None) -> None:
        self.config = config or ServerConfig()
        self.store = store or MemoryStore()
        self.metrics = Metrics()
        self.manager = RoomManager(self.store, self.metrics, self.config.rooms)
        self.connections: dict[int, Connection] = {}
        self._ids = itertools.count(1)
        self._ws: Server | None = None
        self._stopping = False
        self.static: StaticFiles | None = None

    # lifecycle

    async def start(self) -> None:
        root = self.config.web_root
        if root is not None and (root / "index.html").is_file():
            # read once, off the event loop: serving a file never touches the disk
            self.static = await asyncio.to_thread(StaticFiles.load, root)
        await self.manager.restore()
        self._ws = await serve(
            self._handle,
            self.config.host,
            self.config.port,
            process_request=self._http,
            max_size=self.config.max_frame,
            origins=list(self.config.origins) if self.config.origins is not None else None,
            server_header=SERVER_NAME,
        )

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
        self._ws.server.close()  # no new connections
        notice = m.dump(m.Closing(reason="server shutting down; reconnect to resume your seat"))
        for conn in list(self.connections.values()):
            conn.send(notice)
        await self.manager.shutdown()  # rooms stop after what they queued, records saved
        await asyncio.gather(
            *(c.drain(timeout / 2) for c in list(self.connections.values())),
            return_exceptions=True,
        )
        self._ws.close(close_connections=True)
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self._ws.wait_closed(), timeout)
        await self.store.close()

    async def __aenter__(self) -> CardroomServer:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    # HTTP on the same port

    def _http(self, connection: ServerConnection, request: Request) -> Response | None:
        if request.headers.get("Upgrade", "").lower() == "websocket":
            return None
        path = request.path.split("?", 1)[0]
        if path == "/healthz":
            status = "stopping" if self._stopping else "ok"
            return _response(503 if self._stopping else 200, f"{status}\n".encode(), "text/plain")
        if path == "/metrics":
            self.metrics.connections.set(len(self.connections))
            return _response(200, self.metrics.render(), CONTENT_TYPE_LATEST)
        return self._static(path, request.headers)

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
        conn = Connection(next(self._ids), ws, self.config)
        self.connections[conn.id] = conn
        self.manager.connected(conn.id, conn)
        self.metrics.connections.set(len(self.connections))
        try:
            async for frame in ws:
                if not await self._frame(conn, frame):
                    break
        except ConnectionClosed:
            pass
        finally:
            self.connections.pop(conn.id, None)
            self.manager.disconnected(conn.id)
            self.metrics.connections.set(len(self.connections))
            with contextlib.suppress(asyncio.QueueFull):
                conn.queue.put_nowait(None)

    async def _frame(self, conn: Connection, frame: str | bytes) -> bool:
        """Handle one frame; ``False`` closes the connection."""
        if conn.closing:
            return True  # dropped: the connection is being closed
        received = time.perf_counter()
        now = time.monotonic()
        if not conn.bucket.allow(now):
            self.metrics.refusals.labels("rate_limited").inc()
            conn.flooded += 1
            if now - conn.limited_notice > 1.0:  # one notice a second, not one per frame
                conn.limited_notice = now
                conn.send(_err("rate_limited", "slow down: too many messages", _peek_ref(frame)))
            if conn.flooded >= self.config.flood_limit:
                return await self._close_policy(conn, "flooding")
            return True
        conn.flooded = 0
        ref = None
        try:
            if isinstance(frame, bytes):
                raise Refusal("binary_frame", "send JSON as text frames")
            if len(frame.encode()) > self.config.max_message:
                raise Refusal("too_large", f"messages are at most {self.config.max_message} bytes")
            try:
                data = orjson.loads(frame)
            except orjson.JSONDecodeError:
                raise Refusal("bad_json", "that frame is not JSON") from None
            if isinstance(data, dict):
                ref = _ref(data.get("id"))
                kind = data.get("type")
                if kind not in CLIENT_TYPES:
                    raise Refusal("unknown_type", f"unknown message type {kind!r}")
            try:
                msg = m.CLIENT_ADAPTER.validate_python(data)
            except ValidationError as exc:
                first = exc.errors()[0]
                where = ".".join(str(p) for p in first["loc"][1:]) or "message"
                raise Refusal("invalid_message", f"{where}: {first['msg']}") from None
            conn.strikes = 0
            await self._dispatch(conn, msg, received)
        except Refusal as r:
            self.metrics.refusals.labels(r.code).inc()
            conn.send(_err(r.code, r.message, ref))
            if r.code in (
                "binary_frame",
                "too_large",
                "bad_json",
                "unknown_type",
                "invalid_message",
                "hello_required",
            ):
                conn.strikes += 1
                return await self._strike_out(conn)
        return True

    async def _strike_out(self, conn: Connection) -> bool:
        if conn.strikes >= self.config.strikes:
            return await self._close_policy(conn, "too many bad messages")
        return True

    async def _close_policy(self, conn: Connection, why: str) -> bool:
        """Close a connection that keeps misbehaving with 1008 (policy violation).

        The close runs beside the reader, which goes on reading (and dropping) frames: a
        reader that stopped would leave the peer's close frame unread behind them.
        """
        self.metrics.refusals.labels("policy_violation").inc()
        conn.send(_err("policy_violation", f"{why}; closing the connection", None))
        conn.closing = True

        async def close() -> None:
            await conn.drain(1.0)
            await conn.ws.close(1008, why)

        conn.closer = asyncio.ensure_future(close())
        return True

    async def _dispatch(self, conn: Connection, msg: Any, received: float) -> None:
        if isinstance(msg, m.Hello):
            if msg.protocol not in m.SUPPORTED_VERSIONS:
                speaks = ", ".join(str(v) for v in m.SUPPORTED_VERSIONS)
                raise Refusal(
                    "unsupported_protocol",
                    f"this server speaks protocol {speaks}, not {msg.protocol}",
                )
            conn.greeted = True
            conn.send(
                m.dump(
                    m.Welcome(
                        ref=msg.id,
                        protocol=msg.protocol,
                        server=SERVER_NAME,
                        games=["shithead", "sheepshead"],
                    )
                )
            )
            return
        if isinstance(msg, m.Ping):
            conn.send(m.dump(m.Pong(ref=msg.id)))
            return
        if not conn.greeted:
            raise Refusal("hello_required", "start with a hello naming the protocol version")
        if self._stopping:
            raise Refusal("shutting_down", "the server is restarting; try again shortly")
        if isinstance(msg, m.Create):
            await self.manager.create(conn.id, msg, received)
        else:
            self.manager.route(conn.id, msg, received)

    # running from the command line

    async def serve_forever(self) -> None:
        """Run until SIGTERM or SIGINT, then stop gracefully."""
        await self.start()
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            with contextlib.suppress(NotImplementedError):
                loop.add_signal_handler(sig, stop.set)
        log.info("cardroom listening on %s (http://%s:%d/)", self.url, self.config.host, self.port)
        print(
            f"cardroom serving on http://{self.config.host}:{self.port}/ "
            f"(WebSocket {self.url}); Ctrl-C to stop",
            flush=True,
        )
        await stop.wait()
        await self.stop()


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
    reasons = {200: "OK", 304: "Not Modified", 404: "Not Found", 503: "Service Unavailable"}
    pairs = [("Content-Type", content_type)] if content_type else []
    pairs.append(("Content-Length", str(len(body))))
    pairs += extra if extra is not None else [("Cache-Control", "no-store")]
    return Response(status, reasons.get(status, "OK"), Headers(pairs), body)


def _err(code: str, message: str, ref: m.RequestId | None) -> str:
    return m.dump(m.Error(code=code, message=message, ref=ref))


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
