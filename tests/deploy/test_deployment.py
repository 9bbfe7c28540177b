"""The shipped deployment run for real: Redis, two ``cardroom serve --redis``
processes trusting nginx (``--trusted-proxy 127.0.0.1/32``), and Debian's nginx with the
repository's ``deploy/nginx.conf``. Through the proxy: 300 people on 30 addresses play, one
address is still capped, a browser plays a game, and a process SIGKILLed mid-game leaves its
rooms to the other. Every process is stopped (at last killed) when a test ends, failed or not.
"""

from __future__ import annotations

import asyncio
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus
from websockets.typing import Origin

from clients import CardroomClient
from server.tools.bench.redis_server import RedisServer
from tests.deploy.stack import Stack, stack
from tests.support.redis_games import Acked, assert_log_holds, play, play_to_the_end
from tests.web.conftest import CHROMIUM_ARGS, STEP_MS, create_room, shithead_click_turn

pytestmark = pytest.mark.slow

PEOPLE = 300
ADDRESSES = 30  # 10 people an address: a family, a café, a school's NAT
TURNS = 20  # human turns each table plays (whole games: the SIGKILL test and the browser)


@pytest.fixture
def redis(tmp_path: Path) -> Iterator[RedisServer]:
    """The redis_server fixture's Redis, with docker-compose.yml's ``appendfsync everysec``
    (the fixture's ``always`` waits for the disk on every write: under 300 people on a shared
    machine a call then outlasted the store's 2 s timeout)."""
    (tmp_path / "redis").mkdir()
    with RedisServer(tmp_path / "redis", fsync="everysec") as server:
        yield server


@pytest.fixture
def deployment(tmp_path: Path, redis: RedisServer) -> Iterator[Stack]:
    with stack(tmp_path, redis.url) as running:
        yield running


def source(i: int) -> tuple[str, int]:
    return (f"127.0.2.{1 + i % ADDRESSES}", 0)


