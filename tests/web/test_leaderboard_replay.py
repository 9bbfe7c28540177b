"""The leaderboard page and the replay of a finished game, in the browser.

- The page keeps the device identity the server issued and says hello with it; the leaderboard
  shows the results the server recorded (seeded here through the server's own recording path,
  in its process: no client can claim a score) with this browser's own line highlighted.
- A Shithead game played to its end is replayed step by step from the result screen, with
  every seat's cards as the rules core had them after each step.
- axe finds no serious or critical violation on either page; screenshots at 375 and 1280 px.
"""

from __future__ import annotations

import datetime
import json
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import BrowserContext, Page

from server.store.history import history_item
from server.store.leaderboard import Board, Player
from server.store.results import game_results, match_results, record_results
from tests.support.shithead_loop import looping, play_out
from tests.support.web import device_of, finished, on_server, seated, shoot
from tests.web.conftest import LiveServer, watch_errors


@pytest.mark.slow
def test_leaderboard_shows_the_servers_results_and_your_rank(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    page = new_context(reduced_motion="no-preference").new_page()
    errors = watch_errors(page)
    page.goto(live.base + "/")
    page.wait_for_function("() => window.cardroom && window.cardroom.online")
    device = device_of(page)
    page.reload()  # the same token after a reload, and the hello carries it
    page.wait_for_function("() => window.cardroom && window.cardroom.online")
    assert device_of(page) == device
    connected = live.server.connected
    assert live.call(lambda: device in {connected.device_of(c) for c in connected.sockets})
    # the page keeps the identity the server issued: a made-up one would rank nothing
    assert live.server.devices.valid(device)

    # results as the server records a finished daily match and finished games
    ann, bob, cy = Player(device, "Ann"), Player("bob-" + "b" * 20, "Bob"), Player("c" * 24, "Cy")
    today = datetime.datetime.now(datetime.UTC).date()
    results = match_results(today, (7, 31, -12), [ann, bob, cy])
    results += game_results("sheepshead", (4, -2, 1), [ann, bob, cy])
    results += game_results("shithead", (0, 1), [ann, bob])
    on_server(live, record_results(live.server.stores.boards, results, "web-test:lb"))

    # after a daily match, its result screen links here (and to the hand's replay)
    links = page.evaluate(
        """() => import('/js/lobby.js').then(m => m.afterGameLinks({seat: 0, info: {room: "ABCDE",
            game: "sheepshead", status: "over", daily: "2026-11-30"}}))"""
    )
    assert 'href="/leaderboard"' in links and 'href="/r/ABCDE/history"' in links
    page.click("a[href='/leaderboard']")  # from home
    page.wait_for_selector(".board[data-board='daily'] tbody tr")
    assert page.evaluate("location.pathname") == "/leaderboard"
    daily = page.locator(".board[data-board='daily']")
    names = [n.split(" (")[0] for n in daily.locator("tbody th[scope='row']").all_inner_texts()]
    # by units, best first (the session's server may hold other modules' players of today too)
    assert [n for n in names if n in ("Bob", "Ann", "Cy")] == ["Bob", "Ann", "Cy"]
    mine = daily.locator("tr.mine")
    assert mine.count() == 1 and "Ann" in mine.inner_text()
    assert mine.get_attribute("aria-current") == "true"
    with urllib.request.urlopen(
        f"{live.base}/api/leaderboard?board=daily&player={ann.id}", timeout=5
    ) as r:
        you = json.loads(r.read())["you"]
    assert mine.locator("td.rank").inner_text() == str(you["rank"])
    assert you["rank"] == names.index("Ann") + 1 >= 2  # below Bob
    # the all-time tables: this browser's own line on each
    for board, score in (("sheepshead", "4"), ("shithead", "1")):
        row = page.locator(f".board[data-board='{board}'] tr.mine")
        row.wait_for()
        assert "Ann" in row.inner_text() and row.locator("td.num").first.inner_text() == score
    assert Board.daily(today).key in page.evaluate("window.cardroom.boards.daily.board")

    page.select_option("#lang", "pt")  # the page in another language
    page.wait_for_function("() => document.documentElement.lang === 'pt-BR'")  # its table fetched
    page.wait_for_selector(".board[data-board='daily'] tr.mine")
    assert "Classificações" in page.inner_text("h1")
    page.select_option("#lang", "en")
    page.wait_for_selector(".board[data-board='daily'] tr.mine")
    shoot(page, "leaderboard")
    assert not errors


def history(live: LiveServer, room: str, token: str, g: int = 0) -> Any:
    """Finished game ``g`` of a room, step by step, as the API gives it to its players."""
    request = urllib.request.Request(
        f"{live.base}/api/rooms/{room}/history?game={g}&steps=1",
        headers={"Authorization": f"Bearer {token}"},
    )
    with urllib.request.urlopen(request, timeout=5) as r:
        (game,) = json.loads(r.read())["games"]
    return game


# rule SS-1.2 then SS-1.3: the fourteen trumps high to low, then clubs, spades, hearts
TABLE_ORDER = [
    *["QC", "QS", "QH", "QD", "JC", "JS", "JH", "JD", "AD", "TD", "KD", "9D", "8D", "7D"]
] + [rank + suit for suit in "CSH" for rank in "ATK987"]


def as_at_the_table(hands: list[list[str]]) -> list[list[str]]:
    """A Sheepshead replay shows each hand as the table does: trump first."""
    return [sorted(hand, key=TABLE_ORDER.index) for hand in hands]


def shown_hands(page: Page) -> Any:
    return page.evaluate(
        """() => [...document.querySelectorAll('.rp-seat')].map(s =>
            [...s.querySelectorAll('.rp-hand [data-card]')].map(c => c.dataset.card))"""
    )


@pytest.mark.slow
def test_replay_steps_through_a_finished_shithead_game(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    room, token = finished(live, "shithead", 2)
    game = history(live, room, token)
    steps = game["steps"]
    total = len(steps) - 1

    ctx = seated(new_context(reduced_motion="no-preference"), room, token)
    page = ctx.new_page()
    errors = watch_errors(page)
    sent: list[tuple[str, str | None]] = []  # every request's URL and Authorization header
    page.on("request", lambda req: sent.append((req.url, req.headers.get("authorization"))))
    page.goto(f"{live.base}/r/{room}")  # back at the table: the result, and its replay
    page.click(".result a[href$='/history']")
    page.wait_for_selector("#replay-board .rp-seat")
    assert page.evaluate("location.pathname") == f"/r/{room}/history"

    page.focus("[data-act='rp-next']")
    for k in range(total + 1):
        caption = page.inner_text("#replay-caption")
        assert caption.startswith(f"Step {k} of {total}"), caption
        # every seat's hand as the rules core had it after this step
        assert shown_hands(page) == steps[k]["view"]["hands"], k
        if k < total:
            page.keyboard.press("ArrowRight")
    page.wait_for_selector("#replay-board .result")  # the end: who lost
    loser = game["result"]["loser"]
    assert game["names"][loser] in page.inner_text("#replay-board .result h2")
    shoot(page, "replay-end")
    page.keyboard.press("ArrowRight")  # nothing after the end
    assert page.inner_text("#replay-caption").startswith(f"Step {total} of")
    page.keyboard.press("ArrowLeft")
    assert page.inner_text("#replay-caption").startswith(f"Step {total - 1} of")
    page.keyboard.press("Home")
    assert page.inner_text("#replay-caption").startswith("Step 0 of")
    # the deal: every face-down card shown too (the game is over)
    downs = page.locator("#replay-board .card.was-down").count()
    assert downs == sum(len(s["face_down_cards"]) for s in steps[0]["view"]["seats"]) > 0
    page.click("[data-act='rp-next']")
    page.click("[data-act='rp-next']")
    assert page.inner_text("#replay-caption").startswith("Step 2 of")
    mid = total // 2  # the slider jumps anywhere
    page.eval_on_selector(
        "#replay-range",
        f"el => {{ el.value = '{mid}'; el.dispatchEvent(new Event('input', {{bubbles: true}})); }}",
    )
    assert page.inner_text("#replay-caption").startswith(f"Step {mid} of")
    assert shown_hands(page) == steps[mid]["view"]["hands"]
    shoot(page, "replay")

    page.evaluate("window.__samePage = true")
    page.click(f"a[href='/r/{room}']")  # back to the table without leaving the room
    page.wait_for_selector("#area .result")
    assert page.evaluate("location.pathname") == f"/r/{room}"
    assert page.evaluate("window.__samePage") is True  # no reload: the seat stayed
    shoot(page, "shithead-result")  # the result with its replay link

    # the seat token went in a header, never in a URL (proxies log URLs)
    # (the page's resume rotated the seat's token: the header carries the one it holds now)
    held = json.loads(page.evaluate("localStorage.getItem('cardroom.session')"))["token"]
    assert held and held != token
    asked = [(url, auth) for url, auth in sent if "/history" in url and "/api/" in url]
    assert asked and all(auth == f"Bearer {held}" for _, auth in asked)
    assert not [url for url, _ in sent if token in url or held in url or "token=" in url]

    # a visitor without a seat is told why, while the room is open
    other = new_context().new_page()
    visitor_errors = watch_errors(other)
    console: list[str] = []
    other.on("console", lambda m: console.append(m.text) if m.type == "error" else None)
    other.goto(f"{live.base}/r/{room}/history")
    other.wait_for_selector(".replay [role='alert']")
    assert "only its players" in other.inner_text(".replay [role='alert']")
    assert not errors and not visitor_errors
    # the page says it in words and logs nothing itself; the one console line is Chromium's own
    # for any non-2xx response (the refused history request), which no script can silence
    assert len(console) <= 1, console
    assert all(m.startswith("Failed to load resource") and "404" in m for m in console), console


@pytest.mark.slow
def test_replay_of_a_sheepshead_hand(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    room, token = finished(live, "sheepshead", 5, games=2)
    page = seated(new_context(), room, token).new_page()
    errors = watch_errors(page)
    page.goto(f"{live.base}/r/{room}/history")  # the link itself opens the replay
    page.wait_for_selector("#replay-board .rp-seat")
    assert page.locator("#replay-board .rp-seat").count() == 5
    # the hand just played first; the other one of the room's history a choice away
    assert page.eval_on_selector("#replay-game", "el => el.value") == "1"
    hands = history(live, room, token, 1)["steps"][0]["view"]["hands"]
    assert shown_hands(page) == as_at_the_table(hands)
    page.select_option("#replay-game", "0")
    game = history(live, room, token, 0)
    steps = game["steps"]
    total = len(steps) - 1
    caption = "document.getElementById('replay-caption')?.textContent"
    page.wait_for_function(f"() => /^Step 0 of {total}\\b/.test({caption})")
    page.focus("[data-act='rp-next']")
    for k in range(total + 1):
        assert page.inner_text("#replay-caption").startswith(f"Step {k} of {total}")
        assert shown_hands(page) == as_at_the_table(steps[k]["view"]["hands"]), k
        if k == total // 2:
            shoot(page, "replay-sheepshead")
        page.keyboard.press("ArrowRight")
    page.wait_for_selector("#replay-board .result")
    assert not errors


def test_the_pages_own_addresses_serve_the_app(live: LiveServer) -> None:
    for path in ("/leaderboard", "/r/k7q2m/history", "/r/K7Q2M/history/"):
        with urllib.request.urlopen(live.base + path, timeout=5) as r:
            assert r.status == 200 and b'src="/js/app.js"' in r.read(), path
    for path in ("/leaderboards", "/r/K7Q2M/historyx", "/r/K7Q2M/history/1"):
        try:
            urllib.request.urlopen(live.base + path, timeout=5)
            raise AssertionError(f"{path} served")
        except urllib.error.HTTPError as exc:
            assert exc.code == 404, path


@pytest.mark.slow
def test_the_replay_of_a_capped_game_says_why_it_ended(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    # rule SH-6.6: a game two fixed policies would play for ever ends at its cap, and says so
    game = play_out(looping())
    item = history_item(0, game, ["Ann", "Bob"])
    store = live.server.store

    async def closed_room() -> None:
        await store.create("CAPPD", {"seats": []})
        await store.add_history("CAPPD", item)
        await store.delete("CAPPD")

    on_server(live, closed_room())
    page = new_context().new_page()
    errors = watch_errors(page)
    page.goto(f"{live.base}/r/CAPPD/history")
    page.wait_for_selector("#replay-board .rp-seat")
    page.focus("[data-act='rp-last']")
    page.keyboard.press("End")
    page.wait_for_selector("#replay-board .result .ended")
    assert "SH-6.6" in page.inner_text("#replay-board .result .ended")
    assert "1,000 moves" in page.inner_text("#replay-caption")  # the last step's own line
    shoot(page, "replay-capped")
    loser = game.outcome()
    assert loser is not None and item["names"][loser.loser] in page.inner_text(".result h2")
    assert not errors
