"""The front door: which connections get in, before any frame is read.

From the TCP accept until its HTTP request has arrived, a connection is a handshake in
progress: counted per address (the socket's peer; a trusted proxy reads whole requests itself,
so its connections count only in the total) and in all, and closed when it has not sent its
request within ``open_timeout`` (slowloris: such connections hold a file descriptor each and
would otherwise starve ``/healthz`` and every other client). Over the per-address cap the new
connection is closed at once; over the global one, the oldest handshake in progress is (a
client that sends its request at once, as every real one does, is through long before it
would be the oldest, so half-open connections from many addresses cannot lock it out). Once the
request is in, the client's budget key is known (:mod:`server.net.address`, proxy-aware) and
kept on the connection; a WebSocket handshake is then refused with 403 for a foreign browser
``Origin`` and 503 over the open-connection caps. Each refusal is counted in
``cardroom_connections_refused_total{cap=...}`` (:class:`Cap`).
"""

from __future__ import annotations

import asyncio
import logging
import resource
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, cast
from urllib.parse import urlsplit

from websockets.datastructures import Headers
from websockets.http11 import Request

from server.metrics import Metrics
from server.net import address
from server.net.receive import DirectConnection

log = logging.getLogger(__name__)

#: File descriptors per handshake in progress the process keeps for everything else (open
#: WebSockets, Redis, files): the global cap is at most a quarter of the descriptor limit.
FD_SHARE = 4
#: Descriptors kept free beside open WebSockets and handshakes: the listening socket, Redis's
#: pool, the event loop's own, a health check's connection.
FD_RESERVE = 100


class Cap(StrEnum):
    """Why a connection was refused (the ``cap`` label of the refusals metric)."""

    GLOBAL = "global"  # open WebSockets in this process
    PER_ADDRESS = "per_address"  # open WebSockets from one client address
    ORIGIN = "origin"  # a browser page of another site
    HANDSHAKES = "handshakes"  # handshakes in progress in this process
    HANDSHAKES_PER_ADDRESS = "handshakes_per_address"  # ... from one peer address


@dataclass(frozen=True, slots=True)
class Door:
    """The admission settings (see ``ServerConfig``)."""

    proxies: address.Proxies = field(default_factory=address.Proxies)
    origins: tuple[str, ...] = ()  # browser Origins allowed besides the server's own ("*": any)
    # the trusted proxy writes the host it was asked for (X-Forwarded-Host, Forwarded host=)
    # over the client's: only then is it read (a proxy that passes the client's would let a
    # page of any site name itself the server); off: the Host header is the host
    forwarded_host: bool = False
    # the names the server answers to ("": any): a request for another Host is refused, so a
    # page of a site whose name was pointed at this server (DNS rebinding) is not same-origin
    allowed_hosts: tuple[str, ...] = ()
    max_connections: int = 10_000
    max_per_address: int = 50
    max_handshakes: int = 1000
    max_handshakes_per_address: int = 64
    open_timeout: float = 10.0


