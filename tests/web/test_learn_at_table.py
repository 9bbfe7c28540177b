"""A newcomer learns at the table: Sheepshead's trump is set apart in the hand (its own edge,
and a gap with a bar where it ends), the trump chart is one tap away, and each house-rule chip
says what its rule does when tapped."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import BrowserContext

from tests.support.web import shoot, start_scripted
from tests.web.conftest import LiveServer, open_room_form, watch_errors

pytestmark = pytest.mark.slow

# rule SS-1.2: every queen, every jack, then the diamonds, highest first (SS-1.3 the fail)
TRUMPS = ["QC", "QS", "QH", "QD", "JC", "JS", "JH", "JD", "AD", "TD", "KD", "9D", "8D", "7D"]
HAND_JS = """() => [...document.querySelectorAll('.me .hand > .card')].map((c) => {
    const r = c.getBoundingClientRect();
    return {card: c.dataset.card, trump: c.classList.contains('trump'),
            left: r.left, right: r.right,
            bar: getComputedStyle(c, '::before').content !== 'none'
                 && getComputedStyle(c, '::before').display !== 'none'};
})"""


def test_trump_is_set_apart_in_the_hand_and_the_chart_is_one_tap_away(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    page = new_context().new_page()
    errors = watch_errors(page)
    start_scripted(page, live)
    page.click('[data-act="pick"]')  # eight cards now: the picker's hand and the blind
    page.wait_for_function("() => window.cardroom.state.view.phase === 'bury'")
    cards = page.evaluate(HAND_JS)
    codes = [c["card"] for c in cards]
    trumps = [c for c in codes if c in TRUMPS]
    assert trumps and len(trumps) < len(codes), codes  # the scripted deal holds both kinds
    assert codes[: len(trumps)] == sorted(trumps, key=TRUMPS.index)  # trump first, high to low
    assert [c["trump"] for c in cards] == [c in TRUMPS for c in codes]
    # the first fail card stands apart, with a bar before it; no other card has one
    end = len(trumps)
    steps = [cards[i + 1]["left"] - cards[i]["right"] for i in range(len(cards) - 1)]
    assert steps[end - 1] >= max(s for i, s in enumerate(steps) if i != end - 1) + 12, steps
    assert [c["bar"] for c in cards] == [i == end for i in range(len(cards))]
    label = page.get_attribute(f'.me .hand [data-card="{codes[0]}"]', "aria-label") or ""
    assert label.endswith(", trump"), label

    # the chart: trump high to low, then a fail suit's order, opened and closed in one tap
    chart = '[data-act="trump-chart"]'
    assert page.get_attribute(chart, "aria-expanded") == "false"
    page.click(chart)
    page.wait_for_selector(".trump-chart")
    assert page.get_attribute(chart, "aria-expanded") == "true"
    shown = page.eval_on_selector_all(
        ".trump-chart [data-card]", "els => els.map(e => e.dataset.card)"
    )
    assert shown == [*TRUMPS, "AC", "TC", "KC", "9C", "8C", "7C"]
    assert "picker's side needs 61" in page.inner_text(".trump-chart")
    shoot(page, "ss-trump-chart")
    page.click(chart)
    page.wait_for_selector(".trump-chart", state="detached")
    assert not errors, errors


def test_each_house_rule_chip_explains_itself_when_tapped(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    page = new_context().new_page()
    errors = watch_errors(page)
    open_room_form(page, live.base)
    page.fill("#name", "Ann")
    page.check('input[name="game"][value="shithead"]')
    page.click('details[data-house="shithead"] summary')
    page.check('input[name="shithead.three_invisible"]')
    page.check('input[name="shithead.eight_skips"]')
    page.click('#create-form button[type="submit"]')
    page.wait_for_selector(".lobby .house-rules")

    glass = '.house-rules [data-chip="three_invisible"]'
    assert page.get_attribute(glass, "aria-expanded") == "false"
    page.click(glass)
    page.wait_for_selector(".house-rules .chip-note")
    assert (
        page.inner_text(".chip-note")
        == "A 3 goes on anything; the card under it is the one to beat."
    )
    assert page.get_attribute(glass, "aria-expanded") == "true"
    # another chip: its own note replaces the first
    page.click('.house-rules [data-chip="eight_skips"]')
    page.wait_for_selector(".chip-note >> text=Each 8 played skips the next player.")
    assert page.locator(".chip-note").count() == 1
    shoot(page, "rule-chip-note")
    page.click('.house-rules [data-chip="eight_skips"]')  # tapped again: folded
    page.wait_for_selector(".chip-note", state="detached")
    assert not errors, errors
