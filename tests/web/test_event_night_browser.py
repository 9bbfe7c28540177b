"""A Sheepshead night in the browser, played by its people (docs/events.md): the host opens the
event with its form (/e/new), a second page joins it by its code, the host starts it, and each
page goes to its table and plays its seat through with the mouse (passing the blind, then a
highlighted card whenever it is its turn), back to the event's page for the next round, to the
final standings. The form's other choices (a start time, rated) show on the event's page, and
a rated event with house rules is refused. Screenshots at 375 and 1280 px, checked with axe."""

from __future__ import annotations

import re
import time
from collections.abc import Callable

import pytest
from playwright.sync_api import BrowserContext, Page, expect
from playwright.sync_api import Error as PlaywrightError

from tests.support.web import shoot, watch_console
from tests.web.conftest import CORNER, STEP_MS, LiveServer, can_act

pytestmark = pytest.mark.slow

ROUNDS = 2
ROUND_SECONDS = 120
# a datetime-local field's value two days from now, to the minute
LOCAL_IN_TWO_DAYS = """() => {
  const d = new Date(Date.now() + 2 * 86400e3);
  const p = (n) => String(n).padStart(2, "0");
  const day = `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`;
  return `${day}T${p(d.getHours())}:${p(d.getMinutes())}`;
}"""


def open_event(page: Page, base: str, name: str, **choose: str) -> str:
    """The event form filled and sent (``choose``: a select's id and its value); the code of
    the event page it leads to."""
    page.goto(base + "/")
    page.click('a[href="/e/new"]')  # from the home page's link
    expect(page.locator("#event-form")).to_be_visible()
    page.fill("#ev-host-name", name)
    for field, value in choose.items():
        page.select_option(f"#{field}", value)
    page.click('#event-form button[type="submit"]')
    page.wait_for_url(re.compile(r"/e/[A-Z0-9]{5}$"), timeout=STEP_MS)
    expect(page.locator(".ev-people")).to_contain_text(name)
    return page.url.rsplit("/", 1)[1]


def join(page: Page, base: str, code: str, name: str) -> None:
    page.goto(f"{base}/e/{code}")
    page.fill("#ev-name", name)
    page.click('[data-act="event-join"]')
    expect(page.locator(".ev-people")).to_contain_text(name, timeout=STEP_MS)


def take_turn(page: Page, what: str) -> bool:
    """One turn with the mouse: pass the blind, or play the first highlighted card (tapped
    once it rises, tapped again it is played); whether a card was played."""
    try:
        if what == "act":
            page.click('[data-act="pass"]', timeout=2000)
        elif what == "play":
            card = page.locator('.me .hand button.card.playable[data-act="card"]').first
            code = card.get_attribute("data-card", timeout=2000)
            card.click(timeout=2000, position=CORNER)
            raised = page.locator(f'.me .hand button.card.selected[data-card="{code}"]')
            raised.click(timeout=2000, position=CORNER)
            page.wait_for_function(
                "(c) => !window.cardroom.state.view.hand.includes(c)", arg=code, timeout=2000
            )
            return True
    except PlaywrightError:  # the view moved on under the click: look again
        pass
    return False


def play_round(pages: list[Page]) -> int:
    """Every page plays its seat until its table's round is over; the cards they played."""
    done: set[int] = set()
    played = 0
    deadline = time.monotonic() + ROUND_SECONDS
    while len(done) < len(pages):
        assert time.monotonic() < deadline, "the round did not end in time"
        for i, page in enumerate(pages):
            if i in done:
                continue
            what = can_act(page)
            if what is None:
                page.wait_for_timeout(5)
            elif what == "over":
                done.add(i)
            else:
                played += take_turn(page, what)
    return played


def to_table(page: Page, before: str | None) -> str:
    """From the event's page to this round's table (a room other than ``before``)."""
    page.wait_for_function(
        "(b) => { const f = window.cardroom.event && window.cardroom.event.frame;"
        " return !!(f && f.you && f.you.room && f.you.room !== b); }",
        arg=before,
        timeout=STEP_MS,
    )
    room = str(page.evaluate("window.cardroom.event.frame.you.room"))
    page.click('[data-act="event-table"]')
    page.wait_for_url(re.compile(f"/r/{room}$"), timeout=STEP_MS)
    page.wait_for_selector(".felt.sheepshead .me", timeout=STEP_MS)
    return room


