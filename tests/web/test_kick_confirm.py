"""Removing a friend is a choice made twice: Remove only asks (the friend stays), the question
names them, Keep takes it back, and the button looks destructive, set apart from Mute."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import BrowserContext

from tests.support.web import shoot
from tests.web.conftest import LiveServer, create_room, join_room, watch_errors

pytestmark = pytest.mark.slow

COLOR = "(sel) => getComputedStyle(document.querySelector(sel)).color"
TOKEN = "(name) => getComputedStyle(document.documentElement).getPropertyValue(name).trim()"
RGB = (
    "(hex) => { const d = document.createElement('i'); d.style.color = hex;"
    " document.body.append(d); const c = getComputedStyle(d).color; d.remove(); return c; }"
)


def test_remove_asks_first_and_is_styled_apart_from_mute(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    host = new_context().new_page()
    guest = new_context().new_page()
    errors = watch_errors(host)
    code = create_room(host, live.base, "Hal", "shithead", seats=3)
    join_room(guest, live.base, code, "Gus")
    host.wait_for_selector('[data-act="kick-ask"][data-seat="1"]')

    kick, mute = '[data-act="kick-ask"][data-seat="1"]', '[data-op="mute"][data-seat="1"]'
    bad_ink = host.evaluate(RGB, host.evaluate(TOKEN, "--bad-ink"))
    assert host.evaluate(COLOR, kick) == bad_ink  # destructive, in the alarm's colour
    assert host.evaluate(COLOR, mute) != bad_ink
    gap = host.evaluate(
        "([a, b]) => document.querySelector(b).getBoundingClientRect().left"
        " - document.querySelector(a).getBoundingClientRect().right",
        [mute, kick],
    )
    assert gap >= 10  # not in the same row of look-alike buttons

    # one tap only asks, naming the friend; Keep takes it back and Gus never left
    host.click(kick)
    assert "Remove Gus from the room?" in host.inner_text(".seat:nth-child(2) .confirm")
    assert host.evaluate("document.activeElement.dataset.act") == "kick-keep"
    shoot(host, "kick-confirm")
    host.click('[data-act="kick-keep"]')
    host.wait_for_selector(".confirm", state="detached")
    host.wait_for_timeout(300)
    assert guest.locator(".seat.mine").count() == 1
    assert host.locator(".seat:nth-child(2) >> text=Gus").count() == 1

    # asked again and confirmed: removed
    host.click(kick)
    host.click('[data-act="host"][data-op="kick"][data-seat="1"]')
    guest.wait_for_selector(".home")
    host.wait_for_selector(".seat:nth-child(2) >> text=empty seat")
    assert not errors, errors
