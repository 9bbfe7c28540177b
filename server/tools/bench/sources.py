"""Where the load generator may send its load and from where: loopback only, both ends.

One source address gives a machine some 28,000 ephemeral ports towards one server address
(``net.ipv4.ip_local_port_range``); client sockets bound to several loopback addresses
(127.0.0.0/8 is all loopback on Linux) open more, and look like different people to the
server's per-address budgets.

>>> [str(a) for a in parse_sources("127.0.0.2-127.0.0.4")]
['127.0.0.2', '127.0.0.3', '127.0.0.4']
>>> [str(a) for a in parse_sources("3")]
['127.0.0.1', '127.0.0.2', '127.0.0.3']
>>> parse_sources("10.0.0.1")
Traceback (most recent call last):
...
server.tools.bench.sources.NotLoopback: 10.0.0.1 is not a loopback address: ...
"""

from __future__ import annotations

import ipaddress
import itertools
import socket
from urllib.parse import urlsplit

Address = ipaddress.IPv4Address | ipaddress.IPv6Address

#: The most source addresses one run binds (a bound on what a typo can ask for).
MAX_SOURCES = 256


class NotLoopback(ValueError):
    """A target or source outside loopback (127.0.0.0/8, ::1)."""


def _loopback(text: str) -> Address:
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        raise NotLoopback(f"{text!r} is not an IP address") from None
    if not address.is_loopback:
        raise NotLoopback(
            f"{address} is not a loopback address: load goes to and from loopback only"
        )
    return address


def parse_sources(spec: str) -> list[Address]:
    """``A-B`` (a range of loopback addresses), ``A,B,...``, or ``N`` (127.0.0.1 onwards).

    Raises:
        ValueError: an address outside loopback, an empty or reversed range, or more than
            :data:`MAX_SOURCES` addresses.
    """
    spec = spec.strip()
    if spec.isdigit():
        count = int(spec)
        if not 1 <= count <= MAX_SOURCES:
            raise ValueError(f"--sources: between 1 and {MAX_SOURCES} addresses")
        return [ipaddress.IPv4Address("127.0.0.1") + i for i in range(count)]
    out: list[Address] = []
    for part in spec.split(","):
        first, _, last = part.strip().partition("-")
        lo = _loopback(first)
        hi = _loopback(last) if last else lo
        if hi.version != lo.version or int(hi) < int(lo):
            raise ValueError(f"--sources: {part!r} is not a range from low to high")
        if int(hi) - int(lo) + 1 + len(out) > MAX_SOURCES:
            raise ValueError(f"--sources: at most {MAX_SOURCES} addresses")
        out += [ipaddress.ip_address(n) for n in range(int(lo), int(hi) + 1)]
    return out


def check_target(url: str) -> None:
    """Refuse a ``ws://`` URL whose host is not (or does not resolve only to) loopback.

    >>> check_target("ws://127.0.0.1:8080/"); check_target("ws://[::1]:80/ws/ABCDE")
    >>> check_target("ws://192.0.2.7:8080/")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    server.tools.bench.sources.NotLoopback: 192.0.2.7 is not a loopback address: ...
    """
    parts = urlsplit(url)
    if parts.scheme not in ("ws", "wss") or not parts.hostname:
        raise ValueError(f"not a ws:// URL: {url!r}")
    host = parts.hostname
    try:
        ipaddress.ip_address(host)
    except ValueError:  # a name: every address it resolves to must be loopback
        try:
            found = {info[4][0] for info in socket.getaddrinfo(host, parts.port or 80)}
        except OSError as exc:
            raise NotLoopback(f"{host!r} does not resolve: {exc}") from None
        for address in found:
            _loopback(str(address).split("%")[0])
        return
    _loopback(host)


class Rotation:
    """The next source address for each new client socket, round robin (None: the system's
    choice). Worker ``k`` of ``n`` starts at a different address, so that their connections
    spread evenly."""

    def __init__(self, addresses: list[Address], start: int = 0) -> None:
        self._next = None
        if addresses:
            k = start % len(addresses)
            self._next = itertools.cycle(addresses[k:] + addresses[:k])

    def local_addr(self) -> tuple[str, int] | None:
        return None if self._next is None else (str(next(self._next)), 0)
