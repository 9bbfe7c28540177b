"""The page connects to its room's own address: ``/ws/CODE`` when it knows the room
(a shared link, a reload in a seat), ``/ws`` before; a proxy in front of several processes
routes by it. One process alone never says ``moved``: a room made there is not reconnected to.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import BrowserContext, Page

from tests.web.conftest import LiveServer, create_room, watch_errors

pytestmark = pytest.mark.slow


def sockets(page: Page) -> list[str]:
    urls: list[str] = []
    page.on("websocket", lambda ws: urls.append(ws.url))
    return urls


def test_the_page_connects_with_its_room_in_the_address(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    ws_base = live.base.replace("http://", "ws://")
    ann = new_context().new_page()
    errors = watch_errors(ann)
    ann_sockets = sockets(ann)
    code = create_room(ann, live.base, "Ann", "shithead", seats=2)
    assert ann_sockets == [f"{ws_base}/ws"]  # no room yet; one process: no move after create

    bob = new_context().new_page()
    bob_sockets = sockets(bob)
    bob.goto(f"{live.base}/r/{code}")  # a shared link
    bob.wait_for_function("() => window.cardroom && window.cardroom.online")
    assert bob_sockets == [f"{ws_base}/ws/{code}"]

    ann.reload()  # back in her seat, through the room's address
    ann.wait_for_selector(".lobby .code")
    ann.wait_for_function(f"() => window.cardroom.online && window.cardroom.room === '{code}'")
    assert ann_sockets[-1] == f"{ws_base}/ws/{code}"
    assert ann.evaluate("() => window.cardroom.seat") == 0 and not errors


def test_a_code_typed_on_the_home_page_is_joined_at_the_rooms_address(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    ws_base = live.base.replace("http://", "ws://")
    ann = new_context().new_page()
    code = create_room(ann, live.base, "Ann", "shithead", seats=3)

    bob = new_context().new_page()
    errors = watch_errors(bob)
    bob_sockets = sockets(bob)
    bob.goto(live.base + "/")  # no room in the address: the home page, at /ws
    bob.wait_for_function("() => window.cardroom && window.cardroom.online")
    assert bob_sockets == [f"{ws_base}/ws"]
    bob.fill("#name", "Bob")
    bob.fill("#code", code)
    bob.click('#join-form button[type="submit"]')
    bob.wait_for_function(f"() => window.cardroom.room === '{code}' && window.cardroom.seat === 1")
    # the join went over the room's own address, where a proxy routes it to its process
    assert bob_sockets == [f"{ws_base}/ws", f"{ws_base}/ws/{code}"]
    assert not errors

    cat = new_context().new_page()
    cat_sockets = sockets(cat)
    cat.goto(live.base + "/")
    cat.wait_for_function("() => window.cardroom && window.cardroom.online")
    cat.fill("#code", code)
    cat.click('[data-act="watch"]')
    cat.wait_for_function(f"() => window.cardroom.room === '{code}'")
    assert cat_sockets[-1] == f"{ws_base}/ws/{code}"  # watching, too, at the room's address
