"""Play now in the browser: two people on two pages press Play now, see the wait (how many,
how long, Cancel), are seated at one table and play the game to its end; then the end of the
game offers Play now again, shows each player's rating change, and their page the new rating.
Screenshots of the wait and of the end go to build/screenshots."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, BrowserContext, Page

from server.net.server import ServerConfig
from server.rooms.settings import RoomSettings, one_address
from server.runtime.queue_service import QueueSettings
from server.store.leaderboard import player_id
from tests.support.web import device_of
from tests.web.conftest import (
    SCREENSHOTS,
    STEP_MS,
    LiveServer,
    play_together,
    serve_in_thread,
    watch_errors,
)

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def queue_live() -> Iterator[LiveServer]:
    """A server whose Shithead tables are two, behind a "proxy" (the pages say which address
    they come from, X-Forwarded-For: two identities of one address never sit together)."""
    config = ServerConfig(
        host="127.0.0.1",
        port=0,
        rate=1000.0,
        burst=1000.0,
        devices_per_address=100_000,
        trusted_proxies=("127.0.0.1/32",),
        rooms=one_address(RoomSettings(grace=60.0, idle_timeout=120.0, bot_delay=0.0)),
        queue=QueueSettings(shithead_table=2, fill_wait=60.0, tick=0.2, status_every=1.0),
    )
    with serve_in_thread(config) as live:
        yield live


def person(browser: Browser, address: str, width: int = 1280) -> tuple[BrowserContext, Page]:
    """A page whose requests come from ``address`` (as the trusted proxy says)."""
    ctx = browser.new_context(
        viewport={"width": width, "height": 900 if width > 600 else 740},
        reduced_motion="reduce",
        extra_http_headers={"X-Forwarded-For": address},
    )
    ctx.set_default_timeout(STEP_MS)
    return ctx, ctx.new_page()


def test_two_pages_press_play_now_and_play_a_game_together(
    queue_live: LiveServer, browser: Browser
) -> None:
    base = queue_live.base
    ann_ctx, ann = person(browser, "10.0.0.2")
    bob_ctx, bob = person(browser, "10.0.0.3", width=375)
    errors = [watch_errors(ann), watch_errors(bob)]
    try:
        ann.goto(base + "/")
        ann.fill("#name", "Ann")
        ann.click('[data-act="play-now"][data-game="shithead"]')
        ann.wait_for_selector(".queue-count >> text=1")
        # the wait counts on, and Cancel leaves the line
        ann.wait_for_function(
            "() => /[1-9]/.test(document.querySelector('.queue-time')?.textContent || '')",
            timeout=5000,
        )
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        ann.screenshot(path=str(SCREENSHOTS / "play-now-waiting.png"))
        ann.click('[data-act="queue-cancel"]')
        ann.wait_for_selector('[data-act="play-now"][data-game="shithead"]')
        assert queue_live.call(lambda: len(queue_live.server.queue.mine)) == 0 or _drained(
            queue_live
        )
        # both press Play now, a moment apart: one table
        ann.click('[data-act="play-now"][data-game="shithead"]')
        ann.wait_for_selector(".queue-count")
        bob.goto(base + "/")
        bob.fill("#name", "Bob")
        bob.click('[data-act="play-now"][data-game="shithead"]')
        for page in (ann, bob):
            page.wait_for_selector(".seat.mine, .felt")
            page.wait_for_function("() => !!(window.cardroom.state && window.cardroom.room)")
        room = {p.evaluate("window.cardroom.room") for p in (ann, bob)}
        assert len(room) == 1
        seats = {p.evaluate("window.cardroom.seat") for p in (ann, bob)}
        assert seats == {0, 1}

        moves = play_together((ann, bob))
        assert moves > 10
        # the end of the game offers Play now again
        for page in (ann, bob):
            page.wait_for_selector('[data-act="play-now"][data-key="play-now"]')
        bob.screenshot(path=str(SCREENSHOTS / "play-now-after-game.png"))
        # a Play now table is rated: each page shows its player's change, and their page the
        # new rating (one game played, its replay)
        for page in (ann, bob):
            page.wait_for_selector(".rating-changes li", timeout=10_000)
            me = player_id(device_of(page))
            info = page.evaluate("window.cardroom.info")
            assert info["rated"]
            mine = next(r for r in info["ratings"] if r["player"] == me)
            assert mine["after"] != mine["before"]
            page.click(f'.rating-changes a[href="/p/{me}"]')
            page.wait_for_selector('.rating-card[data-game="shithead"]')
            assert page.inner_text(".rating-card .big") == str(mine["after"])
            assert page.locator(".recent tbody tr").count() == 1
        assert all(not e for e in errors), errors
    finally:
        ann_ctx.close()
        bob_ctx.close()


def _drained(live: LiveServer) -> bool:
    """The cancel reached the server within a moment."""
    deadline = time.monotonic() + 5
    while live.call(lambda: len(live.server.queue.mine)):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True
