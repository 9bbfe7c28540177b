"""Who is asking: the client's address behind a trusted proxy, and the key its budgets count.

A request's address is the socket's peer unless that peer is a trusted proxy
(:class:`Proxies`, ``cardroom serve --trusted-proxy CIDR``); then it is read from the header
the proxy writes (``X-Forwarded-For``, or RFC 7239 ``Forwarded``): the right-most entry that is
not itself a trusted proxy. Everything to the right of it was written by trusted proxies, so a
client cannot choose its own address; an entry a trusted proxy wrote that does not parse stops
the walk at that proxy (its address is used), and headers from an untrusted peer are ignored.

Per-address budgets count :func:`key`: an IPv4 address itself, an IPv6 address by its /64 (one
subscriber's network: a client may use any of its 2**64 addresses), and, since a subscriber
holds a /56 or a /48, also by its /48 with a wider budget (:func:`server.store.budgets.levels`).

>>> proxies = Proxies.parse(["127.0.0.1/32"])
>>> key(client_ip("127.0.0.1", {"X-Forwarded-For": "203.0.113.7, 127.0.0.1"}, proxies))
'203.0.113.7'
>>> key(client_ip("198.51.100.2", {"X-Forwarded-For": "203.0.113.7"}, proxies))
'198.51.100.2'
>>> key(client_ip("2001:db8:1:2:aaaa::1", {}, proxies))
'2001:db8:1:2::/64'
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum

IP = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network

#: Entries of a forwarding header read at most: a longer chain is cut at the trusted proxy.
MAX_HOPS = 32
#: Header length read at most (a proxy's entry is at most a few dozen bytes).
MAX_HEADER = 2048


class ProxyHeader(StrEnum):
    """The header the trusted proxy writes the client's address into."""

    X_FORWARDED_FOR = "x-forwarded-for"
    FORWARDED = "forwarded"


@dataclass(frozen=True, slots=True)
class Proxies:
    """The trusted proxies' networks and the header they write (none: no proxy trusted).

    >>> Proxies.parse(["10.0.0.0/8", "::1"]).trusts(ipaddress.ip_address("10.1.2.3"))
    True
    >>> Proxies().trusts(ipaddress.ip_address("127.0.0.1"))
    False
    """

    networks: tuple[Network, ...] = ()
    header: ProxyHeader = ProxyHeader.X_FORWARDED_FOR

    @classmethod
    def parse(
        cls, cidrs: Iterable[str], header: ProxyHeader = ProxyHeader.X_FORWARDED_FOR
    ) -> Proxies:
        """Networks from CIDR strings (``ValueError`` names one that does not parse)."""
        return cls(tuple(ipaddress.ip_network(c.strip(), strict=False) for c in cidrs), header)

    def trusts(self, ip: IP) -> bool:
        return any(ip in net for net in self.networks)


def parse_ip(text: str) -> IP | None:
    """An address as a proxy may write it (``1.2.3.4``, ``1.2.3.4:80``, ``[::1]:80``, ``::1``,
    quoted), IPv4-mapped IPv6 as IPv4; ``None`` for anything else (``unknown``, ``_hidden``).

    >>> parse_ip('"[2001:db8::1]:4711"'), parse_ip("192.0.2.1:80"), parse_ip("unknown")
    (IPv6Address('2001:db8::1'), IPv4Address('192.0.2.1'), None)
    """
    text = text.strip().strip('"').strip()
    if text.startswith("["):
        text = text[1 : text.find("]")] if "]" in text else ""
    elif text.count(":") == 1:  # IPv4 with a port (IPv6 has more than one colon)
        text = text.partition(":")[0]
    text = text.partition("%")[0]  # a zone index says nothing about who it is
    try:
        ip = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


def key(ip: IP | None) -> str:
    """The per-address budgets' key: IPv4 itself, IPv6 its /64 (``?`` when unknown).

    >>> key(ipaddress.ip_address("192.0.2.1")), key(ipaddress.ip_address("2001:db8::1"))
    ('192.0.2.1', '2001:db8::/64')
    """
    if ip is None:
        return "?"
    if isinstance(ip, ipaddress.IPv6Address):
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


def client_ip(peer: str | None, headers: Mapping[str, str], proxies: Proxies) -> IP | None:
    """The client's address: the peer's, or the forwarded one when the peer is trusted."""
    ip = parse_ip(peer) if peer else None
    if ip is None or not proxies.trusts(ip):
        return ip
    for hop in reversed(_hops(headers, proxies.header)):
        forwarded = parse_ip(hop)
        if forwarded is None:
            return ip  # a trusted proxy wrote something unreadable: stop at that proxy
        ip = forwarded
        if not proxies.trusts(ip):
            return ip
    return ip  # every hop trusted: the left-most one


def forwarded_host(headers: Mapping[str, str], proxies: Proxies) -> str | None:
    """The host the client asked the proxy for, as the proxy forwards it (else ``None``):
    ``X-Forwarded-Host``, or ``Forwarded``'s ``host=``; the right-most, which the nearest
    proxy wrote. Only meaningful when the peer is a trusted proxy."""
    if proxies.header is ProxyHeader.FORWARDED:
        hosts = _forwarded_params(_header(headers, "Forwarded"), "host")
    else:
        hosts = _header(headers, "X-Forwarded-Host").split(",")
    hosts = [h.strip().strip('"') for h in hosts]
    hosts = [h for h in hosts if h]
    return hosts[-1] if hosts else None


def _header(headers: Mapping[str, str], name: str) -> str:
    # a header sent more than once counts as one list (websockets' Headers keeps every copy)
    get_all = getattr(headers, "get_all", None)
    value = ", ".join(get_all(name)) if get_all is not None else headers.get(name) or ""
    if len(value) > MAX_HEADER:  # the right-most entries, none of them cut in two
        value = value[-MAX_HEADER:].partition(",")[2]
    return value


def _hops(headers: Mapping[str, str], header: ProxyHeader) -> list[str]:
    """The forwarding header's entries, left to right (only the right-most ``MAX_HOPS``)."""
    match header:
        case ProxyHeader.X_FORWARDED_FOR:
            hops = _header(headers, "X-Forwarded-For").split(",")
        case ProxyHeader.FORWARDED:
            # an element without ``for=`` was written by a proxy all the same: it stops the walk
            hops = [h or "-" for h in _forwarded_params(_header(headers, "Forwarded"), "for")]
    hops = [h for h in hops if h.strip()]
    return hops[-MAX_HOPS:]


def _forwarded_params(value: str, name: str) -> list[str]:
    """One parameter of each element of an RFC 7239 ``Forwarded`` value, in order (``""`` for
    an element without it).

    >>> _forwarded_params('for=192.0.2.60;proto=http, for="[2001:db8::17]:4711"', "for")
    ['192.0.2.60', '"[2001:db8::17]:4711"']
    """
    found = []
    for element in value.split(","):
        got = ""
        for pair in element.split(";"):
            k, _, v = pair.partition("=")
            if k.strip().lower() == name:
                got = v.strip()
        found.append(got)
    return found
