"""An event's page (/e/CODE) in the browser (docs/events.md): two pages join an event by its
code and see who is in; once the host starts it, each shows the page's player their table with a
way to it, and the tables with links to watch them; the host has bots play the three people's
seats, and when the event is over both pages show the final standings and each deal across its
tables with its replay. Screenshots at 375 and 1280 px, checked with axe."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from clients import CardroomClient
from protocol import messages as m
from server.net.server import CardroomServer
from tests.support.web import device_of, on_server, shoot, watch_console
from tests.web.conftest import STEP_MS, LiveServer

pytestmark = pytest.mark.slow

HOST: dict[str, Any] = {}


async def host_opens(server: CardroomServer) -> str:
    device = server.devices.mint("test:event-host")
    client = await CardroomClient.connect(f"ws://127.0.0.1:{server.port}/ws", device=device)
    HOST["client"] = client
    create = m.EventCreate(
        id="c", name="Hilde", game="sheepshead", table_size=5, rounds=2, hands=1, duplicate=True
    )
    await client.request(create, m.Ack)
    frame = await client.wait_for(lambda x: isinstance(x, m.EventFrame), timeout=5)
    assert isinstance(frame, m.EventFrame)
    return frame.info.code


async def host_says(code: str, op: m.EventOpName, target: str | None = None) -> None:
    client: CardroomClient = HOST["client"]
    await client.request(
        m.EventHost(id=op + (target or ""), event=code, op=op, target=target), m.Ack
    )


async def host_leaves() -> None:
    client: CardroomClient = HOST.pop("client")
    await client.close()


def join(page: Page, base: str, code: str, name: str) -> None:
    page.goto(f"{base}/e/{code}")
    expect(page.locator(".ev-where")).to_be_visible(timeout=STEP_MS)
    page.fill("#ev-name", name)
    page.click('[data-act="event-join"]')
    expect(page.locator(".ev-people")).to_contain_text(name, timeout=STEP_MS)


def test_two_pages_follow_an_event_to_its_final_standings(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    code = on_server(live, host_opens(live.server))
    pages = [new_context().new_page() for _ in range(2)]
    errors = [watch_console(p) for p in pages]
    for page, name in zip(pages, ("Ann", "Bob"), strict=True):
        join(page, live.base, code, name)
    expect(pages[0].locator(".ev-people li")).to_have_count(3, timeout=STEP_MS)
    assert all(device_of(p) for p in pages)
    shoot(pages[0], "event-lobby")
    on_server(live, host_says(code, "start"))
    for page in pages:  # each page's player: their table, and a way to it
        expect(page.locator(".ev-you")).to_contain_text("1", timeout=STEP_MS)
        expect(page.locator('[data-act="event-table"]')).to_be_visible()
        expect(page.locator(".ev-table a")).to_have_count(1)  # watch the one table
    # the hands left are counted in words: one hand, not "1 hands"
    expect(pages[1].locator(".ev-where")).to_contain_text("1 hand left")
    shoot(pages[1], "event-playing")
    for name in ("Hilde", "Ann", "Bob"):  # bots play for the three, their scores kept
        on_server(live, host_says(code, "replace", name))
    for page in pages:
        expect(page.locator(".ev-where")).to_contain_text("over", timeout=60_000)
        rows = page.locator(".ev-standings tbody tr")
        expect(rows).to_have_count(3)
        expect(page.locator(".ev-deals > li")).to_have_count(2)  # two rounds of one hand
        hrefs = page.locator(".ev-deals a").evaluate_all(
            "els => els.map(e => e.getAttribute('href'))"
        )
        assert hrefs and all(h.startswith("/r/") and h.endswith("/history") for h in hrefs)
        expect(page.locator(".ev-seed")).to_have_text(re.compile("^[0-9a-f]{64}$"))
    shoot(pages[0], "event-over")
    for page in pages:  # a phone's width: no sideways scroll (the standings scroll alone)
        page.set_viewport_size({"width": 375, "height": 800})
        assert page.evaluate("document.documentElement.scrollWidth") <= 375
    on_server(live, host_leaves())
    for bad in errors:
        assert not bad, bad
