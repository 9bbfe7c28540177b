"""The terminal client creates a Shithead room, fills it with bots and plays a game to the end,
by keyboard, against a live server."""

from __future__ import annotations

import re

import pytest
from textual.pilot import Pilot

from clients.terminal.app import CardroomApp
from clients.terminal.widgets import HandBar
from protocol.messages import RoomInfo, State
from protocol.views import outcome_of, shithead_view
from server.net.server import CardroomServer
from tests.clients.terminal.conftest import (
    SHOTS,
    SIZE,
    choose_move,
    entered,
    kind_is,
    log,
    moved_on,
    my_turn_shown,
    room_screen,
    screenshot,
    type_text,
    until,
)

pytestmark = pytest.mark.slow

ORDER = "3456789JQKA2T"  # the test's preference: shed low cards first, keep the specials


async def test_create_fill_bots_and_play_a_shithead_game_to_the_end(live: CardroomServer) -> None:
    app = CardroomApp(live.url, name="")
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "#name", "Ann")
        await type_text(pilot, "#seats", "4")
        await type_text(pilot, "#timer", "600")
        await screenshot(pilot, "start")
        await pilot.click("#create-shithead")
        await until(
            pilot, lambda: app.client is not None and app.client.room_info is not None, "room"
        )
        screen = await entered(pilot, app)
        client = screen.client
        assert client.seat == 0 and client.room_info is not None
        assert client.room_info.game == "shithead" and len(client.room_info.seats) == 4
        await choose_move(pilot, lambda m: m.host is not None and m.host.op == "fill_bots", "fill")
        await until(
            pilot,
            lambda: all(s.kind != "empty" for s in client.room_info.seats),  # type: ignore[union-attr]
            "bots in every seat",
        )
        await screenshot(pilot, "shithead-lobby")

        def info() -> RoomInfo:
            assert client.room_info is not None
            return client.room_info

        # host commands from the moves list: a bot's level there and back, lock and unlock
        assert info().seats[1].bot_level == "basic"
        offered = [m.label.plain for m in screen.moves if m.host and m.host.seat == 1]
        levels = [o for o in offered if o.startswith("Make Bot 2")]
        assert levels == [f"Make Bot 2 (seat 2) {x}" for x in ("random", "strong", "expert")]
        await choose_move(pilot, lambda m: m.label.plain == "Make Bot 2 (seat 2) strong", "strong")
        await until(pilot, lambda: info().seats[1].bot_level == "strong", "a strong bot")
        await until(
            pilot,
            lambda: not any(m.label.plain == "Make Bot 2 (seat 2) strong" for m in screen.moves),
            "the level list to follow the bot's level",
        )
        await choose_move(pilot, lambda m: m.label.plain == "Make Bot 2 (seat 2) basic", "basic")
        await until(pilot, lambda: info().seats[1].bot_level == "basic", "a basic bot")
        await choose_move(pilot, lambda m: m.host is not None and m.host.op == "lock", "lock")
        await until(pilot, lambda: info().locked, "locked")
        await choose_move(pilot, lambda m: m.host is not None and m.host.op == "unlock", "unlock")
        await until(pilot, lambda: not info().locked, "unlocked")
        await choose_move(pilot, lambda m: m.host is not None and m.host.op == "start", "start")
        await until(pilot, lambda: client.view is not None, "the deal")
        hand_plays = multi = 0
        countdowns = 0
        shot = False
        while True:
            view = await my_turn_shown(pilot, screen)
            if view["phase"] == "over":
                break
            before = client.version
            countdowns += bool(re.search(r"\d+:\d\d left", str(screen.query_one("#top").render())))
            if not shot and view["phase"] == "play" and len(shithead_view(view)["pile"]) >= 2:
                await screenshot(pilot, "shithead-table")
                shot = True
            if view["phase"] == "swap":
                await choose_move(pilot, kind_is("ready"), "ready")
            elif client.play_sets:
                cards = min(client.play_sets, key=lambda s: ORDER.index(s[0][0]))
                multi += len(cards) > 1
                hand_plays += 1
                await play_with_the_hand(pilot, app, cards)
            else:
                await choose_move(pilot, lambda m: m.action is not None, "a pickup or a flip")
            await until(pilot, moved_on(client, before), "the move to be applied")
        await screenshot(pilot, "shithead-over")
        print(f"{hand_plays} plays made with the hand, {multi} of several cards")
        assert hand_plays > 0  # every play went through the hand (play_sets)
        assert info().turn_timer == 600 and countdowns > 0
        # chat: Tab from the moves list to the chat line, type, Enter
        await pilot.press("escape", "tab")
        await pilot.press("g", "g", "enter")
        await until(pilot, lambda: "<Ann> gg" in log(screen), "the chat line")
        final = client.view
        assert final is not None and final["phase"] == "over"
        loser = outcome_of(final)["loser"]
        await until(pilot, lambda: client.room_info.status == "between", "the game to be counted")  # type: ignore[union-attr]
        assert client.room_info is not None and client.room_info.totals[loser] == 1
        # the log told the story, and the table says who lost
        assert re.search(r"Game over: .+ (is|are) the shithead", log(screen))
        table = str(screen.query_one("#table").render())
        assert "Game over" in table
        states = [m for m in client.history if isinstance(m, State) and m.seat == 0]
        assert any(e["kind"] == "played" and e["seat"] == 0 for s in states for e in s.events)
        # the host deals the next game of the series
        await choose_move(pilot, lambda m: m.host is not None and m.host.op == "next_game", "next")
        await until(
            pilot,
            lambda: client.view is not None and client.view["phase"] == "swap",
            "the next deal",
        )
        await until(pilot, lambda: "a new deal" in log(screen), "the new deal in the log")
        await app.client.close()  # type: ignore[union-attr]


async def play_with_the_hand(pilot: Pilot[None], app: CardroomApp, cards: list[str]) -> None:
    """Select ``cards`` in the hand with ←/→ and Space, then Enter."""
    screen = room_screen(app)
    hand = screen.query_one("#hand", HandBar)
    await pilot.press("escape", "shift+tab")  # from the moves list back to the hand
    assert hand.has_focus
    await pilot.press("home")
    shown = hand.choice.cards
    position = 0
    for card in cards:
        target = shown.index(card)
        step = "right" if target > position else "left"
        await pilot.press(*[step] * abs(target - position), "space")
        position = target
    assert sorted(hand.selected) == sorted(cards), (hand.choice, shown)
    if len(cards) > 1 and not (SHOTS / "shithead-select.svg").exists():
        await screenshot(pilot, "shithead-select")  # several cards of one rank selected
    await pilot.press("enter")
