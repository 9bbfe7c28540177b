"""The end of a match, in the browser: the daily's end screen lists every player's total and
says "your rank today" (what the leaderboard API gives this browser's device), and one tap
plays again with the same table: a new room (never a daily) with the same bots at the same
seats, started at once when nobody else sat there."""

from __future__ import annotations

import dataclasses
import json
import urllib.request
from collections.abc import Callable

import pytest
from playwright.sync_api import BrowserContext, Page

from server.store.leaderboard import Board, Player, player_id
from tests.support.web import PHONE, act_first, check_axe, device_of, on_server
from tests.web.conftest import (
    SCREENSHOTS,
    LiveServer,
    can_act,
    create_room,
    join_room,
    wait_turn,
    watch_errors,
)

pytestmark = pytest.mark.slow


def play_the_match(host: Page, friend: Page) -> None:
    """Both pages play their own turns until the match is over, the host dealing each next
    game."""
    while host.evaluate("window.cardroom.info.status") != "over":
        moved = False
        for page in (host, friend):
            what = can_act(page)
            if what in ("play", "act", "ready", "flip", "pickup"):
                act_first(page)
                moved = True
        status = host.evaluate("window.cardroom.info.status")
        if status == "between" and host.locator('[data-op="next_game"]').count():
            host.click('[data-act="host"][data-op="next_game"]')
            host.wait_for_function("() => window.cardroom.state.view.phase !== 'over'")
        elif not moved:
            host.wait_for_timeout(50)  # a bot is thinking
    friend.wait_for_function("() => window.cardroom.info.status === 'over'")


def test_the_end_of_the_daily_says_your_rank_today_and_plays_again_in_one_tap(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    page = new_context(viewport=PHONE).new_page()
    errors = watch_errors(page)
    page.goto(live.base + "/")
    page.fill("#name", "Dee")
    page.click('[data-act="daily"]')
    page.wait_for_function("() => window.cardroom.state && window.cardroom.info.daily")
    # the day's bots are fixed (the server refuses daily_fixed): their levels are shown, not
    # offered to change, even to the host
    assert page.locator('select[data-act="level"]').count() == 0
    assert page.locator(".seat .badge", has_text="basic bot").count() == 4
    old = page.evaluate("window.cardroom.room")
    seats = page.evaluate("window.cardroom.info.seats.map(s => [s.kind, s.bot_level || null])")
    # two others finished today's match well ahead: this browser's rank is 3rd of 3 (or of
    # more: other tests' dailies share the day's board)
    today = Board.parse("daily:" + page.evaluate("window.cardroom.info.daily"))
    for name in ("Ivy", "Jo"):
        on_server(live, live.server.stores.boards.record(today, Player(f"far-{name}", name), 999))
    while True:  # rule SS-9.1: ten hands, the next dealt by the host (this page)
        what = wait_turn(page, timeout=20_000)
        if what != "over":
            act_first(page)
            continue
        if page.evaluate("window.cardroom.info.status") == "over":
            break
        page.click('[data-act="host"][data-op="next_game"]')
        page.wait_for_function("() => window.cardroom.state.view.phase !== 'over'")
    # every player's total, and this browser's rank on today's board as the API has it
    page.wait_for_selector(".result .final")
    assert page.locator(".final li").count() == 5
    rank = page.locator(".daily-rank[data-rank]")
    rank.wait_for()
    day = page.evaluate("window.cardroom.info.daily")
    url = f"{live.base}/api/leaderboard?board=daily:{day}&player={player_id(device_of(page))}"
    with urllib.request.urlopen(url, timeout=5) as r:
        data = json.loads(r.read())
    you = data["you"]
    assert you and rank.get_attribute("data-rank") == str(you["rank"])
    # the rank with its context, as the board has it: "3rd of 3"
    assert you["rank"] >= 3 and data["players"] >= 3, data
    suffix = {1: "st", 2: "nd", 3: "rd"}.get(
        you["rank"] % 10 if you["rank"] % 100 // 10 != 1 else 0, "th"
    )
    words = f"Your rank today: {you['rank']}{suffix} of {data['players']} ("
    assert words in rank.inner_text(), rank.inner_text()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "match-end-daily-375.png"), full_page=True)
    check_axe(page, "the end of the daily match")

    page.click('[data-act="again"]')  # one tap: the same table again, dealt at once
    page.wait_for_function(
        "(old) => window.cardroom.room && window.cardroom.room !== old && window.cardroom.state",
        arg=old,
    )
    info = page.evaluate("window.cardroom.info")
    assert info["game"] == "sheepshead" and not info["daily"]  # a practice match, not ranked twice
    assert info["status"] in ("playing", "between")
    again = [[s["kind"], s.get("bot_level")] for s in info["seats"]]
    assert again == seats  # the same bots (and levels) at the same seats
    assert page.evaluate("window.cardroom.seat") == 0
    assert json.loads(page.evaluate("localStorage.getItem('cardroom.session')"))["room"] != old

    # today's daily once more from this browser: not ranked (rule SS-9.2: its hands are the
    # ones just played), and the page says so from the first card
    page.goto(live.base + "/")
    page.click('[data-act="daily"]')
    page.wait_for_function(
        "(old) => window.cardroom.room !== old && window.cardroom.state"
        " && window.cardroom.info.daily",
        arg=old,
    )
    assert page.evaluate("window.cardroom.info.daily_ranked") is False
    assert page.locator("#top .daily-unranked").is_visible()
    assert not errors


