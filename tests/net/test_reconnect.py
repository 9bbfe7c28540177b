"""Reconnection with the seat token, held seats, stand-in bots, and restarts."""

from __future__ import annotations

import asyncio

import pytest

from clients import CardroomClient, CardroomError
from server.net.server import CardroomServer
from server.store.memory import MemoryStore
from tests.support.server import choose, make_config, play_until_over


async def my_turn_in_play(client: CardroomClient) -> None:
    """Play (as the simple policy) until this seat is to act in the play phase."""
    while True:
        state = await client.wait_turn(timeout=30)
        if state.view["phase"] in ("play", "over"):
            return
        try:
            await client.act(choose(state.view), version=state.version)
        except CardroomError as exc:
            assert exc.code == "stale_version"


async def test_reconnect_with_token_resumes_the_seat(server: CardroomServer) -> None:
    ann = await CardroomClient.connect(server.url)
    await ann.create("shithead", seats=3, name="Ann")
    code, token = ann.room or "", ann.token or ""
    async with CardroomClient.connect(server.url) as bob:
        await bob.join(code, name="Bob")
        await ann.host("start")
        bob_plays = asyncio.create_task(play_until_over(bob))
        await my_turn_in_play(ann)
        version = ann.version
        await ann.close()  # a closed laptop
        info = await bob.wait_room(lambda r: not r.seats[0].connected)
        assert info.seats[0].kind == "human"  # the seat is held, not given away
        async with CardroomClient.connect(server.url) as again:
            with pytest.raises(CardroomError) as refused:
                await again.resume(code, "not-the-right-token")
            assert refused.value.code == "bad_token"
            joined = await again.resume(code, token)
            assert joined.seat == 0
            state = await again.wait_state()  # the current view at once
            assert state.view["seat"] == 0 and state.version == version
            await asyncio.gather(play_until_over(again), bob_plays)


@pytest.mark.slow
async def test_timer_runs_out_a_bot_plays_for_the_absent_player_who_then_returns(
    server: CardroomServer,
) -> None:
    async with CardroomClient.connect(server.url) as ann:
        await ann.create("shithead", seats=3, name="Ann", turn_timer=1)
        code = ann.room or ""
        bob = await CardroomClient.connect(server.url)
        await bob.join(code, name="Bob")
        token = bob.token or ""
        await ann.host("fill_bots", level="basic")
        await ann.host("start")
        await bob.close()  # Bob disappears before even readying up
        # the swap timer declares Bob ready; then his turns are played for him on time-out
        acted_for_bob = False
        while not acted_for_bob:
            state = await ann.wait_state(timeout=10)
            for event in state.events:
                if event.get("seat") == 1 and event["kind"] in ("played", "picked_up", "flipped"):
                    acted_for_bob = True
            if state.view["phase"] == "over":
                break
            if ann.seat in state.view["to_act"] and state.view["legal"]:
                try:
                    await ann.act(choose(state.view), version=state.version)
                except CardroomError as exc:
                    assert exc.code == "stale_version"
        assert acted_for_bob
        async with CardroomClient.connect(server.url) as back:
            joined = await back.resume(code, token)
            assert joined.seat == 1
            await back.wait_state()
            await asyncio.gather(play_until_over(back), play_until_over(ann))


async def test_graceful_restart_keeps_every_room(store: MemoryStore) -> None:
    first = CardroomServer(make_config(), store=store)
    await first.start()
    ann = await CardroomClient.connect(first.url)
    await ann.create("sheepshead", seats=5, name="Ann")
    code, token = ann.room or "", ann.token or ""
    await ann.host("start")
    await my_turn_in_play(ann)
    state = await ann.wait_turn()
    await ann.act(choose(state.view), version=state.version)
    version = (await ann.wait_state(lambda s: s.version > state.version)).version
    room = first.manager.rooms[code].core
    await first.stop()
    before = room.record()  # as it stood when the server stopped
    closing = await ann.wait_for(lambda msg: msg.type == "closing", timeout=5)
    assert "shutting down" in closing.reason  # type: ignore[union-attr]
    await ann.close()
    second = CardroomServer(make_config(), store=store)
    await second.start()
    try:
        assert second.manager.rooms[code].core.record() == before
        async with CardroomClient.connect(second.url) as again:
            await again.resume(code, token)
            resumed = await again.wait_state()
            assert resumed.version == before["version"] >= version
            assert resumed.view["seat"] == 0
            await play_until_over(again)
    finally:
        await second.stop()
