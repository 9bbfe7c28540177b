"""The front door over real sockets: per-address caps behind a trusted proxy (and never
chosen by a client that is not one), IPv6 per /64, and same-origin WebSockets by default."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence

import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import InvalidStatus
from websockets.http11 import Request
from websockets.typing import Origin

from server.net.admission import Gated
from server.net.server import CardroomServer, ServerConfig, _address
from tests.deploy.processes import http
from tests.support.http import get
from tests.support.server import make_config


def config(**kw: object) -> ServerConfig:
    return ServerConfig(port=0, rooms=make_config().rooms, **kw)  # type: ignore[arg-type]


@pytest.fixture
async def proxied() -> AsyncIterator[CardroomServer]:
    async with CardroomServer(config(trusted_proxies=("127.0.0.1/32",), max_per_address=2)) as s:
        yield s


async def open_ws(
    srv: CardroomServer,
    forwarded: str | None = None,
    source: str = "127.0.0.1",
    origin: str | None = None,
    extra: Sequence[tuple[str, str]] = (),
) -> ClientConnection:
    headers = [("X-Forwarded-For", forwarded)] if forwarded else []
    return await connect(
        srv.url,
        additional_headers=[*headers, *extra],
        origin=Origin(origin) if origin else None,
        local_addr=(source, 0),
    )


async def refused(srv: CardroomServer, *args: object, **kwargs: object) -> int:
    with pytest.raises(InvalidStatus) as caught:
        await open_ws(srv, *args, **kwargs)  # type: ignore[arg-type]
    return caught.value.response.status_code


def counted(srv: CardroomServer, cap: str) -> float:
    value: float = srv.metrics.refused.labels(cap)._value.get()  # _value is untyped (Any)
    return value


async def test_people_behind_the_proxy_are_counted_apart(proxied: CardroomServer) -> None:
    # once every connection through nginx counted against nginx's address
    held = [await open_ws(proxied, ip) for ip in ("203.0.113.5", "203.0.113.5", "203.0.113.6")]
    assert await refused(proxied, "203.0.113.5") == 503  # the same person's third
    assert counted(proxied, "per_address") == 1
    held.append(await open_ws(proxied, "203.0.113.7"))
    keys = sorted(c.address for c in proxied.connected.sockets.values())
    assert keys == ["203.0.113.5", "203.0.113.5", "203.0.113.6", "203.0.113.7"]
    for ws in held:
        await ws.close()


async def test_a_client_that_is_not_a_trusted_proxy_cannot_pick_its_key(
    proxied: CardroomServer,
) -> None:
    held = [await open_ws(proxied, f"198.51.100.{i}", source="127.0.0.2") for i in (1, 2)]
    assert await refused(proxied, "198.51.100.3", source="127.0.0.2") == 503
    assert {c.address for c in proxied.connected.sockets.values()} == {"127.0.0.2"}
    for ws in held:
        await ws.close()


async def test_a_client_cannot_prepend_its_way_past_the_cap(proxied: CardroomServer) -> None:
    # nginx appends the address it saw to what the client sent: the right-most one counts
    held = [await open_ws(proxied, f"10.9.9.{i}, 203.0.113.5") for i in (1, 2)]
    assert await refused(proxied, "10.9.9.3, 203.0.113.5") == 503
    for ws in held:
        await ws.close()


async def test_ipv6_clients_are_capped_per_64(proxied: CardroomServer) -> None:
    held = [await open_ws(proxied, f"2001:db8:0:1::{i}") for i in (1, 2)]
    assert await refused(proxied, "2001:db8:0:1:ffff::3") == 503  # any address of the /64
    held.append(await open_ws(proxied, "2001:db8:0:2::1"))  # the next /64 is someone else
    assert sorted({c.address for c in proxied.connected.sockets.values()}) == [
        "2001:db8:0:1::/64",
        "2001:db8:0:2::/64",
    ]
    for ws in held:
        await ws.close()


async def test_http_requests_know_the_forwarded_client(proxied: CardroomServer) -> None:
    # the key other budgets (history, rooms) read with _address(connection) for HTTP
    seen: list[str] = []
    requested = proxied.admission.requested

    def watch(connection: Gated, request: Request) -> None:
        requested(connection, request)
        seen.append(_address(connection))

    proxied.admission.requested = watch  # type: ignore[method-assign,assignment]
    forwarded = [("X-Forwarded-For", "203.0.113.40")]
    assert (await asyncio.to_thread(http, proxied.port, "/healthz", headers=forwarded))[0] == 200
    status, _ = await asyncio.to_thread(
        http, proxied.port, "/healthz", source="127.0.0.2", headers=forwarded
    )
    assert status == 200
    assert seen == ["203.0.113.40", "127.0.0.2"]


async def test_a_foreign_origin_is_refused(proxied: CardroomServer) -> None:
    # else any browser page could open a socket to the server
    assert await refused(proxied, origin="https://evil.example") == 403
    assert await refused(proxied, origin="null") == 403
    assert counted(proxied, "origin") == 2


async def test_same_origin_and_no_origin_are_let_in(proxied: CardroomServer) -> None:
    own = f"http://127.0.0.1:{proxied.port}"
    for ws in [await open_ws(proxied, origin=own), await open_ws(proxied)]:
        await ws.close()


async def test_a_forwarded_host_is_not_believed_unless_the_proxy_is_said_to_write_it(
    proxied: CardroomServer,
) -> None:
    # a proxy that passes the client's X-Forwarded-Host on would let any page name itself
    host = [("X-Forwarded-Host", "evil.example"), ("Forwarded", "host=evil.example")]
    assert await refused(proxied, "203.0.113.5", origin="http://evil.example", extra=host) == 403


async def test_behind_the_proxy_the_forwarded_host_is_the_origin_to_match() -> None:
    settings = config(trusted_proxies=("127.0.0.1/32",), forwarded_host=True)
    async with CardroomServer(settings) as srv:
        host = [("X-Forwarded-Host", "cards.example:8080")]
        ws = await open_ws(srv, "203.0.113.5", origin="http://cards.example:8080", extra=host)
        await ws.close()
        # the same from a peer that is not the proxy: its X-Forwarded-Host means nothing
        status = await refused(
            srv, "203.0.113.5", source="127.0.0.2", origin="http://cards.example:8080", extra=host
        )
        assert status == 403


async def test_a_name_pointed_at_the_server_is_not_its_own_origin() -> None:
    # DNS rebinding: a page of rebound.example, its name now pointing at this server, asks for
    # Host rebound.example from Origin http://rebound.example: same-origin, unless the server
    # knows its own names
    async def rebound(srv: CardroomServer) -> ClientConnection:
        page = f"rebound.example:{srv.port}"
        return await connect(
            f"ws://{page}/", origin=Origin(f"http://{page}"), host="127.0.0.1", port=srv.port
        )

    async with CardroomServer(config()) as srv:
        await (await rebound(srv)).close()
    async with CardroomServer(config(allowed_hosts=("127.0.0.1", "cards.example"))) as srv:
        with pytest.raises(InvalidStatus) as caught:
            await rebound(srv)
        assert caught.value.response.status_code == 421
        assert (await get(srv, "/", {"Host": "rebound.example"}))[0] == 421
        assert (await get(srv, "/", {"Host": "cards.example"}))[0] == 200
        assert (await get(srv, "/healthz", {"Host": "x.example"}))[0] == 200
        ws = await open_ws(srv, origin=f"http://127.0.0.1:{srv.port}")
        await ws.close()
        assert srv.metrics.http_refused.labels("host")._value.get() == 2
