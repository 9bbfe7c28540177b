"""A join clicked before the page's connection is up waits for it. It was refused
``connection_lost`` at once and the click was lost without a word (seen in CI: a friend opened
the room's link and joined in the moment before the server's welcome arrived)."""

from __future__ import annotations

import re
from collections.abc import Callable

from playwright.sync_api import BrowserContext, WebSocketRoute

from tests.web.conftest import LiveServer, create_room, watch_errors


def test_a_join_clicked_before_the_welcome_arrives_is_sent_once_it_does(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    ann = new_context().new_page()
    code = create_room(ann, live.base, "Ann", "shithead", seats=2)
    bob = new_context().new_page()
    errors = watch_errors(bob)
    held: list[str | bytes] = []
    pages: list[WebSocketRoute] = []
    released = False

    def from_server(message: str | bytes) -> None:
        if released:
            pages[0].send(message)
        else:
            held.append(message)  # the server's frames (its welcome first) wait here

    def hold_the_welcome(ws: WebSocketRoute) -> None:
        pages.append(ws)
        ws.connect_to_server().on_message(from_server)

    bob.route_web_socket(re.compile(r".*/ws.*"), hold_the_welcome)
    bob.goto(f"{live.base}/r/{code}")
    bob.fill("#name", "Bob")
    bob.click('#join-form button[type="submit"]')
    bob.wait_for_function("() => window.cardroom && !window.cardroom.online")
    bob.wait_for_timeout(300)  # the click is handled while the page is not yet up
    assert len(pages) == 1 and any('"welcome"' in str(m) for m in held)
    released = True
    for message in held:
        pages[0].send(message)
    ann.wait_for_selector(".seat:nth-child(2) >> text=Bob", timeout=10_000)
    bob.wait_for_selector(".seat.mine")
    assert not errors, errors