def test_friends_follow_the_host_to_the_same_table_again(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    host = new_context(viewport=PHONE).new_page()
    friend = new_context().new_page()
    errors = [watch_errors(p) for p in (host, friend)]
    old = create_room(host, live.base, "Hal", "sheepshead")
    join_room(friend, live.base, old, "Gus")
    # a bot of another level than the rest (filled at the start): it must keep it
    host.click('[data-act="host"][data-op="add_bot"][data-seat="2"]')
    host.select_option('select[data-act="level"][data-seat="2"]', "random")
    host.wait_for_function("() => window.cardroom.info.seats[2].bot_level === 'random'")
    host.click('[data-act="host"][data-op="start"]')
    host.wait_for_function("() => window.cardroom.state")
    seats = host.evaluate("window.cardroom.info.seats.map(s => [s.kind, s.bot_level || null])")
    play_the_match(host, friend)  # rule SS-9.1: ten hands
    host.locator('[data-act="again"]').click()
    # the host's page waits in the new room's lobby (friends are to come), with the same bots
    host.wait_for_function("(old) => window.cardroom.room !== old && window.cardroom.info", arg=old)
    new = host.evaluate("window.cardroom.room")
    host.wait_for_selector(".lobby .code")
    # the friend's page offers the new table in one tap, and takes a seat at it
    follow = friend.locator('[data-act="follow"]')
    assert "Hal" in follow.inner_text()
    # the host's line in the chat, in words (the page's own language)
    assert "the same table again: room " + new in friend.inner_text("#chat-lines")
    friend.screenshot(path=str(SCREENSHOTS / "match-end-follow-1280.png"), full_page=True)
    check_axe(friend, "the end of a match, the host gone to a new table")
    follow.click()
    friend.wait_for_function("(room) => window.cardroom.room === room", arg=new)
    friend.wait_for_selector(".seat.mine")
    host.wait_for_function("() => window.cardroom.info.seats[1].kind === 'human'")
    info = host.evaluate("window.cardroom.info")
    again = [[s["kind"], s.get("bot_level")] for s in info["seats"]]
    assert again == seats  # the same people and the same bots (and levels) at the same seats
    assert info["status"] == "lobby" and not info["daily"]
    assert [p.evaluate("window.cardroom.seat") for p in (host, friend)] == [0, 1]
    host.click('[data-act="host"][data-op="start"]')  # and they play again
    friend.wait_for_function("() => window.cardroom.info.status === 'playing'")
    assert not [e for errs in errors for e in errs]


def test_the_same_table_again_when_the_host_is_not_at_seat_0_and_one_left(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    ann, bob = new_context().new_page(), new_context(viewport=PHONE).new_page()
    cy = new_context(viewport={"width": 1280, "height": 800}).new_page()
    errors = [watch_errors(p) for p in (ann, bob, cy)]
    old = create_room(ann, live.base, "Ann", "shithead", seats=3)
    for page, name in ((bob, "Bob"), (cy, "Cy")):
        join_room(page, live.base, old, name)

    def one_game() -> None:  # the series ends after one game (max_games): its end screen
        core = live.server.manager.rooms[old].core
        core.settings = dataclasses.replace(core.settings, max_games=1)

    live.call(one_game)
    ann.click('[data-act="host"][data-op="start"]')
    bob.wait_for_function("() => window.cardroom.state")
    # Ann leaves at the first move: a stand-in bot takes seat 0, the host role passes to Bob
    ann.evaluate("window.cardroom.net.request({type: 'leave', room: window.cardroom.room})")
    bob.wait_for_function("() => window.cardroom.info.seats[1].host")
    before = bob.evaluate("window.cardroom.info.seats.map(s => [s.kind, s.name])")
    assert before[0][0] == "bot" and [s[1] for s in before[1:]] == ["Bob", "Cy"]
    play_the_match(bob, cy)
    bob.locator('[data-act="again"]').click()
    bob.wait_for_function("(old) => window.cardroom.room !== old && window.cardroom.info", arg=old)
    new = bob.evaluate("window.cardroom.room")
    cy.locator('[data-act="follow"]').click()
    cy.wait_for_function("(room) => window.cardroom.room === room", arg=new)
    bob.wait_for_function("() => window.cardroom.info.seats.every(s => s.kind !== 'empty')")
    after = bob.evaluate("window.cardroom.info.seats.map(s => [s.kind, s.name])")
    # the table turned so that the host sits at seat 0: the same play order (Cy still plays
    # after Bob, the stand-in after Cy), the bot in the seat of the one who left
    assert [s[1] for s in after[:2]] == ["Bob", "Cy"] and after[2][0] == "bot"
    assert [p.evaluate("window.cardroom.seat") for p in (bob, cy)] == [0, 1]
    bob.click('[data-act="host"][data-op="start"]')
    cy.wait_for_function("() => window.cardroom.info.status === 'playing'")
    assert not [e for errs in errors for e in errs]
