"""Fair deals in the browser (docs/protocol.md, "Fair deals"): the page sends its own random
value for the deal on its own, and the replay page checks the finished game's deal with SHA-256
computed in the page: "deal verified", or a clear failure when the history was changed."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import BrowserContext, Route

from tests.web.conftest import (
    LiveServer,
    create_room,
    play_to_the_end,
    watch_errors,
)

pytestmark = pytest.mark.slow


def test_the_page_contributes_and_its_replay_says_deal_verified(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    page = new_context().new_page()
    errors = watch_errors(page)
    code = create_room(page, live.base, "Ann", "shithead", seats=2)
    # the page sent its value for game 0 by itself, before anyone pressed start
    page.wait_for_function(
        "() => window.cardroom.shown && Object.keys(window.cardroom.shown).length"
    )
    deadline = time.monotonic() + 10
    while not live.call(lambda: 0 in live.server.manager.rooms[code].core.state.contributed):
        assert time.monotonic() < deadline, "the page contributed nothing"
        time.sleep(0.05)
    page.click('[data-act="host"][data-op="start"]')
    play_to_the_end(page)
    match = live.call(lambda: live.server.manager.rooms[code].core.match)
    assert match is not None
    proof = match.proof(0)
    assert proof is not None
    assert proof.contributions[0] is not None and proof.contributions[1] is None

    page.click(".result a[href$='/history']")
    page.wait_for_selector(".rp-deal")
    deal = page.locator(".rp-deal")
    assert deal.get_attribute("data-deal") == "ok"
    assert deal.inner_text().startswith("✓ Deal verified")
    page.select_option("#lang", "fr")  # in the four languages
    page.wait_for_function("() => document.documentElement.lang === 'fr'")  # its table fetched
    page.wait_for_selector(".rp-deal.ok")
    assert "Donne vérifiée" in page.inner_text(".rp-deal")
    page.select_option("#lang", "en")
    assert not errors

    # the same history with one card moved: the page says so
    def changed(route: Route) -> None:
        response = route.fetch()
        body: dict[str, Any] = response.json()
        for game in body.get("games", []):
            deck = game["deal"]["deck"]
            deck[0], deck[-1] = deck[-1], deck[0]
        route.fulfill(response=response, body=json.dumps(body))

    page.route("**/api/rooms/*/history*", changed)
    page.goto(f"{live.base}/r/{code}/history")  # the same player, the history changed on its way
    page.wait_for_selector(".rp-deal")
    bad = page.locator(".rp-deal")
    assert bad.get_attribute("data-deal") == "wrong" and bad.get_attribute("role") == "alert"
    assert "NOT verified" in bad.inner_text()
    # the page may still be fetching (the replay's steps) as the test ends: a routed fetch cut
    # off by the context closing would raise in the next test
    page.unroute_all(behavior="ignoreErrors")


def test_the_page_computes_the_documented_example(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    """The page's own SHA-256 and shuffle give the numbers of docs/protocol.md's example (a
    page on plain http has no crypto.subtle)."""
    from tests.support.deal import doc_example

    example = doc_example()
    page = new_context().new_page()
    page.goto(live.base + "/")
    got = page.evaluate(
        """async (ex) => {
            const d = await import('/js/deal.js');
            const seed = d.fromHex(ex.seed);
            const values = ex.contributions.map((c) => (c ? d.fromHex(c) : null));
            return {
                commitment: d.commitmentOf(seed, ex.dealer),
                deck: d.shuffle(d.cardsOf("shithead"), seed, values).join(" "),
                subtle: !!(window.crypto && window.crypto.subtle),
            };
        }""",
        example,
    )
    assert got["commitment"] == example["commitment"]
    assert got["deck"] == example["deck"]
