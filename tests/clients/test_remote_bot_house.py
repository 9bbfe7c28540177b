"""``cardroom bot`` in rooms with house rules: the separate process plays the
options in force over real WebSockets, its crack decision included."""

from __future__ import annotations

import pytest

from clients import CardroomClient
from protocol.messages import State
from protocol.views import outcome_of, result_of
from server.net.server import CardroomServer
from tests.clients.conftest import finish, run_cardroom
from tests.support.house import HOUSE_SH, HOUSE_SS, remote_crack_deal
from tests.support.server import play_until_over

pytestmark = pytest.mark.slow


async def test_cardroom_bot_decides_a_crack_in_a_jack_doubler_crack_hand(
    live: CardroomServer,
) -> None:
    seed = remote_crack_deal(seat=1)
    async with CardroomClient.connect(live.url) as ann:
        await ann.create("sheepshead", seats=5, name="Ann", options=HOUSE_SS)
        assert ann.room is not None
        for seat in (2, 3, 4):
            await ann.host("add_bot", seat=seat, level="basic")
        proc = await run_cardroom(
            "bot", "--server", live.url, "--room", ann.room, "--games", "1", "--level", "basic"
        )
        await ann.wait_room(lambda r: r.seats[1].kind == "human", timeout=30)
        live.manager.rooms[ann.room].core.seed = seed
        await ann.host("start")
        final = await play_until_over(ann)
        code, output = await finish(proc)
        assert code == 0, output
        assert "1 game(s) played" in output
        events = [e for s in ann.history if isinstance(s, State) for e in s.events]
        # rule SS-10.4: the remote seat was asked and answered (a crack, or not, or a re-crack)
        mine = [e["kind"] for e in events if e.get("seat") == 1]
        assert {"cracked", "no_crack", "recracked"} & set(mine), mine
        # SS-10.2: with the jack of diamonds nobody calls a card
        assert all(not e.get("cards") for e in events if e["kind"] == "called")
        result = result_of(final)
        assert sum(result["units"]) == 0
        # SS-10.5: each crack and re-crack doubles the stakes
        raised = sum(e["kind"] in ("cracked", "recracked") for e in events)
        assert result["multiplier"] == 2**raised


async def test_cardroom_bot_finishes_a_shithead_game_with_all_three_house_rules(
    live: CardroomServer,
) -> None:
    async with CardroomClient.connect(live.url) as ann:
        await ann.create("shithead", seats=2, name="Ann", options=HOUSE_SH)
        assert ann.room is not None
        proc = await run_cardroom(
            "bot", "--server", live.url, "--room", ann.room, "--games", "1", "--level", "basic"
        )
        info = await ann.wait_room(lambda r: r.seats[1].kind == "human", timeout=30)
        assert info.options.model_dump() == HOUSE_SH
        await ann.host("start")
        final = await play_until_over(ann)
        code, output = await finish(proc)
        assert code == 0, output
        assert "1 game(s) played" in output
        assert final["options"] == HOUSE_SH
        assert outcome_of(final)["loser"] in (0, 1)
        events = [e for s in ann.history if isinstance(s, State) for e in s.events]
        assert any(e["kind"] == "played" and e.get("seat") == 1 for e in events)
