"""No seat and no spectator ever receives a card its view may not show: every state message
is compared with the rules core's own view at that version, rebuilt from the stored log."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

import pytest

from clients import CardroomClient
from protocol.cards import parse_cards
from protocol.messages import State
from server.net.server import CardroomServer
from server.rooms.matches import DealSource
from server.rules.shithead import Shithead
from tests.support.replay import replayed
from tests.support.server import play_until_over
from tests.support.shithead import codes_in, visible_to


def check_states(
    record: Mapping[str, Any], seen: dict[int | None, list[State]], source: DealSource
) -> int:
    """Compare every state message with the rules' view of its seat at its version."""
    wanted: dict[int, list[tuple[int | None, State]]] = {}
    for seat, states in seen.items():
        assert states, f"seat {seat} received no state"
        for state in states:
            wanted.setdefault(state.version, []).append((seat, state))
    checked = 0
    for version, game in replayed(record, source):
        for seat, state in wanted.pop(version, []):
            assert state.view == game.view(seat)  # the server adds nothing of its own
            if isinstance(game, Shithead):
                assert codes_in(state.view) <= visible_to(game, seat)
            elif game.phase != "over":
                own = set(parse_cards(state.view.get("hand") or []))
                others = set().union(*(set(game.hand(s)) for s in range(5) if s != seat))
                assert not own & others
            checked += 1
    assert not wanted, f"states of versions never reached: {sorted(wanted)}"
    return checked


async def collect_states(client: CardroomClient) -> list[State]:
    states: list[State] = []
    async for msg in client.messages():
        if isinstance(msg, State):
            states.append(msg)
            if msg.view["phase"] == "over":
                break
    return states


async def test_spectator_and_seats_never_see_hidden_cards(server: CardroomServer) -> None:
    async with (
        CardroomClient.connect(server.url) as ann,
        CardroomClient.connect(server.url) as bob,
        CardroomClient.connect(server.url) as eve,
    ):
        await ann.create("shithead", seats=4, name="Ann")
        await bob.join(ann.room or "", name="Bob")
        await ann.host("fill_bots", level="basic")
        await ann.host("start")
        code = ann.room or ""
        bob_states = asyncio.create_task(collect_states(bob))
        ann_states = asyncio.create_task(collect_states(ann))
        play = asyncio.gather(play_until_over(ann), play_until_over(bob))
        async with asyncio.timeout(20):
            async for msg in ann.messages():  # the spectator arrives mid-game
                if isinstance(msg, State) and msg.version >= 10:
                    break
        await eve.watch(code)
        watch_states = asyncio.create_task(collect_states(eve))
        await play
        seen = {None: await watch_states, 0: await ann_states, 1: await bob_states}
        record = server.manager.rooms[code].core.record()
        source = server.manager.rooms[code].core.source
    assert seen[None][0].version < record["version"]  # it joined while play went on
    assert check_states(record, seen, source) > 50


@pytest.mark.slow
async def test_sheepshead_views_match_the_rules_views(server: CardroomServer) -> None:
    async with (
        CardroomClient.connect(server.url) as ann,
        CardroomClient.connect(server.url) as eve,
    ):
        await ann.create("sheepshead", seats=5, name="Ann")
        await eve.watch(ann.room or "")
        code = ann.room or ""
        ann_states = asyncio.create_task(collect_states(ann))
        eve_states = asyncio.create_task(collect_states(eve))
        await ann.host("start")
        await play_until_over(ann)
        record = server.manager.rooms[code].core.record()
        source = server.manager.rooms[code].core.source
        seen = {0: await ann_states, None: await eve_states}
    assert check_states(record, seen, source) > 20
