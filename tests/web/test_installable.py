"""The app on the home screen: a web app manifest with real icons, a service worker that keeps
the shell so the page loads offline and says so, and "your turn" as a notification while the
tab is in the background (only for a player who asked)."""

from __future__ import annotations

import json
import struct
import urllib.request
from collections.abc import Callable

import pytest
from playwright.sync_api import BrowserContext, Page

from tests.web.conftest import LiveServer, create_room, watch_errors

pytestmark = pytest.mark.slow

# Every notification the page shows, through the service worker or its own; and a tab the test
# sends to the background (document.hidden).
NOTE_SPY = """
(() => {
  window.__notes = [];
  const seen = (title, options) => window.__notes.push({ title, body: (options || {}).body });
  if (window.ServiceWorkerRegistration) {
    const show = ServiceWorkerRegistration.prototype.showNotification;
    ServiceWorkerRegistration.prototype.showNotification = function (title, options) {
      seen(title, options);
      return show.call(this, title, options).catch(() => {});
    };
  }
  if (window.Notification) {
    const Real = window.Notification;
    window.Notification = class extends Real {
      constructor(title, options) { seen(title, options); super(title, options); }
    };
    Object.defineProperty(window.Notification, "permission", { get: () => Real.permission });
    window.Notification.requestPermission = (...a) => Real.requestPermission(...a);
  }
  window.__hidden = false;
  Object.defineProperty(Document.prototype, "hidden", {
    configurable: true, get: () => window.__hidden });
})();
"""
MY_TURN_JS = """() => { const app = window.cardroom;
  return !!app.state && app.state.view.to_act.includes(app.seat); }"""
CACHED_JS = "async (path) => !!(await caches.match(path))"


def get(url: str) -> tuple[str, bytes]:
    with urllib.request.urlopen(url, timeout=10) as res:
        return res.headers["Content-Type"], res.read()


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_the_manifest_names_the_app_and_its_icons_are_real(live: LiveServer) -> None:
    kind, body = get(live.base + "/manifest.webmanifest")
    assert kind.startswith("application/manifest+json")
    manifest = json.loads(body)
    assert manifest["name"] == "Cardroom" and manifest["start_url"] == "/"
    assert manifest["display"] == "standalone" and manifest["scope"] == "/"
    sizes = set()
    for icon in manifest["icons"]:
        kind, data = get(live.base + icon["src"])
        assert kind.startswith(icon["type"]), (icon, kind)
        if icon["type"] == "image/png":
            width, height = png_size(data)
            assert icon["sizes"] == f"{width}x{height}"
            sizes.add((width, icon.get("purpose", "any")))
    # what browsers ask of an installable app: 192 and 512 px, and one a launcher may crop
    assert {(192, "any"), (512, "any"), (512, "maskable")} <= sizes
    _, page = get(live.base + "/")
    assert b'rel="manifest" href="/manifest.webmanifest"' in page


def wait_cached(page: Page, *paths: str) -> None:
    for path in paths:
        for _ in range(300):  # 30 s: the worker fetches the whole shell on a busy machine
            if page.evaluate(CACHED_JS, path):
                break
            page.wait_for_timeout(100)
        else:
            raise AssertionError(f"{path} never cached")


def test_the_shell_loads_offline_and_says_it_is_offline(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    context = new_context()
    page = context.new_page()
    errors = watch_errors(page)
    page.goto(live.base + "/")
    page.wait_for_function("() => !!navigator.serviceWorker.controller")
    # the first visit's files are kept once the worker runs: the page and every module it loaded
    wait_cached(page, "/", "/js/app.js", "/js/sheepshead.js", "/app.css", "/i18n/en.json")
    context.set_offline(True)
    for address in ("/", "/r/ABCDE"):  # any of the app's addresses is the same page
        page.goto(live.base + address)
        page.wait_for_selector("#net.down")
        page.wait_for_function(
            "(text) => document.getElementById('net').textContent === text",
            arg="You are offline",
        )
        assert page.is_visible(".brand")
    # back online: connected again by itself
    context.set_offline(False)
    page.wait_for_function("() => window.cardroom.online")
    assert page.inner_text("#net") == ""
    assert not errors, errors


def start_hidden_game(page: Page, live: LiveServer, ask: bool) -> None:
    create_room(page, live.base, "Ann", "shithead", seats=2)
    if ask:
        page.click('[data-act="notify"]')
        page.wait_for_selector('[data-act="notify"][aria-pressed="true"]')
        page.reload()  # remembered
        page.wait_for_selector('[data-act="notify"][aria-pressed="true"]')
    page.evaluate("window.__hidden = true")
    page.click('[data-act="host"][data-op="start"]')
    # the swap: Ann is asked to be ready, which is her turn
    page.wait_for_function(MY_TURN_JS)


def test_your_turn_is_a_notification_in_the_background_for_who_asked(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    context = new_context(permissions=["notifications"])
    context.add_init_script(NOTE_SPY)
    page = context.new_page()
    errors = watch_errors(page)
    start_hidden_game(page, live, ask=True)
    page.wait_for_function("() => window.__notes.length > 0")
    note = page.evaluate("window.__notes[0]")
    room = page.evaluate("window.cardroom.room")
    assert note == {"title": "Your turn", "body": f"Room {room}: the table is waiting for you."}
    assert page.evaluate("window.__notes.length") == 1
    # asked off again: the button says so, and is remembered
    page.click('[data-act="notify"]')
    page.wait_for_selector('[data-act="notify"][aria-pressed="false"]')
    assert page.evaluate("localStorage.getItem('cardroom.notify')") is None
    assert not errors, errors


def test_no_notification_for_who_did_not_ask_or_is_looking(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    # allowed by the browser, never asked for at the table: nothing
    context = new_context(permissions=["notifications"])
    context.add_init_script(NOTE_SPY)
    page = context.new_page()
    start_hidden_game(page, live, ask=False)
    page.wait_for_timeout(300)
    assert page.evaluate("window.__notes") == []
    # asked for, but the tab is in front: the sound and the screen say it, no notification
    page2 = new_context(permissions=["notifications"])
    page2.add_init_script(NOTE_SPY)
    seen = page2.new_page()
    create_room(seen, live.base, "Bea", "shithead", seats=2)
    seen.click('[data-act="notify"]')
    seen.wait_for_selector('[data-act="notify"][aria-pressed="true"]')
    seen.click('[data-act="host"][data-op="start"]')
    seen.wait_for_function(MY_TURN_JS)
    seen.wait_for_timeout(300)
    assert seen.evaluate("window.__notes") == []
