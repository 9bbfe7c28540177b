"""The screen reader's announcements queue: each line is added to the live region on its own,
never written over the one before, so a voice reading slower than the bots play still says
every play, in order."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import BrowserContext

from tests.support.web import ANNOUNCE_SPY, act_first
from tests.web.conftest import LiveServer, create_room, wait_turn, watch_errors

pytestmark = pytest.mark.slow


LOG_JS = """async () => {
    const log = await import("/js/log.js");
    const { GAMES } = await import("/js/screens.js");
    const app = window.cardroom;
    return app.log.map((e) => log.text(e, GAMES, (s) => app.nameOf(s))).filter(Boolean);
}"""


def test_every_play_is_announced_in_order_and_none_replaces_another(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    ctx = new_context()
    ctx.add_init_script(ANNOUNCE_SPY)
    page = ctx.new_page()
    errors = watch_errors(page)
    create_room(page, live.base, "Ann", "shithead", seats=3)
    page.click('[data-act="host"][data-op="start"]')
    for _ in range(12):  # the swap, then turns with two bots playing between them
        if wait_turn(page, timeout=20_000) == "over":
            break
        act_first(page)
    page.wait_for_timeout(300)
    lines = page.evaluate("window.__lines")
    logged = page.evaluate(LOG_JS)
    assert len(logged) > 6, logged
    # each log line was handed over as a line of its own, in the order it happened
    said = iter(lines)
    missing = [line for line in logged if not any(line == s for s in said)]
    assert not missing, (missing, lines)
    # and the region holds them one after another (the last few kept), not the last alone
    kept = page.evaluate("[...document.querySelectorAll('#announce > p')].map(p => p.textContent)")
    assert len(kept) > 1 and kept == lines[-len(kept) :], kept
    assert not errors, errors
