"""The fourth browser behind one address: told before the match that it will not rank and
why, and able to earn an identity with a few seconds of work (within the address's small daily
budget of earned ones)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from playwright.sync_api import BrowserContext

from server.store.budgets import Daily
from tests.support.web import device_of, shoot
from tests.web.conftest import LiveServer, watch_errors

pytestmark = pytest.mark.slow


@pytest.fixture
def spent_address(live: LiveServer) -> Iterator[None]:
    """The session server as if 127.0.0.1 had used its free identities today, with one more to
    earn (by easy work: 10 bits); put back afterwards."""
    srv = live.server
    kept = srv.device_budget, srv.worked_budget, srv.config.identity_work_bits

    def spend() -> None:
        srv.device_budget = srv.budgets.make("devices-spent", Daily(0))
        srv.worked_budget = srv.budgets.make("worked-one", Daily(1))
        assert srv.work is not None
        srv.work.bits = 10

    def restore() -> None:
        srv.device_budget, srv.worked_budget = kept[0], kept[1]
        assert srv.work is not None
        srv.work.bits = kept[2]

    live.call(spend)
    yield
    live.call(restore)


def test_a_browser_with_an_identity_is_told_it_ranks(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    page = new_context().new_page()
    page.goto(live.base + "/")
    page.wait_for_selector(".rank-note.ok")
    assert "ranks on today's board" in page.inner_text("#rank-note")


def test_the_fourth_browser_is_told_why_and_earns_an_identity_by_work(
    live: LiveServer, new_context: Callable[..., BrowserContext], spent_address: None
) -> None:
    page = new_context(viewport={"width": 375, "height": 667}).new_page()
    errors = watch_errors(page)
    page.goto(live.base + "/")
    page.wait_for_selector('#rank-note [data-act="earn"]')
    note = page.inner_text("#rank-note")
    assert "Not ranked yet" in note and "free identities for today" in note
    assert page.evaluate("window.cardroom.net.identified") is False
    shoot(page, "rank-note-earn")
    page.click('[data-act="earn"]')
    page.wait_for_selector(".rank-note.ok", timeout=30_000)
    assert live.server.devices.valid(device_of(page))  # kept, and said in the next hello
    page.reload()
    page.wait_for_selector(".rank-note.ok")

    # the address's earned identities are spent: the next browser is told so
    other = new_context().new_page()
    other.goto(live.base + "/")
    other.click('#rank-note [data-act="earn"]')
    other.wait_for_selector("#rank-note .why")
    assert "earned all the identities it may today" in other.inner_text("#rank-note")
    assert not errors, errors
