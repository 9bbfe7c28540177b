"""Quick reactions in the browser: a tap on an emote shows it at the sender's seat on every
page, and says it to screen readers; a player can hide the others' (remembered), and a
spectator sees them without a bar of emotes to send."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import BrowserContext, Page

from tests.support.web import shoot, watch_console
from tests.web.conftest import LiveServer, create_room, join_room, watch_errors

pytestmark = pytest.mark.slow

# the emoji at a seat's box, by the seat's name: the bubble there now, or ""
BUBBLE_JS = """(name) => {
  for (const box of document.querySelectorAll('#area .seatbox, #area .me')) {
    if (box.textContent.includes(name)) {
      const b = box.querySelector('.bubble.react');
      if (b) return b.textContent;
    }
  }
  return "";
}"""


def bubble_at(page: Page, name: str) -> str:
    return str(page.evaluate(BUBBLE_JS, name))


def test_a_reaction_shows_at_the_senders_seat_and_can_be_hidden(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    ann = new_context().new_page()
    bob = new_context(viewport={"width": 375, "height": 667}).new_page()
    eve = new_context().new_page()
    pages = (ann, bob, eve)
    errors = [watch_errors(p) for p in pages]
    console = [watch_console(p) for p in pages]
    code = create_room(ann, live.base, "Ann", "shithead", seats=2)
    join_room(bob, live.base, code, "Bob")
    ann.click('[data-act="host"][data-op="start"]')
    eve.goto(f"{live.base}/r/{code}")
    eve.click('[data-act="watch"]')
    for page in pages:
        page.wait_for_selector(".reacts")
    # a spectator has the hide switch, and nothing to send
    assert eve.query_selector('.reacts [data-act="react"]') is None
    ann.click('.reacts [data-act="react"][data-emote="laugh"]')
    for page in pages:
        page.wait_for_function(f"() => ({BUBBLE_JS})('Ann') === '😂'")
    said = bob.inner_text(".reacts + .sr-only")
    assert said == "Ann: Ha ha"
    shoot(bob, "reactions")
    # Bob hides them: Ann's next one reaches Eve, not Bob; his bar keeps only the switch
    bob.click('[data-act="react-hide"]')
    bob.wait_for_selector('[data-act="react-hide"][aria-pressed="true"]')
    assert bob.query_selector('.reacts [data-act="react"]') is None
    ann.wait_for_timeout(5200)  # the first bubble gone everywhere (it stays 5 s)
    ann.click('.reacts [data-act="react"][data-emote="gg"]')
    eve.wait_for_function(f"() => ({BUBBLE_JS})('Ann') === '😊'")
    assert bubble_at(bob, "Ann") == ""
    bob.reload()
    bob.wait_for_selector('[data-act="react-hide"][aria-pressed="true"]')  # remembered
    for e, c in zip(errors, console, strict=True):
        assert not e and not c, (e, c)