def test_two_people_open_join_and_play_an_event_to_its_standings(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    ann, bob = (new_context().new_page() for _ in range(2))
    errors = [watch_console(p) for p in (ann, bob)]
    code = open_event(ann, live.base, "Ann", **{"ev-rounds": str(ROUNDS), "ev-hands": "1"})
    # the way others join: the event's link, to copy
    link = ann.locator('.ev-invite [data-act="copy"]').first.get_attribute("data-text")
    assert link == f"{live.base}/e/{code}"
    shoot(ann, "event-new-lobby")
    join(bob, live.base, code, "Bob")
    expect(ann.locator(".ev-people li")).to_have_count(2, timeout=STEP_MS)
    ann.click('[data-act="event-host"][data-op="start"]')
    rooms: dict[int, list[str]] = {0: [], 1: []}
    played = 0
    for r in range(ROUNDS):
        for i, page in enumerate((ann, bob)):
            rooms[i].append(to_table(page, rooms[i][-1] if rooms[i] else None))
        assert rooms[0][-1] == rooms[1][-1]  # two people: one table, bots in the rest
        played += play_round([ann, bob])
        if r == 0:
            shoot(ann, "event-table-over")
        for page in (ann, bob):  # the table's round is over: back to the event
            page.click("a.to-event")
            page.wait_for_url(re.compile(f"/e/{code}$"), timeout=STEP_MS)
    assert played >= 2 * 6 * ROUNDS  # each of the two played six tricks a hand
    for page in (ann, bob):
        expect(page.locator(".ev-where")).to_contain_text("over", timeout=60_000)
        rows = page.locator(".ev-standings tbody tr")
        expect(rows).to_have_count(2)
        expect(page.locator(".ev-standings tbody tr.mine")).to_have_count(1)
        expect(page.locator(".ev-deals > li")).to_have_count(ROUNDS)
    info = ann.evaluate("window.cardroom.event.frame.info")
    assert [s["hands"] for s in info["standings"]] == [ROUNDS, ROUNDS]
    assert [t["room"] for s in info["seatings"] for t in s["tables"]] == rooms[0]
    # the standings the page shows are the frame's, row by row
    shown = ann.locator(".ev-standings tbody tr").evaluate_all(
        "rows => rows.map(r => [r.querySelector('th').textContent, "
        "Number(r.querySelector('.num').textContent)])"
    )
    assert [(n.split(" (")[0], u) for n, u in shown] == [
        (s["name"], s["units"]) for s in info["standings"]
    ]
    shoot(ann, "event-night")
    for page in (ann, bob):  # a phone's width: no sideways scroll (the standings scroll alone)
        page.set_viewport_size({"width": 375, "height": 800})
        assert page.evaluate("document.documentElement.scrollWidth") <= 375
    for bad in errors:
        assert not bad, bad


def test_the_form_sets_a_start_time_and_rated_and_refuses_rated_house_rules(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    page = new_context(viewport={"width": 375, "height": 800}).new_page()
    page.goto(live.base + "/e/new")
    page.fill("#ev-host-name", "Cleo")
    assert page.is_disabled("#ev-size") and page.input_value("#ev-size") == "5"
    page.check('#event-form input[name="game"][value="shithead"]')
    assert page.is_enabled("#ev-size")  # Shithead: two to five a table
    page.select_option("#ev-size", "3")
    assert page.is_disabled("#ev-start-time")
    page.check('#event-form input[name="start"][value="at"]')
    when = page.evaluate(LOCAL_IN_TWO_DAYS)
    page.fill("#ev-start-time", when)  # local time, within the week
    page.check("#ev-rated")
    page.locator('details.house[data-house="shithead"] summary').click()
    page.check("#opt-seven_lower")
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    shoot(page, "event-new-form")
    page.click('#event-form button[type="submit"]')  # rated with a house rule: refused
    expect(page.locator("#toast")).to_contain_text("book", timeout=STEP_MS)
    assert "/e/new" in page.url
    page.uncheck("#opt-seven_lower")
    page.click('#event-form button[type="submit"]')
    page.wait_for_url(re.compile(r"/e/[A-Z0-9]{5}$"), timeout=STEP_MS)
    where = page.locator(".ev-where")
    expect(where).to_contain_text("rated")
    expect(where).to_contain_text("starts by itself")
    info = page.evaluate("window.cardroom.event.frame.info")
    assert info["game"] == "shithead" and info["table_size"] == 3 and info["rated"]
    assert info["start_at"] == page.evaluate("(w) => new Date(w).getTime() / 1000", when)
