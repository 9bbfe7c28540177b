"""A page whose room moved to another server process (a planned handover) is told
``closing`` ("the room moved") on its open connection and takes its seat back there by itself."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import orjson
import pytest
from playwright.sync_api import BrowserContext

from protocol import messages as m
from tests.web.conftest import LiveServer, create_room, watch_errors

pytestmark = pytest.mark.slow


def test_a_page_resumes_on_its_connection_when_its_room_moved(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    page = new_context().new_page()
    errors = watch_errors(page)
    sent: list[dict[str, Any]] = []
    page.on(
        "websocket",
        lambda ws: ws.on("framesent", lambda frame: sent.append(orjson.loads(frame))),
    )
    code = create_room(page, live.base, "Mia", "shithead", seats=3)

    def tell_moved() -> None:
        people = live.server.connected
        (conn,) = [c for c in people.sockets if people.room_of(c) == code]
        text = m.dump(m.Closing(reason="the room moved; resume with your token"))
        live.server.connected.send(conn, text)

    live.call(tell_moved)
    page.wait_for_function("() => document.querySelector('.toast.show') !== null")
    page.wait_for_selector(".lobby .code")
    for _ in range(100):  # bounded: the resume goes out on the same connection
        if any(f.get("type") == "resume" and f.get("room") == code for f in sent):
            break
        page.wait_for_timeout(50)
    resumes = [f for f in sent if f.get("type") == "resume"]
    assert resumes and resumes[0]["room"] == code and resumes[0]["token"]
    page.wait_for_selector(".seat.mine")  # still in the seat, on the same page
    assert all(not e for e in errors), errors


# Records, in the page, when each WebSocket was opened and when one closed.
SOCKET_TIMES = """
(() => {
  const Real = window.WebSocket;
  window.__opened = [];
  window.__closed = [];
  window.WebSocket = function (url) {
    const ws = new Real(url);
    window.__opened.push(performance.now());
    ws.addEventListener("close", () => window.__closed.push(performance.now()));
    return ws;
  };
  window.WebSocket.prototype = Real.prototype;
  Object.assign(window.WebSocket, { OPEN: Real.OPEN, CLOSED: Real.CLOSED });
})();
"""


def test_a_page_told_the_server_is_going_away_reconnects_without_the_backoff(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    page = new_context().new_page()
    errors = watch_errors(page)
    page.add_init_script(SOCKET_TIMES)
    code = create_room(page, live.base, "Ned", "shithead", seats=3)

    closes: list[asyncio.Future[None]] = []

    def going_away() -> None:  # what a stopping process does: closing, then 1001
        people = live.server.connected
        (conn,) = [c for c in people.sockets if people.room_of(c) == code]
        people.send(conn, m.dump(m.Closing(reason="server shutting down; reconnect")))
        people.sockets[conn].flush()
        closes.append(asyncio.ensure_future(people.sockets[conn].ws.close(1001, "going away")))

    live.call(going_away)
    page.wait_for_function("() => window.__opened.length === 2 && window.cardroom.online")
    closed, opened = page.evaluate("() => [window.__closed[0], window.__opened[1]]")
    # the next socket at once (a dropped connection waits 250 ms first)
    assert opened - closed < 200, (closed, opened)
    page.wait_for_function(f"() => window.cardroom.room === '{code}' && window.cardroom.seat === 0")
    assert not errors