def descriptors() -> int | None:
    """The process's file descriptor limit (``None``: unlimited)."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return None if soft == resource.RLIM_INFINITY else soft


def handshake_cap(configured: int, fds: int | None) -> int:
    """The global cap on handshakes in progress: the setting, at most a quarter of the
    process's file descriptors (so half-open connections cannot take them all).

    >>> handshake_cap(1000, 300), handshake_cap(1000, 65536), handshake_cap(1000, None)
    (75, 1000, 1000)
    """
    return configured if fds is None else max(1, min(configured, fds // FD_SHARE))


def connection_cap(configured: int, fds: int | None, handshakes: int) -> int:
    """The cap on open WebSockets: the setting, at most what the descriptors left beside the
    handshakes and :data:`FD_RESERVE` can hold (past it, accepting fails for everyone).

    >>> connection_cap(10_000, 300, 75), connection_cap(10_000, 1024, 256)
    (125, 668)
    """
    return configured if fds is None else max(1, min(configured, fds - handshakes - FD_RESERVE))


class Gated(DirectConnection):
    """A server connection that reports its accept, its request and its end to the
    :class:`Admission`; ``client`` is its budget key once its request has arrived."""

    def __init__(self, *args: Any, door: Admission, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.door = door
        self.peer: str | None = None  # the socket's peer address (a proxy's, behind one)
        self.client: str | None = None  # the budget key, set when the request arrives
        self.host: str | None = None  # the host the client asked for (Origin checks)
        self.opening: asyncio.TimerHandle | None = None  # set while counted as a handshake
        self.opening_key = ""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        # uvloop's transports act as asyncio.Transport without subclassing it
        self.door.accepted(self, cast(asyncio.Transport, transport))

    def connection_lost(self, exc: Exception | None) -> None:
        self.door.settled(self)
        super().connection_lost(exc)


class Admission:
    """Counts handshakes in progress and decides on each connection (see the module)."""

    def __init__(self, door: Door, metrics: Metrics) -> None:
        self.door = door
        self.metrics = metrics
        fds = descriptors()
        self.max_handshakes = handshake_cap(door.max_handshakes, fds)
        self.max_connections = connection_cap(door.max_connections, fds, self.max_handshakes)
        if self.max_connections < door.max_connections:
            log.warning(
                "%d file descriptors: at most %d WebSockets (not %d); raise `ulimit -n`",
                fds,
                self.max_connections,
                door.max_connections,
            )
        self.in_progress: dict[int, Gated] = {}  # handshakes in progress, oldest first
        self.per_peer: dict[str, int] = {}  # handshakes in progress per peer key

    @property
    def handshakes(self) -> int:
        return len(self.in_progress)

    # handshakes in progress

    def accepted(self, conn: Gated, transport: asyncio.Transport) -> None:
        """A TCP connection was accepted: count it, or close it at once over a cap."""
        peer = transport.get_extra_info("peername")
        conn.peer = str(peer[0]) if isinstance(peer, tuple) and peer else None
        ip = address.parse_ip(conn.peer) if conn.peer else None
        proxied = ip is not None and self.door.proxies.trusts(ip)
        key = "" if proxied else address.key(ip)  # "": counted in the total only
        if key and self.per_peer.get(key, 0) >= self.door.max_handshakes_per_address:
            self.metrics.refused.labels(Cap.HANDSHAKES_PER_ADDRESS.value).inc()
            transport.abort()  # nothing read yet: nothing to answer, and no descriptor kept
            return
        while self.handshakes >= self.max_handshakes:
            oldest = next(iter(self.in_progress.values()))
            self.metrics.refused.labels(Cap.HANDSHAKES.value).inc()
            self.settled(oldest)
            oldest.transport.abort()
        self.in_progress[id(conn)] = conn
        if key:
            self.per_peer[key] = self.per_peer.get(key, 0) + 1
        conn.opening_key = key
        loop = asyncio.get_running_loop()
        conn.opening = loop.call_later(self.door.open_timeout, self._overdue, conn)
        self.metrics.handshakes.set(self.handshakes)

    def settled(self, conn: Gated) -> None:
        """The request arrived or the connection ended: no longer a handshake in progress."""
        if conn.opening is None:
            return
        conn.opening.cancel()
        conn.opening = None
        del self.in_progress[id(conn)]
        key = conn.opening_key
        if key:
            left = self.per_peer.pop(key, 1) - 1
            if left > 0:
                self.per_peer[key] = left
        self.metrics.handshakes.set(self.handshakes)

    def _overdue(self, conn: Gated) -> None:
        if conn.opening is None:
            return
        self.metrics.open_timeouts.inc()
        self.settled(conn)
        conn.transport.abort()

    # the request

    def requested(self, conn: Gated, request: Request) -> None:
        """The request arrived: the handshake is over; note who the client is."""
        self.settled(conn)
        headers = request.headers
        ip = address.client_ip(conn.peer, headers, self.door.proxies)
        conn.client = address.key(ip)
        peer = address.parse_ip(conn.peer) if conn.peer else None
        host = None
        if self.door.forwarded_host and peer is not None and self.door.proxies.trusts(peer):
            host = address.forwarded_host(headers, self.door.proxies)
        conn.host = host or headers.get("Host")

    def host_allowed(self, host: str | None) -> bool:
        """Whether the host a request names is one of the server's own (any, unless set).

        >>> door = Admission(Door(allowed_hosts=("cards.example",)), Metrics())
        >>> door.host_allowed("Cards.Example:8080"), door.host_allowed("evil.example")
        (True, False)
        >>> door.host_allowed(None), Admission(Door(), Metrics()).host_allowed("x")
        (False, True)
        """
        allowed = self.door.allowed_hosts
        if not allowed:
            return True
        if host is None:
            return False
        try:
            name = urlsplit("//" + host).hostname
        except ValueError:
            return False
        return name is not None and name in allowed

    def admit(self, conn: Gated, headers: Headers, open_here: int, from_client: int) -> Cap | None:
        """Whether a WebSocket handshake may go on (``None``) or the cap that refuses it."""
        cap = None
        origin = headers.get("Origin")
        if origin is not None and not self.origin_allowed(origin, conn.host):
            cap = Cap.ORIGIN
        elif open_here >= self.max_connections:
            cap = Cap.GLOBAL
        elif from_client >= self.door.max_per_address:
            cap = Cap.PER_ADDRESS
        if cap is not None:
            self.metrics.refused.labels(cap.value).inc()
        return cap

    def origin_allowed(self, origin: str, host: str | None) -> bool:
        """A browser page may connect from the server's own origin or one the settings name.

        >>> door = Admission(Door(origins=("https://cards.example",)), Metrics())
        >>> door.origin_allowed("http://localhost:8080", "localhost:8080")
        True
        >>> door.origin_allowed("https://cards.example", "10.0.0.5:8765")
        True
        >>> door.origin_allowed("https://evil.example", "localhost:8080")
        False
        """
        if "*" in self.door.origins or origin in self.door.origins:
            return True
        return host is not None and same_origin(origin, host)


DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}


def same_origin(origin: str, host: str) -> bool:
    """Whether a browser ``Origin`` names the host (and port) the request was made to.

    ``Host`` carries no scheme: without a port it matches the origin's default port.

    >>> same_origin("http://Cards.example:8080", "cards.example:8080")
    True
    >>> same_origin("https://cards.example", "cards.example")
    True
    >>> same_origin("http://cards.example:8080", "cards.example"), same_origin("null", "x")
    (False, False)
    """
    try:
        o = urlsplit(origin)
        h = urlsplit("//" + host)
        o_port = o.port or DEFAULT_PORTS.get(o.scheme)
        h_port = h.port
    except ValueError:  # a port that is not a number, brackets that do not close
        return False
    if not o.hostname or not h.hostname or o.scheme not in DEFAULT_PORTS:
        return False
    if o.hostname != h.hostname:
        return False
    if h_port is None:  # the browser's default port for the origin's scheme
        return o_port == DEFAULT_PORTS[o.scheme]
    return o_port == h_port
