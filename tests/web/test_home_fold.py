"""The home page leads with the games (Play now, the daily, practice); the new room's form is
folded behind one button that says whether it is out (aria-expanded), works from the keyboard,
opens unfolded from a link to it (``/#new``) and stays out when its room is left."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import BrowserContext, Page

from tests.support.web import shoot
from tests.web.conftest import LiveServer, create_room, watch_errors

pytestmark = pytest.mark.slow

FOLD = '[data-act="fold-new"]'
PHONE = {"width": 375, "height": 667}


def expanded(page: Page) -> str | None:
    return page.get_attribute(FOLD, "aria-expanded")


def test_the_form_is_folded_behind_a_button_the_keyboard_opens(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    page = new_context(viewport=PHONE).new_page()
    errors = watch_errors(page)
    page.goto(live.base + "/")
    page.wait_for_selector(".home")
    # the games come first; the form is out of the way until asked for
    assert page.is_visible('[data-act="play-now"]') and page.is_visible('[data-act="daily"]')
    assert page.is_visible('[data-act="practice"]')
    assert page.is_hidden("#create-form") and page.is_hidden("#seats")
    assert expanded(page) == "false"
    assert page.get_attribute(FOLD, "aria-controls") == "create-form"
    # a screen reader hears a button, its name, and that it is folded
    named = page.get_by_role("button", name="Open a room for friends", exact=True)
    assert named.count() == 1 and named.get_attribute("data-act") == "fold-new"
    assert page.get_by_role("button", name="Open a room for friends", expanded=False).count()
    # everything the form asked for is on one phone screen: Play now is above the fold line
    top = page.locator('[data-act="play-now"]').first.bounding_box()
    assert top is not None and top["y"] + top["height"] < PHONE["height"], top
    shoot(page, "home-folded")
    page.focus(FOLD)
    page.keyboard.press("Enter")
    page.wait_for_selector("#create-form", state="visible")
    assert expanded(page) == "true"
    assert page.get_by_role("button", name="Open a room for friends", expanded=True).count()
    page.keyboard.press("Tab")  # the form's first control follows its button
    assert page.evaluate("document.activeElement.name") == "game"
    shoot(page, "home-unfolded")
    page.focus(FOLD)
    page.keyboard.press("Space")  # and folds away again
    page.wait_for_selector("#create-form", state="hidden")
    assert expanded(page) == "false"
    assert not errors, errors


def test_a_link_to_the_form_opens_it_unfolded(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    page = new_context().new_page()
    errors = watch_errors(page)
    page.goto(live.base + "/#new")
    page.wait_for_selector("#create-form", state="visible")
    assert expanded(page) == "true"
    # followed from the home page itself (a link inside the app, say)
    other = new_context().new_page()
    other.goto(live.base + "/")
    other.wait_for_selector(".home")
    assert other.is_hidden("#create-form")
    other.evaluate("location.hash = '#new'")
    other.wait_for_selector("#create-form", state="visible")
    assert expanded(other) == "true"
    assert not errors, errors


def test_the_form_is_still_out_back_home_from_the_room_it_made(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    page = new_context().new_page()
    errors = watch_errors(page)
    create_room(page, live.base, "Ann", "shithead", seats=3)
    page.click('[data-act="leave"]')
    page.wait_for_selector(".home")
    # a host making another room finds the form as they left it, with their last choices
    assert page.is_visible("#create-form") and expanded(page) == "true"
    assert page.input_value("#seats") == "3"
    assert not errors, errors