async def test_300_people_on_30_addresses_play_through_the_proxy(deployment: Stack) -> None:
    # once, of 150 people through nginx only 100 got in (50 per process, all
    # counted against nginx's address); the default --max-per-address is not raised here
    async with asyncio.timeout(90):
        people = await asyncio.gather(
            *(CardroomClient.connect(deployment.url, local_addr=source(i)) for i in range(PEOPLE))
        )
        assert sum(deployment.metric("cardroom_connections")) == PEOPLE
        hosts, guests = people[::2], people[1::2]
        await asyncio.gather(*(h.create("shithead", seats=2, name="Ann") for h in hosts))
        codes = [h.room for h in hosts]
        assert all(codes) and len(set(codes)) == PEOPLE // 2
        await asyncio.gather(
            *(g.join(code, name="Bob") for g, code in zip(guests, codes, strict=True) if code)
        )
        await asyncio.gather(*(h.host("start") for h in hosts))
        acked: list[Acked] = [{} for _ in hosts]
        await asyncio.gather(
            *(play([h, g], a, TURNS) for h, g, a in zip(hosts, guests, acked, strict=True))
        )
        assert all(len(a) >= TURNS // 2 for a in acked)  # every table played
        # the rooms live in both processes (nginx spread the people)
        assert all(rooms > 0 for rooms in deployment.metric("cardroom_rooms"))
        await asyncio.gather(*(p.close() for p in people))
    refused = deployment.metric('cardroom_connections_refused_total{cap="per_address"}')
    assert refused == [0.0, 0.0]


async def test_one_address_behind_the_proxy_is_still_capped(deployment: Stack) -> None:
    let_in: list[CardroomClient] = []
    statuses = []
    async with asyncio.timeout(60):
        for _ in range(120):  # one after another: nginx spreads them evenly
            try:
                let_in.append(
                    await CardroomClient.connect(deployment.url, local_addr=("127.0.3.1", 0))
                )
            except InvalidStatus as exc:
                statuses.append(exc.response.status_code)
        # the address has its 50 (--max-per-address) in all, not 50 a process: each process
        # counts the other's sockets through Redis (written just after each arrival: one
        # that reaches the other process before that write lands is one more)
        refused = deployment.metric('cardroom_connections_refused_total{cap="per_address"}')
        assert 50 <= len(let_in) <= 52 and statuses == [503] * (120 - len(let_in))
        assert sum(refused) == 120 - len(let_in)
        # someone else, behind the same proxy, is still let in
        other = await CardroomClient.connect(deployment.url, local_addr=("127.0.3.2", 0))
        await asyncio.gather(other.close(), *(c.close() for c in let_in))


async def test_a_page_of_another_site_is_refused_through_the_proxy(deployment: Stack) -> None:
    own = deployment.base  # the Host nginx forwards, port included: the page's own origin
    ws = await connect(deployment.url, origin=Origin(own), local_addr=source(0))
    await ws.close()
    with pytest.raises(InvalidStatus) as refused:
        await connect(deployment.url, origin=Origin("https://evil.example"), local_addr=source(0))
    assert refused.value.response.status_code == 403
    assert sum(deployment.metric('cardroom_connections_refused_total{cap="origin"}')) == 1


def test_a_browser_plays_a_game_through_the_proxy(deployment: Stack) -> None:
    path = shutil.which("chromium")
    assert path, "Chromium is needed: apt-get install -y chromium (make test installs it)"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            page.set_default_timeout(STEP_MS)
            errors: list[str] = []
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            sockets: list[str] = []
            page.on("websocket", lambda ws: sockets.append(ws.url))
            # the page's WebSocket carries its Origin: same origin through the proxy
            code = create_room(page, deployment.base, "Ann", "shithead", seats=2)
            # made at /ws, the room was let go (moved); the page resumed it at its
            # own address, which nginx sends to the process the code hashes to
            ws = deployment.base.replace("http://", "ws://")
            assert sockets == [f"{ws}/ws", f"{ws}/ws/{code}"]
            page.click('[data-act="host"][data-op="fill_bots"]')
            page.wait_for_selector(".seat:nth-child(2) >> text=Bot 2")
            page.click('[data-act="host"][data-op="start"]')
            deadline = time.monotonic() + 90
            moves = 0
            while shithead_click_turn(page) != "over":
                assert time.monotonic() < deadline, "the game did not end in time"
                moves += 1
            page.wait_for_selector(".result h2")
            assert moves > 3 and not errors, errors
        finally:
            browser.close()
    assert deployment.metric('cardroom_connections_refused_total{cap="origin"}') == [0.0, 0.0]
    assert deployment.metric("cardroom_relayed_frames_total") == [0.0, 0.0]  # none forwarded


async def test_a_process_killed_mid_game_leaves_its_rooms_to_the_other(
    deployment: Stack, redis: RedisServer
) -> None:
    async with asyncio.timeout(90):
        ann = await CardroomClient.connect(deployment.url, local_addr=source(0))
        bob = await CardroomClient.connect(deployment.url, local_addr=source(1))
        await ann.create("shithead", seats=2, name="Ann")
        assert ann.room is not None and ann.token is not None
        await bob.join(ann.room, name="Bob")
        assert bob.token is not None
        await ann.host("start")
        acked: Acked = {}
        await play([ann, bob], acked, 10)
        code, tokens = ann.room, (ann.token, bob.token)
        owner = deployment.metric("cardroom_rooms").index(1.0)
        deployment.processes[owner].kill()  # SIGKILL: no shutdown, no final save
        killed = time.monotonic()
        await asyncio.gather(ann.close(), bob.close())
        # both come back through nginx, which sends them to the process still alive
        ann = await CardroomClient.connect(deployment.url, local_addr=source(0))
        bob = await CardroomClient.connect(deployment.url, local_addr=source(1))
        await resume(ann, code, tokens[0])
        await resume(bob, code, tokens[1])
        took = time.monotonic() - killed
        state = await ann.wait_state(timeout=10)
        assert state.version >= max(acked)  # nothing acknowledged was lost
        await play_to_the_end([ann, bob], acked)
    print(f"resumed {took:.1f} s after the SIGKILL")
    await assert_log_holds(redis.url, code, acked)


async def resume(client: CardroomClient, code: str, token: str) -> None:
    """Resume once the dead owner's lease has run out (``room_moved`` until then)."""
    for _ in range(100):
        try:
            await client.resume(code, token, timeout=10)
            return
        except Exception as exc:  # the room not taken over yet: try again
            if getattr(exc, "code", None) not in ("room_moved", "room_not_found", "unavailable"):
                raise
            await asyncio.sleep(0.1)
    raise AssertionError("the room was never taken over")
