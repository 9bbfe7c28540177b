"""The invite goes out through the phone's share sheet: a Share button where the browser has
one (navigator.share), with the room's link; none where it has not."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import BrowserContext

from tests.web.conftest import LiveServer, create_room, watch_errors

pytestmark = pytest.mark.slow

# a share sheet that records what it was given (Chromium has none in a test)
SHEET = "navigator.share = (data) => { window.__shared = data; return Promise.resolve(); };"


def test_share_hands_the_room_link_to_the_share_sheet(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    ctx = new_context()
    ctx.add_init_script(SHEET)
    page = ctx.new_page()
    errors = watch_errors(page)
    code = create_room(page, live.base, "Ann", "shithead", seats=2)
    page.click('[data-act="share"]')
    shared = page.wait_for_function("() => window.__shared").json_value()
    assert shared["url"] == f"{live.base}/r/{code}" and code in shared["text"]
    assert not errors, errors


def test_no_share_button_without_a_share_sheet(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    ctx = new_context()
    ctx.add_init_script("delete Navigator.prototype.share; delete navigator.share;")
    page = ctx.new_page()
    create_room(page, live.base, "Ann", "shithead", seats=2)
    assert page.locator('[data-act="share"]').count() == 0
    assert page.locator('[data-act="copy"]').count() == 2
