"""Hints in the terminal client: the option at create, ``?`` at your decision, the reason in the
log, the move starred in the moves list and its cards marked in the hand."""

from __future__ import annotations

import pytest
from textual.widgets import Checkbox, OptionList, Static

from clients.terminal.app import CardroomApp
from clients.terminal.widgets import HandBar
from server.net.server import CardroomServer
from tests.clients.terminal.conftest import (
    SIZE,
    choose_move,
    entered,
    kind_is,
    log,
    moved_on,
    screenshot,
    type_text,
    until,
)

pytestmark = pytest.mark.slow


async def test_ask_for_a_hint_with_the_question_mark(live: CardroomServer) -> None:
    app = CardroomApp(live.url, name="")
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "#name", "Ann")
        await type_text(pilot, "#seats", "2")
        await pilot.click("#hints")
        assert app.screen.query_one("#hints", Checkbox).value
        await screenshot(pilot, "hints-start")
        await pilot.click("#create-shithead")
        await until(
            pilot, lambda: app.client is not None and app.client.room_info is not None, "room"
        )
        screen = await entered(pilot, app)
        client = screen.client
        assert client.room_info is not None and client.room_info.hints
        assert "hints on" in str(screen.query_one("#top", Static).render())
        await choose_move(pilot, lambda m: m.host is not None and m.host.op == "start", "start")
        await until(pilot, lambda: client.my_turn, "the swap phase")
        # ready first, so the hint is asked in the play phase (cards to mark)
        before = client.version
        await choose_move(pilot, kind_is("ready"), "ready")
        await until(pilot, moved_on(client, before), "ready taken")
        await until(
            pilot,
            lambda: client.my_turn and (client.view is not None and client.view["phase"] == "play"),
            "my turn to play",
            timeout=30,
        )
        version = client.version
        await pilot.press("escape", "question_mark")
        await until(pilot, lambda: screen.hint is not None, "the hint")
        hint = screen.hint
        assert hint is not None and hint.version == version
        assert f"★ Hint: {hint.reason.text}"[:40] in log(screen)
        starred = [m for m in screen.moves if m.label.plain.startswith("★ ")]
        assert len(starred) == 1 and starred[0].action is not None
        assert starred[0].action.kind == hint.action.kind
        assert sorted(starred[0].action.cards) == sorted(hint.action.cards)
        options = screen.query_one("#moves", OptionList)  # the cursor is on it
        assert options.highlighted == screen.moves.index(starred[0])
        hand = screen.query_one("#hand", HandBar)
        assert hand.hinted == set(hint.action.cards)
        assert client.version == version  # asking changed nothing
        await screenshot(pilot, "hints-shithead")
        # the hint's move, played from the moves list
        await pilot.press("escape", "enter")
        await until(pilot, moved_on(client, version), "the hinted move played")
        await until(pilot, lambda: screen.hint is None, "the hint gone with its version")
