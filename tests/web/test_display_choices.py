"""Dark mode and larger cards: chosen beside the table, kept in this browser, and the page
still passes axe (contrast included) in the dark."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import BrowserContext, Page

from tests.support.web import shoot
from tests.web.conftest import LiveServer, create_room, watch_errors

pytestmark = pytest.mark.slow

CARD_WIDTH = "document.querySelector('.me .hand .card').getBoundingClientRect().width"
PAPER = "getComputedStyle(document.documentElement).backgroundColor"


def luminance(page: Page) -> float:
    rgb = page.evaluate(PAPER)
    r, g, b = (int(x) for x in rgb[rgb.index("(") + 1 : rgb.index(")")].split(",")[:3])
    return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255


def test_dark_mode_and_larger_cards_are_chosen_at_the_table_and_kept(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    page = new_context(viewport={"width": 1280, "height": 800}).new_page()
    errors = watch_errors(page)
    create_room(page, live.base, "Ann", "shithead", seats=2)
    page.click('[data-act="host"][data-op="start"]')
    page.wait_for_selector(".me .hand .card")
    width = page.evaluate(CARD_WIDTH)
    assert luminance(page) > 0.8  # the light page by default
    page.click(".view-opts summary")
    page.check('[data-view="large-cards"]')
    assert page.evaluate(CARD_WIDTH) >= 1.15 * width
    page.check('[data-view="dark"]')
    assert luminance(page) < 0.2
    shoot(page, "table-dark-large")  # axe, contrast included, at both widths
    page.reload()
    page.wait_for_selector(".me .hand .card")
    assert luminance(page) < 0.2 and page.evaluate(CARD_WIDTH) >= 1.15 * width  # kept
    page.click(".view-opts summary")
    page.uncheck('[data-view="dark"]')
    assert luminance(page) > 0.8
    assert not errors, errors
