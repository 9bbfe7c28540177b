"""The lobby in the browser: the host's controls (bots and their levels, lock, kick, mute) as
the other people in the room see them."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest
from playwright.sync_api import BrowserContext

from tests.web.conftest import LiveServer, create_room, watch_errors

pytestmark = pytest.mark.slow


def test_the_host_adds_and_sets_bots_locks_the_room_and_removes_a_player(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    host = new_context().new_page()
    guest = new_context(viewport={"width": 375, "height": 740}).new_page()
    late = new_context().new_page()
    errors = [watch_errors(p) for p in (host, guest, late)]
    code = create_room(host, live.base, "Hal", "shithead", seats=4)

    guest.goto(f"{live.base}/r/{code}")
    guest.fill("#name", "Gus")
    guest.click('#join-form button[type="submit"]')
    guest.wait_for_selector(".seat.mine")
    assert not guest.locator('[data-act="host"]').count()  # no host controls for a guest

    # a bot, then its level
    host.click('[data-act="host"][data-op="add_bot"][data-seat="2"]')
    guest.wait_for_selector(".seat:nth-child(3) >> text=Bot 3")
    host.select_option('select[data-act="level"][data-seat="2"]', "strong")
    guest.wait_for_selector(".seat:nth-child(3) >> text=strong bot")
    host.click('[data-act="host"][data-op="remove_bot"][data-seat="2"]')
    guest.wait_for_selector(".seat:nth-child(3) >> text=empty seat")

    # locked: nobody new sits down (watching is still allowed)
    host.click('[data-act="host"][data-op="lock"]')
    guest.wait_for_selector(".seats ~ p >> text=locked")
    late.goto(f"{live.base}/r/{code}")
    late.fill("#name", "Lou")
    late.click('#join-form button[type="submit"]')
    late.wait_for_selector(".toast.show.error")
    assert "locked" in late.inner_text("#toast")
    late.click('[data-act="watch"]')
    late.wait_for_selector(".lobby")
    host.wait_for_selector("text=Watching: 1")

    # the host removes the guest (and confirms it): the guest is back home and told why
    host.click('[data-act="kick-ask"][data-seat="1"]')
    host.click('[data-act="host"][data-op="kick"][data-seat="1"]')
    guest.wait_for_selector(".home")
    guest.wait_for_selector(".toast.show >> text=removed you")
    host.wait_for_selector(".seat:nth-child(2) >> text=empty seat")
    assert guest.evaluate("localStorage.getItem('cardroom.session')") is None
    assert all(not e for e in errors), errors


def test_the_host_mutes_a_player_and_a_spectator_and_a_kicked_player_stays_out(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    host = new_context().new_page()
    guest = new_context().new_page()
    rail = new_context().new_page()
    errors = [watch_errors(p) for p in (host, guest, rail)]
    code = create_room(host, live.base, "Hal", "shithead", seats=3)
    guest.goto(f"{live.base}/r/{code}")
    guest.fill("#name", "Gus")
    guest.click('#join-form button[type="submit"]')
    guest.wait_for_selector(".seat.mine")
    assert not guest.locator('[data-op="mute"]').count()  # only the host mutes
    # every page comes from 127.0.0.1, and a mute binds to the address too: the spectator is
    # there before the guest is muted, so it is spared (a newcomer from there would not be)
    rail.goto(f"{live.base}/r/{code}")
    rail.click('[data-act="watch"]')
    rail.wait_for_selector(".lobby")

    # a seat: muted for everyone to see, and the guest's line is refused
    host.click('[data-act="host"][data-op="mute"][data-seat="1"]')
    guest.wait_for_selector(".seat:nth-child(2) >> text=muted")
    guest.fill("#chat-text", "let me talk")
    guest.press("#chat-text", "Enter")
    guest.wait_for_selector(".toast.show.error >> text=muted you")

    # a spectator: the host mutes them from their chat line
    rail.fill("#chat-text", "from the rail")
    rail.press("#chat-text", "Enter")
    host.wait_for_selector("#chat-lines >> text=from the rail")
    host.click('#chat-lines [data-act="host"][data-op="mute"][data-spectator]')
    deadline = time.monotonic() + 10  # the page shows nothing for it: ask the room
    while not live.call(lambda: bool(live.server.manager.rooms[code].core.muted_watchers)):
        assert time.monotonic() < deadline, "the spectator was not muted"
        time.sleep(0.05)
    rail.fill("#chat-text", "again")
    rail.press("#chat-text", "Enter")
    rail.wait_for_selector(".toast.show.error >> text=muted you")
    assert "again" not in host.inner_text("#chat-lines")

    # removed: the guest's browser cannot sit down again
    host.click('[data-act="kick-ask"][data-seat="1"]')
    host.click('[data-act="host"][data-op="kick"][data-seat="1"]')
    guest.wait_for_selector(".home")
    guest.goto(f"{live.base}/r/{code}")
    guest.fill("#name", "Gus")
    guest.click('#join-form button[type="submit"]')
    guest.wait_for_selector(".toast.show.error >> text=removed you from this room")
    assert all(not e for e in errors), errors
