"""The terminal client's Play now: the start screen's button queues, the status line counts
the wait, and the table it finds (bots in the seats nobody took) opens as the room screen."""

from __future__ import annotations

import pytest

from clients.terminal.app import CardroomApp, RoomScreen, StartScreen
from protocol.messages import Queued
from server.net.server import CardroomServer
from tests.clients.terminal.conftest import SIZE, screenshot, until
from tests.support.queue import queue_config

pytestmark = pytest.mark.slow


async def test_play_now_finds_a_table_with_bots() -> None:
    async with CardroomServer(queue_config(shithead_table=3, fill_wait=1.5)) as server:
        app = CardroomApp(server.url, name="Ann")
        async with app.run_test(size=SIZE) as pilot:
            await pilot.click("#play-shithead")
            await until(
                pilot,
                lambda: (
                    app.client is not None
                    and any(isinstance(m, Queued) for m in app.client.history)
                ),
                "queued",
            )
            screen = app.screen
            assert isinstance(screen, StartScreen)
            assert "waiting" in str(screen.query_one("#status").render())
            await screenshot(pilot, "play-now-waiting")
            await until(pilot, lambda: isinstance(app.screen, RoomScreen), "the table", 10)
            client = app.client
            assert client is not None and client.seat == 0 and client.room is not None
            await until(pilot, lambda: client.room_info is not None, "the room")
            assert client.room_info is not None
            kinds = [(s.kind, s.bot_level) for s in client.room_info.seats]
            assert kinds == [("human", None), ("bot", "strong"), ("bot", "strong")]
            await until(pilot, lambda: client.view is not None, "the deal")
            await screenshot(pilot, "play-now-table")


async def test_another_button_gives_the_wait_up() -> None:
    async with CardroomServer(queue_config(fill_wait=60.0)) as server:
        app = CardroomApp(server.url, name="Ann", play_now="sheepshead")  # --play-now
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: bool(server.queue.mine), "queued at once")
            app.screen.query_one("#name").value = ""  # type: ignore[attr-defined]
            await pilot.click("#watch")  # refused at once (no name), the wait given up
            await until(pilot, lambda: not server.queue.mine, "out of the line")
