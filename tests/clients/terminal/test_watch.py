"""The terminal client watches a game by its room code: the table without anyone's hand."""

from __future__ import annotations

import asyncio

import pytest

from clients import CardroomClient
from clients.terminal.app import CardroomApp, StartScreen
from clients.terminal.widgets import HandBar
from server.net.server import CardroomServer
from tests.clients.terminal.conftest import SIZE, choose_move, entered, screenshot, until
from tests.support.server import play_until_over

pytestmark = pytest.mark.slow


async def test_watch_a_shithead_game(live: CardroomServer) -> None:
    async with CardroomClient.connect(live.url) as host:
        await host.create("shithead", seats=3, name="Hal")
        await host.host("fill_bots", level="basic")
        app = CardroomApp(live.url, host.room, name="Eve")
        async with app.run_test(size=SIZE) as pilot:
            await pilot.click("#watch")
            await until(
                pilot, lambda: app.client is not None and app.client.room is not None, "watch"
            )
            screen = await entered(pilot, app)
            client = screen.client
            assert client.seat is None and client.token is None
            await host.host("start")
            host_plays = asyncio.create_task(play_until_over(host))
            await until(pilot, lambda: (client.version or 0) >= 8, "a few moves")
            assert "watching" in str(screen.query_one("#top").render())
            assert screen.query_one("#hand", HandBar).choice.cards == []
            assert all(m.action is None for m in screen.moves)  # a spectator has no moves
            await screenshot(pilot, "shithead-watching")
            await asyncio.wait_for(host_plays, 60)
            await until(
                pilot, lambda: client.view is not None and client.view["phase"] == "over", "the end"
            )
            assert "Game over" in str(screen.query_one("#table").render())
            # the last line of the moves list leaves the room: back to the start screen
            await choose_move(pilot, lambda m: m.leave, "leave")
            await until(pilot, lambda: isinstance(app.screen, StartScreen), "the start screen")
            assert client.room is None
            await client.close()
