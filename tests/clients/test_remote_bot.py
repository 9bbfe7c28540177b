"""``cardroom bot``: the server's bots as separate processes that join a room over the protocol,
as any third-party bot would."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest

from clients import CardroomClient
from protocol.messages import State
from protocol.views import outcome_of, result_of, sheepshead_view
from server.net.server import CardroomServer
from server.store.memory import MemoryStore
from tests.clients.conftest import finish, run_cardroom
from tests.support.server import act_fresh, choose, make_config, play_until_over

pytestmark = pytest.mark.slow


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
            "--level",
            "strong",  # the searching bot: it thinks in a thread, the connection stays served
        )
        info = await ann.wait_room(lambda r: r.seats[1].kind == "human", timeout=30)
        assert info.seats[1].name == "Robin" and info.seats[1].connected
        await ann.host("start")
        final = await play_until_over(ann)
        code, output = await finish(proc)
        assert code == 0, output
        assert "1 game(s) played" in output
        assert sum(result_of(final)["units"]) == 0
        # the remote seat made its own moves: one card to each of the six tricks
        seen = [e for s in ann.history if isinstance(s, State) for e in s.events]
        assert len([e for e in seen if e["kind"] == "played" and e["seat"] == 1]) == 6


async def test_four_cardroom_bots_and_one_person_finish_a_shithead_game(
    live: CardroomServer,
) -> None:
    async with CardroomClient.connect(live.url) as ann:
        await ann.create("shithead", seats=5, name="Ann")
        levels = ["basic", "basic", "random", "basic"]
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
        assert names == ["Remote basic", "Remote basic 2", "Remote basic 3", "Remote random"]
        await ann.host("start")
        final = await play_until_over(ann, timeout=120)
        results = await asyncio.gather(*(finish(p, 120) for p in procs))
        for code, output in results:
            assert code == 0, output
            assert "1 game(s) played" in output
        assert outcome_of(final)["loser"] in range(5)
        info = await ann.wait_room(lambda r: r.games_played == 1)
        assert sum(info.totals) == 1


async def test_cardroom_bot_resumes_its_seat_after_a_server_restart() -> None:
    store = MemoryStore()
    first = CardroomServer(make_config(), store=store)
    await first.start()
    port = int(first.url.rsplit(":", 1)[1].strip("/"))
    ann = await CardroomClient.connect(first.url)
    await ann.create("sheepshead", seats=5, name="Ann")
    code, token = ann.room or "", ann.token or ""
    for seat in (2, 3, 4):
        await ann.host("add_bot", seat=seat, level="basic")
    proc = await run_cardroom(
        "bot", "--server", first.url, "--room", code, "--games", "1", "--log-level", "INFO"
    )
    second: CardroomServer | None = None
    try:
        await ann.wait_room(lambda r: r.seats[1].kind == "human", timeout=30)
        await ann.host("start")
        # play until the first trick is under way, then restart the server on the same port
        while True:
            state = await ann.wait_turn(timeout=30)
            if state.view["phase"] == "play":
                break
            await act_fresh(ann, choose(state.view))
        await first.stop()
        await ann.close()
        second = CardroomServer(replace(make_config(), port=port), store=store)
        await second.start()
        async with CardroomClient.connect(second.url) as again:
            await again.resume(code, token)
            final = await play_until_over(again)
            code_, output = await finish(proc)
            assert code_ == 0, output
            assert "1 game(s) played" in output
            assert "connection lost; resuming seat 1" in output
            after = [e for m in again.history if isinstance(m, State) for e in m.events]
            assert any(e["kind"] == "played" and e["seat"] == 1 for e in after)
            assert sheepshead_view(final)["played_counts"][1] == 6
            info = again.room_info
            assert info is not None and info.seats[1].playing_for is None  # it played itself
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
        if second is not None:
            await second.stop()
