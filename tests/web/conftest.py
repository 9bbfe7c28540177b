"""Browser tests: Debian's Chromium driven by Playwright (sync API) against a real server.

The server runs on its own event loop in a thread (Playwright's sync API owns the test's
thread). Every page a test opens is watched: a request to any host but the server fails it.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import re
import shutil
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, Position, sync_playwright

from protocol.records import RoomRecord
from server.net.server import CardroomServer, ServerConfig
from server.rooms.matches import DealSource
from server.rooms.settings import RoomSettings, one_address

T = TypeVar("T")
ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "build" / "screenshots"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-dev-shm-usage",  # containers often have a tiny /dev/shm
]
# Each action waits for the page at most this long (ms): a stuck page fails fast.
STEP_MS = 10_000


@dataclass
class LiveServer:
    server: CardroomServer
    loop: asyncio.AbstractEventLoop
    base: str
    # every URL any page asked for, with the test that asked
    requests: list[str] = field(default_factory=list)

    def call(self, fn: Callable[[], T]) -> T:
        """Run ``fn`` on the server's loop (its state belongs to that thread)."""
        done: Future[T] = Future()

        def run() -> None:
            try:
                done.set_result(fn())
            except Exception as exc:  # handed to the test's thread
                done.set_exception(exc)

        self.loop.call_soon_threadsafe(run)
        return done.result(timeout=10)

    def record(self, code: str) -> RoomRecord:
        """The room's record: its deal and every accepted action."""
        return self.call(lambda: self.server.manager.rooms[code].core.record())

    def source(self, code: str) -> DealSource:
        """The room's deal source (the server's keys and its nonce): its record's deals."""
        return self.call(lambda: self.server.manager.rooms[code].core.source)


@pytest.fixture(scope="session")
def live() -> Iterator[LiveServer]:
    # one server for the whole session, every page from 127.0.0.1: room budgets lifted
    settings = one_address(RoomSettings(grace=60.0, idle_timeout=120.0, bot_delay=0.0))
    # browsers act faster than people here: a generous rate limit
    config = ServerConfig(
        host="127.0.0.1",
        port=0,
        rate=1000.0,
        burst=1000.0,
        history_rate=1000.0,  # every test's history requests come from 127.0.0.1
        history_burst=1000.0,
        devices_per_address=100_000,  # ... and every page's hello
        rooms=settings,
    )
    # another copy of the web client to serve (screenshots of an older one, to compare)
    if os.environ.get("CARDROOM_WEB_ROOT"):
        config = dataclasses.replace(config, web_root=Path(os.environ["CARDROOM_WEB_ROOT"]))
    with serve_in_thread(config) as live:
        yield live


@contextlib.contextmanager
def serve_in_thread(config: ServerConfig) -> Iterator[LiveServer]:
    """A server with ``config`` on its own event loop in a thread, for browsers to reach."""
    server = CardroomServer(config)
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="cardroom-server", daemon=True)
    thread.start()
    asyncio.run_coroutine_threadsafe(server.start(), loop).result(timeout=20)
    try:
        yield LiveServer(server, loop, f"http://127.0.0.1:{server.port}")
    finally:
        asyncio.run_coroutine_threadsafe(server.stop(), loop).result(timeout=20)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=10)
        loop.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    # one per module, closed after it: Playwright's sync API holds an event loop on this
    # thread while it lives, and later asyncio tests need the thread to themselves
    path = shutil.which("chromium")
    assert path, "Chromium is needed: apt-get install -y chromium (make test installs it)"
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def new_context(live: LiveServer, browser: Browser) -> Iterator[Callable[..., BrowserContext]]:
    """Open browser contexts (separate people); all their requests must go to the server."""
    contexts: list[BrowserContext] = []
    foreign: list[str] = []
    server_host = urlsplit(live.base).netloc

    def make(**kwargs: Any) -> BrowserContext:
        # without animations Playwright need not wait for cards to settle before a click
        defaults = {"viewport": {"width": 1280, "height": 900}, "reduced_motion": "reduce"}
        ctx = browser.new_context(**{**defaults, **kwargs})
        ctx.set_default_timeout(STEP_MS)

        def seen(request: Any) -> None:
            live.requests.append(request.url)
            if urlsplit(request.url).netloc != server_host and not request.url.startswith("data:"):
                foreign.append(request.url)

        ctx.on("request", seen)
        contexts.append(ctx)
        return ctx

    yield make
    for ctx in contexts:
        ctx.close()
    assert not foreign, f"the page asked another host: {foreign}"


def watch_errors(page: Page) -> list[str]:
    """Collect the page's uncaught errors (a test asserts there are none)."""
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    return errors


# ------------------------------------------------------------------------------ flows


def open_room_form(page: Page, base: str | None = None) -> None:
    """Unfold the home page's new room form (it starts folded behind its button), going to the
    home page at ``base`` first when given; every test that fills the form starts here: call
    ``open_room_form(page, live.base)``, then fill ``#seats``, ``#hints`` and the rest."""
    if base is not None:
        page.goto(base + "/")
    fold = page.locator('[data-act="fold-new"]')
    if fold.get_attribute("aria-expanded") != "true":
        fold.click()
    page.wait_for_selector("#create-form", state="visible")


