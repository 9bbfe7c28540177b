"""A swap-phase action refused as stale (another seat acted at the same moment) is sent again on
the fresh state, as the web client does: Enter on "Ready" is never lost to a race."""

from __future__ import annotations

import pytest

from clients import CardroomClient
from clients.terminal.app import CardroomApp
from protocol.messages import ActionModel
from server.net.server import CardroomServer
from tests.clients.terminal.conftest import SIZE, entered, log, until

pytestmark = pytest.mark.slow


async def test_a_ready_refused_as_stale_in_the_swap_phase_is_sent_again(
    live: CardroomServer,
) -> None:
    async with CardroomClient.connect(live.url) as bo:
        await bo.create("shithead", seats=2, name="Bo")
        app = CardroomApp(live.url, bo.room, name="Ann")
        async with app.run_test(size=SIZE) as pilot:
            await pilot.click("#join")
            await until(
                pilot, lambda: app.client is not None and app.client.seat is not None, "a seat"
            )
            screen = await entered(pilot, app)
            ann = screen.client
            await bo.host("start")
            await until(
                pilot,
                lambda: ann.view is not None and ann.view["phase"] == "swap",
                "the swap phase",
            )
            await until(pilot, lambda: screen.shown_version == ann.version, "the screen")
            drawn = ann.version
            assert drawn is not None
            # Bo gets ready at the moment Ann presses Enter on "Ready" on the screen drawn for
            # `drawn`: her action reaches the server after his, against a version now stale
            await bo.wait_turn()
            await bo.act("ready")
            await until(pilot, lambda: ann.version != drawn, "Bo's ready")
            screen.send_action(ActionModel(kind="ready"), drawn)
            await until(
                pilot,
                lambda: ann.view is not None and ann.view["phase"] == "play",
                "the play",
                timeout=10,
            )
            assert "moved on" not in log(screen)
            await ann.close()
