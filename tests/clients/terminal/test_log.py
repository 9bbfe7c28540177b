"""The terminal client's log from the server: watching a game already under way, its log
panel starts with what happened so far (the server's ``log``), a move the server made for a
player whose clock ran out marked as such."""

from __future__ import annotations

import pytest

from clients import CardroomClient
from clients.terminal.app import CardroomApp
from protocol.messages import State
from server.net.server import CardroomServer
from tests.clients.terminal.conftest import SIZE, entered, log, until

pytestmark = pytest.mark.slow


async def test_watching_a_game_under_way_shows_what_happened_so_far(
    live: CardroomServer,
) -> None:
    async with CardroomClient.connect(live.url) as hal:
        await hal.create("shithead", seats=2, name="Hal", turn_timer=1)
        await hal.host("fill_bots", level="basic")
        await hal.host("start")
        # Hal does nothing: his swap ends for him (SH-2.3), then a stand-in plays his turn
        while not any(e.get("seat") == 0 and e["kind"] == "played" for e in seen(hal)):
            await hal.wait_state(timeout=10)
        app = CardroomApp(live.url, hal.room, name="Eve")
        async with app.run_test(size=SIZE) as pilot:
            await pilot.click("#watch")
            await until(pilot, lambda: app.client is not None and app.client.room is not None, "in")
            screen = await entered(pilot, app)
            await until(pilot, lambda: "Hal played" in log(screen), "the log so far")
            text = log(screen)
    assert "Hal is ready (out of time)" in text
    assert "Bot 2 is ready" in text and "Bot 2 is ready (out of time)" not in text
    assert text.index("Hal is ready") < text.index("Hal played")  # in the order it happened


def seen(client: CardroomClient) -> list[dict[str, object]]:
    """Every event of every state the client was sent."""
    return [dict(e) for m in client.history if isinstance(m, State) for e in m.events]
