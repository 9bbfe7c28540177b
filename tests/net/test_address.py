"""The client's address behind a trusted proxy, and the key per-address budgets count
(server/net/address.py): parsing, and that a client can never choose its own key."""

from __future__ import annotations

import ipaddress

import pytest
from hypothesis import given
from hypothesis import strategies as st

from server.net.address import (
    MAX_HEADER,
    Proxies,
    ProxyHeader,
    client_ip,
    forwarded_host,
    key,
    parse_ip,
)
from server.net.admission import same_origin

PROXY = Proxies.parse(["127.0.0.1/32", "10.0.0.0/8"])
FORWARDED = Proxies.parse(["127.0.0.1/32"], ProxyHeader.FORWARDED)


def untrusted(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    return not PROXY.trusts(ip)


def unmapped(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    return isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is None


ipv4 = st.ip_addresses(v=4).filter(untrusted)
ipv6: st.SearchStrategy[ipaddress.IPv4Address | ipaddress.IPv6Address]
ipv6 = st.ip_addresses(v=6).filter(unmapped)
junk = st.text(max_size=300) | st.lists(st.ip_addresses().map(str), max_size=8).map(", ".join)


def xff(value: str) -> dict[str, str]:
    return {"X-Forwarded-For": value}


def test_an_untrusted_peer_is_its_own_address_whatever_it_sends() -> None:
    got = client_ip("198.51.100.7", xff("203.0.113.1"), PROXY)
    assert key(got) == "198.51.100.7"
    assert key(client_ip("198.51.100.7", xff("203.0.113.1"), Proxies())) == "198.51.100.7"


def test_the_right_most_untrusted_entry_is_the_client() -> None:
    # the client wrote "6.6.6.6"; nginx appended what it saw; a second trusted hop after it
    assert str(client_ip("127.0.0.1", xff("6.6.6.6, 203.0.113.9, 10.1.1.1"), PROXY)) == (
        "203.0.113.9"
    )
    # every hop trusted: the left-most one
    assert str(client_ip("127.0.0.1", xff("10.0.0.2, 10.0.0.3"), PROXY)) == "10.0.0.2"
    # no header from the proxy: the proxy itself
    assert str(client_ip("127.0.0.1", {}, PROXY)) == "127.0.0.1"


def test_an_unreadable_entry_stops_at_the_proxy_that_wrote_it() -> None:
    assert str(client_ip("127.0.0.1", xff("203.0.113.9, garbage"), PROXY)) == "127.0.0.1"
    assert str(client_ip("127.0.0.1", xff("203.0.113.9, ::zz, 10.0.0.4"), PROXY)) == "10.0.0.4"


def test_repeated_headers_are_one_list() -> None:
    from websockets.datastructures import Headers

    headers = Headers([("X-Forwarded-For", "6.6.6.6"), ("X-Forwarded-For", "203.0.113.9")])
    assert str(client_ip("127.0.0.1", headers, PROXY)) == "203.0.113.9"


def test_rfc_7239_forwarded() -> None:
    value = 'for=6.6.6.6, for="[2001:db8:cafe::17]:4711";proto=https;host="cards.example"'
    headers = {"Forwarded": value}
    assert key(client_ip("127.0.0.1", headers, FORWARDED)) == "2001:db8:cafe::/64"
    assert forwarded_host(headers, FORWARDED) == "cards.example"
    # an element without for= (or "unknown", or an obfuscated name) stops the walk there
    for last in ("proto=http", "for=unknown", "for=_hidden"):
        headers = {"Forwarded": f"for=203.0.113.9, {last}"}
        assert str(client_ip("127.0.0.1", headers, FORWARDED)) == "127.0.0.1"
    # a proxy set to write Forwarded: an X-Forwarded-For the client sent means nothing
    assert str(client_ip("127.0.0.1", xff("6.6.6.6"), FORWARDED)) == "127.0.0.1"


def test_ipv6_is_keyed_by_its_64() -> None:
    a = key(parse_ip("2001:db8:0:1::a"))
    assert a == key(parse_ip("2001:db8:0:1:ffff:ffff:ffff:ffff")) == "2001:db8:0:1::/64"
    assert a != key(parse_ip("2001:db8:0:2::a"))
    assert key(parse_ip("::ffff:192.0.2.1")) == "192.0.2.1"  # IPv4-mapped: the IPv4 itself
    assert key(parse_ip("fe80::1%eth0")) == "fe80::/64"
    assert key(None) == "?"


@pytest.mark.slow
@given(st.text(max_size=MAX_HEADER * 2))
def test_any_header_from_an_untrusted_peer_is_ignored(value: str) -> None:
    headers = {"X-Forwarded-For": value, "Forwarded": value, "X-Forwarded-Host": value}
    assert str(client_ip("198.51.100.7", headers, PROXY)) == "198.51.100.7"
    assert str(client_ip("198.51.100.7", headers, FORWARDED)) == "198.51.100.7"


@given(junk, ipv4 | ipv6)
def test_a_client_cannot_choose_its_key_behind_the_proxy(
    sent: str, seen: ipaddress.IPv4Address | ipaddress.IPv6Address
) -> None:
    # whatever the client put in the header, the proxy appends the address it saw
    got = client_ip("127.0.0.1", xff(f"{sent}, {seen}"), PROXY)
    assert key(got) == key(seen)
    forwarded = {"Forwarded": f'{sent}, for="[{seen}]"' if seen.version == 6 else f"for={seen}"}
    assert key(client_ip("127.0.0.1", forwarded, FORWARDED)) == key(seen)


@given(st.text(max_size=MAX_HEADER * 3))
def test_any_header_from_the_proxy_gives_an_address_it_holds_or_the_proxy(value: str) -> None:
    got = client_ip("127.0.0.1", xff(value), PROXY)
    assert got is not None
    assert str(got) == "127.0.0.1" or any(parse_ip(hop) == got for hop in value.split(","))


def test_a_long_header_is_read_from_the_right_and_never_cut_inside_an_entry() -> None:
    value = ", ".join(["203.0.113.77"] * 400) + ", 10.0.0.9"
    assert str(client_ip("127.0.0.1", xff(value), PROXY)) == "203.0.113.77"
    cut = "1" * (MAX_HEADER + 10) + "23.4.5.6"
    assert str(client_ip("127.0.0.1", xff(cut), PROXY)) == "127.0.0.1"


def test_same_origin() -> None:
    assert same_origin("http://127.0.0.1:8080", "127.0.0.1:8080")
    assert same_origin("https://cards.example", "cards.example")
    assert same_origin("http://[::1]:8080", "[::1]:8080")
    assert not same_origin("http://127.0.0.1:8081", "127.0.0.1:8080")
    assert not same_origin("http://evil.example", "cards.example")
    assert not same_origin("http://cards.example.evil.example", "cards.example")
    for bad in ("null", "", "file://", "http://x:port", "javascript:alert(1)", "http://[::1"):
        assert not same_origin(bad, "x:80")
