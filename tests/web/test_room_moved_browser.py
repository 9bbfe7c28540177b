"""A page whose room moved to another server process (a planned handover, issue 22) is told
``closing`` ("the room moved") on its open connection and takes its seat back there by itself."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson
from playwright.sync_api import BrowserContext

from protocol import messages as m
from tests.web.conftest import LiveServer, create_room, watch_errors


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
