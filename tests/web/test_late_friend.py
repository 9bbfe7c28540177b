"""A friend who arrives mid-game: Join does not bounce off a red toast over the Watch button;
they watch at once, are told they get a seat when the game ends, and play the next one."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import BrowserContext

from clients import CardroomClient
from tests.support.server import play_until_over
from tests.support.web import on_server, shoot
from tests.web.conftest import LiveServer, wait_turn, watch_errors

pytestmark = pytest.mark.slow


def test_a_late_friend_watches_then_gets_a_seat_for_the_next_game(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    async def opened() -> CardroomClient:
        ann = await CardroomClient.connect(live.server.url)
        await ann.create("shithead", seats=2, name="Ann")
        await ann.host("start")  # a bot in seat 1
        return ann

    ann: CardroomClient = on_server(live, opened())
    page = new_context(viewport={"width": 375, "height": 667}).new_page()
    errors = watch_errors(page)
    page.goto(f"{live.base}/r/{ann.room}")
    page.fill("#name", "Bob")
    page.click('#join-form button[type="submit"]')
    page.wait_for_selector(".waiting-note")
    assert "you get a seat when this game ends" in page.inner_text(".waiting-note")
    assert page.locator(".toast.show").count() == 0  # nothing covers the page
    assert page.evaluate("window.cardroom.seat") is None  # watching the game being played
    page.wait_for_selector("#area .felt")
    shoot(page, "late-friend-waiting")

    on_server(live, play_until_over(ann))
    page.wait_for_function("() => window.cardroom.seat === 1")
    page.wait_for_selector(".seat.mine")
    page.wait_for_selector(".waiting-note", state="detached")
    on_server(live, ann.host("next_game"))
    page.wait_for_function("() => window.cardroom.state.view.phase === 'swap'")
    assert wait_turn(page) == "ready"  # Bob's own hand in the swap of the next game
    on_server(live, ann.close())
    assert not errors, errors


def test_a_room_with_no_seat_to_give_says_so_beside_the_form_not_over_watch(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    async def locked() -> CardroomClient:
        ann = await CardroomClient.connect(live.server.url)
        await ann.create("shithead", seats=2, name="Ann")
        await ann.host("lock")
        return ann

    ann: CardroomClient = on_server(live, locked())
    page = new_context(viewport={"width": 375, "height": 667}).new_page()
    page.goto(f"{live.base}/r/{ann.room}")
    page.fill("#name", "Bob")
    page.click('#join-form button[type="submit"]')
    page.wait_for_selector("#join-note:not([hidden])")
    assert "watch instead" in page.inner_text("#join-note")
    assert page.locator(".toast.show").count() == 0
    # the Watch button is there to press, uncovered
    watch = page.locator('[data-act="watch"]')
    box = watch.bounding_box()
    assert box is not None
    top = page.evaluate(
        "([x, y]) => document.elementFromPoint(x, y).closest('[data-act]')?.dataset.act",
        [box["x"] + box["width"] / 2, box["y"] + box["height"] / 2],
    )
    assert top == "watch"
    shoot(page, "late-friend-locked")
    watch.click()
    page.wait_for_selector(".lobby")
    on_server(live, ann.close())
