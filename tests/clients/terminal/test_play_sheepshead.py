"""The terminal client joins a Sheepshead room by its code and plays a whole hand by keyboard,
against a live server; its connection is cut halfway and it takes its seat back by itself."""

from __future__ import annotations

import asyncio

import pytest
from textual.pilot import Pilot

from clients import CardroomClient
from clients.terminal.app import CardroomApp, RoomScreen
from clients.terminal.cards import card_text
from clients.terminal.widgets import HandBar
from protocol.views import SheepsheadView, sheepshead_view
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
    until,
)
from tests.support.server import play_until_over

pytestmark = pytest.mark.slow


async def test_join_a_sheepshead_room_and_play_a_hand(live: CardroomServer) -> None:
    async with CardroomClient.connect(live.url) as host:
        await host.create("sheepshead", seats=5, name="Hal")
        for seat in (2, 3, 4):
            await host.host("add_bot", seat=seat, level="basic")
        app = CardroomApp(live.url, host.room, name="Tess")
        async with app.run_test(size=SIZE) as pilot:
            await pilot.click("#join")
            await until(pilot, lambda: app.client is not None and app.client.seat == 1, "a seat")
            screen = await entered(pilot, app)
            client = screen.client
            await until(pilot, lambda: "Tess" in str(screen.query_one("#table").render()), "lobby")
            await host.host("start")
            host_plays = asyncio.create_task(play_until_over(host))
            await until(pilot, lambda: client.view is not None, "the deal")
            cut = False
            buried = picked = False
            shot = looked = False
            while True:
                view = sheepshead_view(await my_turn_shown(pilot, screen))
                if view["phase"] == "over":
                    break
                before = client.version
                phase = view["phase"]
                hand = screen.query_one("#hand", HandBar)
                if phase == "pick":
                    kind = "pick" if any(a["kind"] == "pick" for a in view["legal"]) else "pass"
                    picked = kind == "pick"
                    await choose_move(pilot, kind_is(kind), kind)
                elif phase == "bury":
                    # two cards chosen in the hand: Space, →, Space, Enter
                    await pilot.press("escape", "shift+tab")
                    assert hand.has_focus and hand.choice.mode == "bury"
                    await pilot.press("space", "right", "space")
                    assert len(hand.selected) == 2
                    await screenshot(pilot, "sheepshead-bury")
                    await pilot.press("enter")
                    buried = True
                elif phase == "call":
                    await choose_move(pilot, lambda m: m.action is not None, "a call")
                else:
                    if not shot and view["trick"]["cards"]:
                        await screenshot(pilot, "sheepshead-table")
                        shot = True
                    if not looked and view["tricks"] and view["trick"]["cards"]:
                        # the next trick has started: l shows the last one, l again goes back
                        await look_at_the_last_trick(pilot, screen, view)
                        looked = True
                    # the card under the cursor (the first legal one) with Enter
                    await pilot.press("escape", "shift+tab")
                    assert hand.has_focus and hand.choice.mode in ("one", "none")
                    if hand.choice.mode == "one":
                        await pilot.press("enter")
                    else:  # the unknown card, not in the hand: from the moves list
                        await choose_move(pilot, lambda m: m.action is not None, "a play")
                await until(pilot, moved_on(client, before), "the move to be applied")
                if not cut and view["phase"] == "play":
                    # the connection drops: the client resumes its seat with its token
                    cut = True
                    client._ws.transport.abort()  # the network drops
                    # "reconnecting" can be brief on a fast resume: wait for the line it logs
                    await until(pilot, lambda: "Connection lost" in log(screen), "the drop")
                    await until(pilot, lambda: screen.connection == "online", "the resume")
                    assert client.seat == 1
            await screenshot(pilot, "sheepshead-over")
            assert client.view is not None
            final = sheepshead_view(client.view)
            assert final["result"] is not None
            assert final["played_counts"][1] == 6
            assert cut, "the connection was never cut"
            assert looked, "no trick started after another while it was my turn"
            assert buried == picked  # who picks, buries
            log_text = log(screen)
            assert "Connection lost" in log_text and "Reconnected" in log_text
            assert "Hand over" in log_text
            await asyncio.wait_for(host_plays, 30)
            await client.close()


async def look_at_the_last_trick(
    pilot: Pilot[None], screen: RoomScreen, view: SheepsheadView
) -> None:
    table = screen.query_one("#table")
    done = view["tricks"][-1]
    await pilot.press("escape", "l")
    shown = str(table.render())
    assert "Last trick:" in shown and "Trick " not in shown.replace("Last trick", "")
    header = next(line for line in shown.splitlines() if "Last trick:" in line)
    assert header.rstrip().endswith("pts"), header  # the cards stand below it, not run into it
    for played in done["cards"]:  # every card of it, by the name of the seat that played it
        assert card_text(played["card"]).plain in shown, (played, shown)
    await screenshot(pilot, "sheepshead-last-trick")
    await pilot.press("l")
    shown = str(table.render())
    assert f"Trick {view['trick']['number']}:" in shown
