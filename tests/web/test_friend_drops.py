"""A friend drops mid-game: the table says when a bot plays for them, counted down from the
server's own deadline, and the host can hand their seat to a bot at once."""

from __future__ import annotations

import re
import time
from collections.abc import Callable

import pytest
from playwright.sync_api import BrowserContext

from tests.support.web import shoot
from tests.web.conftest import LiveServer, create_room, join_room, watch_errors

pytestmark = pytest.mark.slow

COUNTDOWN = re.compile(r"a bot plays for Bob in (\d):(\d\d)")


def seconds(text: str) -> int:
    found = COUNTDOWN.search(text)
    assert found, text
    return int(found[1]) * 60 + int(found[2])


def test_a_dropped_friend_gets_a_countdown_and_the_host_hands_the_seat_to_a_bot(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    host = new_context().new_page()
    bob_ctx = new_context()
    bob = bob_ctx.new_page()
    errors = watch_errors(host)
    code = create_room(host, live.base, "Ann", "shithead", seats=2)
    join_room(bob, live.base, code, "Bob")
    host.click('[data-act="host"][data-op="start"]')
    bob.wait_for_selector("#area .felt")
    bob_ctx.close()  # Bob's phone dies in the swap, where he must get ready

    # the table: who is gone and when a bot plays for them (the session's grace is 60 s)
    host.wait_for_selector(".held-line")
    first = seconds(host.inner_text(".held-line"))
    assert 50 <= first <= 60
    host.wait_for_timeout(2100)
    later = seconds(host.inner_text(".held-line"))
    assert first - 3 <= later <= first - 1  # counted down on the page, between frames
    assert host.locator(".seat:nth-child(2) >> text=bot in").count() == 1
    shoot(host, "friend-drops")

    # the host does not wait: a bot gets Bob ready now and the game goes on
    host.click('[data-act="host"][data-op="stand_in"][data-seat="1"]')
    host.wait_for_selector(".held-line", state="detached")
    host.wait_for_function("() => !window.cardroom.state.view.to_act.includes(1)")
    assert not host.locator('[data-op="stand_in"]').count()
    started = time.monotonic()
    host.click('[data-act="ready"]')
    host.wait_for_function("() => window.cardroom.state.view.phase === 'play'")
    assert time.monotonic() - started < 10  # not the rest of the minute
    assert not errors, errors
