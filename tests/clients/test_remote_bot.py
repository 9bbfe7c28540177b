"""``cardroom bot``: the server's bots as separate processes that join a room over the protocol,
as any third-party bot would."""

from __future__ import annotations

import asyncio

from clients import CardroomClient
from protocol.messages import State
from server.net.server import CardroomServer
from tests.clients.conftest import finish, run_cardroom
from tests.server.conftest import play_until_over


async def test_cardroom_bot_takes_a_seat_and_plays_a_whole_sheepshead_hand(
    live: CardroomServer,
) -> None:
    async with CardroomClient.connect(live.url) as ann:
        await ann.create("sheepshead", seats=5, name="Ann")
        for seat in (2, 3, 4):
            await ann.host("add_bot", seat=seat, level="basic")
        proc = await run_cardroom(
            "bot",
            "--server",
            live.url,
            "--room",
            ann.room or "",
            "--games",
            "1",
            "--seat-name",
            "Robin",
        )
        info = await ann.wait_room(lambda r: r.seats[1].kind == "human", timeout=30)
        assert info.seats[1].name == "Robin" and info.seats[1].connected
        await ann.host("start")
        final = await play_until_over(ann)
        code, output = await finish(proc)
        assert code == 0, output
        assert "1 game(s) played" in output
        assert sum(final["result"]["units"]) == 0
        # the remote seat made its own moves: one card to each of the six tricks
        seen = [e for s in ann.history if isinstance(s, State) for e in s.events]
        assert len([e for e in seen if e["kind"] == "played" and e["seat"] == 1]) == 6


async def test_four_cardroom_bots_and_one_person_finish_a_shithead_game(
    live: CardroomServer,
) -> None:
    async with CardroomClient.connect(live.url) as ann:
        await ann.create("shithead", seats=5, name="Ann")
        levels = ["basic", "basic", "random", "strong"]
        procs = [
            await run_cardroom(
                "bot",
                "--server",
                live.url,
                "--room",
                ann.room or "",
                "--level",
                level,
                "--games",
                "1",
            )
            for level in levels
        ]
        info = await ann.wait_room(lambda r: all(s.kind == "human" for s in r.seats), timeout=30)
        names = sorted(s.name or "" for s in info.seats[1:])
        # names are unique in a room: the second basic bot numbers itself
        assert names == ["Remote basic", "Remote basic 2", "Remote random", "Remote strong"]
        await ann.host("start")
        final = await play_until_over(ann, timeout=120)
        results = await asyncio.gather(*(finish(p, 120) for p in procs))
        for code, output in results:
            assert code == 0, output
            assert "1 game(s) played" in output
        assert final["outcome"]["loser"] in range(5)
        info = await ann.wait_room(lambda r: r.games_played == 1)
        assert sum(info.totals) == 1
