"""Real games rebuilt by the rules from what the fuzzer's own players did: the check that
every view anyone received is the rules' view of that seat at that version. It must pass on a
real server and fail when a view or a version is not what the rules say."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator

import pytest

from protocol.messages import GameName
from server.net.server import CardroomServer
from server.store.memory import MemoryStore
from server.tools.fuzz.games import play_room, verify
from server.tools.fuzz.mutate import Known
from tests.support.server import make_config

pytestmark = pytest.mark.slow


@pytest.fixture
async def server() -> AsyncIterator[CardroomServer]:
    """As the fuzzer's own server runs (``--daily-alone off``): its Sheepshead rooms seat five
    scripted people at the day's deals (such rooms rank nobody)."""
    async with CardroomServer(make_config(daily_alone=False), store=MemoryStore()) as srv:
        yield srv


@pytest.mark.parametrize("game", ["shithead", "sheepshead"])
async def test_real_games_match_the_rules_views(server: CardroomServer, game: GameName) -> None:
    stop = asyncio.Event()
    stop.set()  # one game, then stop
    known = Known()
    run = await play_room(server.url, game, known, stop, random.Random(4))
    assert run.finished == 1 and not run.refused_legal
    verdict = verify(run, [])
    assert verdict.mismatches == [] and verdict.gaps == []
    # every seat and the spectator saw every version
    versions = {s.version for _, s in run.states}
    assert verdict.checked == len(run.states) > 5 * len(versions) // 2
    assert known.samples and known.tokens[run.code]
    if game == "sheepshead":
        assert run.daily is not None and len(run.deals) == 1  # the day's deal (SS-9.2)

    # the same version again as a snapshot (no events), as after a refused move: the rebuild
    # still reads the draws of the state that had them
    drew = next(
        (s, x)
        for s, x in run.states
        if s is not None and any(e["kind"] in ("drew", "picked", "called") for e in x.events)
    )
    run.states.append((drew[0], drew[1].model_copy(update={"events": []})))
    assert verify(run, []).mismatches == []
    run.states.pop()

    # a view with a card it must not show, a state sent to the wrong seat, a version nobody
    # caused: each is caught
    state = next(x for s, x in run.states if s == 1 and x.view.get("hand"))
    other = next(x for s, x in run.states if s == 0 and x.version == state.version)
    leaked = state.model_copy(update={"view": {**state.view, "hand": other.view["hand"]}})
    run.states.append((1, leaked))
    assert verify(run, []).mismatches
    run.states.pop()
    assert verify(run, [state]).mismatches  # a watcher sent seat 1's view
    run.games[-1].actions.pop(len(run.games[-1].actions) // 2)
    assert verify(run, []).gaps
