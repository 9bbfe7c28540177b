"""House rules in the terminal client: a room created from the start screen with
them, the rules in force in the lobby and on the table, and a Sheepshead hand with the jack of
diamonds, the doubler and cracking played through a crack by keyboard."""

from __future__ import annotations

import pytest
from textual.widgets import Input, Static

from clients.terminal.app import CardroomApp, StartScreen
from clients.terminal.describe import event_line
from clients.terminal.house import RULES_HELP, parse_rules
from clients.terminal.widgets import HandBar
from protocol.messages import SheepsheadOptions, ShitheadOptions
from protocol.views import sheepshead_view
from server.net.server import CardroomServer
from tests.clients.terminal.conftest import (
    SIZE,
    choose_move,
    entered,
    kind_is,
    log,
    moved_on,
    my_turn_shown,
    screenshot,
    type_text,
    until,
)
from tests.support.house import HOUSE_SS, crack_deal

pytestmark = pytest.mark.slow


async def test_a_house_rules_sheepshead_hand_through_a_crack_by_keyboard(
    live: CardroomServer,
) -> None:
    seed = crack_deal()
    app = CardroomApp(live.url, name="")
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "#name", "Ann")
        await type_text(pilot, "#rules", "partner=jack_of_diamonds no_pick=doubler crack")
        await screenshot(pilot, "start-house-rules")
        await pilot.click("#create-sheepshead")
        await until(
            pilot, lambda: app.client is not None and app.client.room_info is not None, "room"
        )
        screen = await entered(pilot, app)
        client = screen.client
        assert client.room_info is not None and client.room is not None
        assert client.room_info.options.model_dump() == HOUSE_SS
        # rule SS-10.1: the lobby says which rules the room plays
        table = screen.query_one("#table")
        await until(pilot, lambda: "Rules:" in str(table.render()), "the lobby")
        assert "Rules: J♦ partner · doubler · cracking" in str(table.render())
        live.manager.rooms[client.room].core.seed = seed
        await choose_move(pilot, lambda m: m.host is not None and m.host.op == "start", "start")
        cracked = False
        while True:
            view = sheepshead_view(await my_turn_shown(pilot, screen))
            if view["phase"] == "over":
                break
            before = client.version
            if view["phase"] == "pick":
                assert "J♦ partner · doubler · cracking" in str(table.render())
                await choose_move(pilot, kind_is("pass"), "pass")
            elif view["phase"] == "crack":
                # rule SS-10.4: a defender may crack or not; only the picker re-cracks
                kinds = {m.action.kind for m in screen.moves if m.action is not None}
                assert kinds == {"crack", "no_crack"}, kinds
                assert "crack (double the stakes), or not" in str(table.render())
                await screenshot(pilot, "sheepshead-crack")
                await choose_move(pilot, kind_is("crack"), "crack")
                cracked = True
            else:
                await pilot.press("escape", "shift+tab")
                hand = screen.query_one("#hand", HandBar)
                assert hand.has_focus and hand.choice.mode == "one"
                # SS-10.6: the stakes and who cracked, under the table's first line
                shown = str(table.render()).splitlines()[1]
                assert shown.startswith(f"Stakes ×{view['multiplier']} · cracked by You"), shown
                if view["trick"]["number"] == 1:
                    await screenshot(pilot, "sheepshead-cracked")
                await pilot.press("enter")
            await until(pilot, moved_on(client, before), "the move to be applied")
        assert cracked, "never asked to crack"
        final = view  # the view the game ended on
        result = final["result"]
        assert result is not None and sum(result["units"]) == 0
        # rule SS-10.5: the crack doubled the stakes (and a re-crack again)
        assert result["multiplier"] == (4 if final["recracked"] is not None else 2)
        assert final["cracked"] == 0
        text = log(screen)
        assert "You cracked: the stakes double" in text and "Hand over" in text
        assert "plays with the jack of diamonds as partner" in text or "goes alone" in text


async def test_rules_given_on_the_command_line_fill_the_field_and_bad_ones_are_refused(
    live: CardroomServer,
) -> None:
    # cardroom play --rules ...: the start screen's field, taken by the next create (SH-7.1)
    app = CardroomApp(live.url, name="Ann", rules="seven_lower, eight_skips=false")
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, StartScreen)
        assert screen.query_one("#rules", Input).value == "seven_lower, eight_skips=false"
        # an option of the other game is refused before any room exists, and said why
        await type_text(pilot, "#rules", "crack")
        await pilot.click("#create-shithead")
        status = screen.query_one("#status", Static)
        await until(pilot, lambda: "Not accepted" in str(status.render()), "the refusal")
        assert app.client is not None and app.client.room is None
        await type_text(pilot, "#rules", "seven_lower eight_skips=false")
        await pilot.click("#create-shithead")
        await until(
            pilot, lambda: app.client is not None and app.client.room_info is not None, "room"
        )
        info = app.client.room_info
        assert info is not None
        assert info.options.model_dump() == {
            "seven_lower": True,
            "eight_skips": False,
            "three_invisible": False,
        }


def test_rules_are_typed_in_the_tables_words_and_lines_agree_with_you() -> None:
    # what the start screen's help names is what it reads: no internal names to learn
    assert parse_rules("7 plays lower, 8 skips, 3 is glass") == {
        "seven_lower": True,
        "eight_skips": True,
        "three_invisible": True,
    }
    assert parse_rules("jd partner dealer must pick Cracking") == {
        "partner": "jack_of_diamonds",
        "no_pick": "forced",
        "crack": True,
    }
    # every phrase the help names is read as an option of the wire (none as an unknown word)
    known = {*ShitheadOptions.model_fields, *SheepsheadOptions.model_fields}
    help_text = RULES_HELP.replace("Shithead:", ",").replace("Sheepshead:", ",").replace("·", ",")
    for phrase in help_text.replace("(or", ",").replace(")", "").replace(" or ", ",").split(","):
        if phrase.strip():
            got = parse_rules(phrase)
            assert got and set(got) <= known, (phrase, got)
    started = event_line({"kind": "started", "seat": 0}, ["You", "Bot 2"]).plain
    assert started == "Play begins: You start"
    assert event_line({"kind": "no_crack", "seat": 0}, ["You"]).plain.startswith("You do not")
