"""The lobby in the browser: the host's controls (bots and their levels, lock, kick) as the
other people in the room see them."""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import BrowserContext

from tests.web.conftest import LiveServer, create_room, watch_errors


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

    # the host removes the guest: the guest is back home and told why
    host.click('[data-act="host"][data-op="kick"][data-seat="1"]')
    guest.wait_for_selector(".home")
    guest.wait_for_selector(".toast.show >> text=removed you")
    host.wait_for_selector(".seat:nth-child(2) >> text=empty seat")
    assert guest.evaluate("localStorage.getItem('cardroom.session')") is None
    assert all(not e for e in errors), errors