def create_room(
    page: Page, base: str, name: str, game: str, seats: int | None = None, timer: int = 0
) -> str:
    """Open the home page, create a room, and return its code (the lobby is showing)."""
    open_room_form(page, base)
    page.fill("#name", name)
    page.check(f'input[name="game"][value="{game}"]')
    if seats is not None:
        page.select_option("#seats", str(seats))
    page.select_option("#timer", str(timer))
    page.click('#create-form button[type="submit"]')
    page.wait_for_selector(".lobby .code")
    code = page.inner_text(".lobby .code").strip()
    assert re.fullmatch(r"[A-Z0-9]{5}", code), code
    return code


def join_room(page: Page, base: str, code: str, name: str) -> None:
    """Open a room's link and take a seat in it by name (the page is seated)."""
    page.goto(f"{base}/r/{code}")
    page.fill("#name", name)
    page.click('#join-form button[type="submit"]')
    page.wait_for_selector(".seat.mine")


TURN_JS = """() => {
                const a = document.getElementById("area");
                if (!a || !window.cardroom || window.cardroom.acting) return false;
                if (a.querySelector(".result")) return "over";
                if (a.querySelector('[data-act="ready"]')) return "ready";
                if (a.querySelector('button.card.playable[data-act="card"]')) return "play";
                if (a.querySelector('button.card.playable[data-act="flip"]')) return "flip";
                if (a.querySelector('[data-act="pickup"]')) return "pickup";
                for (const b of a.querySelectorAll('.actions button:not([disabled])')) {
                    if (b.dataset.act !== "cancel") return "act";
                }
                return false;
            }"""


def wait_turn(page: Page, timeout: float = STEP_MS) -> str:
    """Wait until this page can do something; return what: ready, play, flip, pickup, over."""
    return str(page.wait_for_function(TURN_JS, timeout=timeout).json_value())


def can_act(page: Page) -> str | None:
    """What this page can do right now (``None``: nothing, not its turn), without waiting."""
    what = page.evaluate(f"({TURN_JS})()")
    return str(what) if what else None


# Where a finger taps a card: its corner index, the part that shows when a long hand overlaps.
CORNER: Position = {"x": 8, "y": 14}


def shithead_click_turn(page: Page) -> str:
    """Play one Shithead turn with the mouse: the first highlighted card(s), else pick up."""
    what = wait_turn(page)
    try:
        if what == "ready":
            page.click('[data-act="ready"]', timeout=2000)
        elif what == "play":
            first = page.locator('#area button.card.playable[data-act="card"]').first
            code = first.get_attribute("data-card", timeout=2000)
            first.click(timeout=2000, position=CORNER)
            # the other cards of its rank that may go with it: choose them too
            sets = page.evaluate("window.cardroom.state.view.play_sets")
            for other in [c for c in next((s for s in sets if code in s), []) if c != code]:
                other_card = f'#area button.card.playable[data-card="{other}"]'
                page.click(other_card, timeout=2000, position=CORNER)
            play = page.locator('[data-act="play"]:not([disabled])')
            if play.count():  # in the give-up mode the card itself was the move
                play.click(timeout=2000)
        elif what == "flip":
            page.click('#area button.card.playable[data-act="flip"]', timeout=2000)
        elif what == "pickup":
            page.click('[data-act="pickup"]', timeout=2000)
    except Exception:  # the view moved on under the click (a bot played): look again
        if what == "over":
            raise
    return what


#: A bound for a stuck game in the browser, not a speed test.
GAME_SECONDS = 180


def play_to_the_end(page: Page) -> None:
    """Play this page's Shithead turns with the mouse until its game is over."""
    deadline = time.monotonic() + GAME_SECONDS
    while wait_turn(page) != "over":
        assert time.monotonic() < deadline, "the game did not end"
        shithead_click_turn(page)


def play_together(pages: Sequence[Page]) -> int:
    """Play every page's Shithead turns with the mouse, each when it can, until the game is
    over on all of them; the moves they made."""
    deadline = time.monotonic() + GAME_SECONDS
    done: set[int] = set()
    moves = 0
    while len(done) < len(pages):
        assert time.monotonic() < deadline, "the game did not end in time"
        for i, page in enumerate(pages):
            if i in done:
                continue
            what = can_act(page)
            if what is None:
                page.wait_for_timeout(5)  # not this player's turn: look at the next
            elif what == "over":
                done.add(i)
            else:
                shithead_click_turn(page)
                moves += 1
    return moves


def seen_cards_script() -> str:
    """An init script that records, per state version on screen, every card code the page's
    DOM held (card attributes, and rank-and-suit text such as "10♦" in text or attributes)."""
    return """
    (() => {
      const seen = {};
      window.__seenCards = seen;
      const ranks = {"10": "T"};
      const suits = {"♣": "C", "♦": "D", "♥": "H", "♠": "S"};
      const scan = () => {
        const app = window.cardroom;
        const version = app && app.state ? app.state.version : 0;
        const got = new Set(seen[version] || []);
        const html = document.documentElement.outerHTML;
        for (const m of html.matchAll(/data-card="([2-9TJQKA][CDHS])"/g)) got.add(m[1]);
        const text = (document.body ? document.body.innerText : "") + html;
        for (const m of text.matchAll(/(10|[2-9JQKA])\\s*([♣♦♥♠])/g)) {
          got.add((ranks[m[1]] || m[1]) + suits[m[2]]);
        }
        seen[version] = [...got];
      };
      const all = {subtree: true, childList: true, attributes: true, characterData: true};
      new MutationObserver(scan).observe(document, all);
      document.addEventListener("DOMContentLoaded", scan);
    })();
    """
