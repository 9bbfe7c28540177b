"""Hints in the bot pool: a fresh ``strong`` bot thinks in the worker process (the same seed,
the same answer), and past the watchdog the ``basic`` bot answers instead."""

from __future__ import annotations

import asyncio
import time

import pytest

import server.bots  # noqa: F401 - registers every level
from server.bots.base import make_bot
from server.bots.pool import BotPool
from server.bots.reasons import SEARCH_KEYS, explain
from server.rules.base import Action
from server.rules.sheepshead import Sheepshead


@pytest.mark.slow
async def test_advise_is_the_strong_bots_choice_from_the_worker() -> None:
    game = Sheepshead.new(5, 0, seed=5)
    view = game.view(1)
    pool = BotPool(grace=60.0)
    try:
        action, level, _ = await asyncio.wait_for(pool.advise("sheepshead", 21, view), 90)
        again, _, _ = await asyncio.wait_for(pool.advise("sheepshead", 21, view), 90)
    finally:
        await pool.close()
    assert level == "strong"
    assert action == again == make_bot("strong", "sheepshead", seed=21).choose(view)
    assert action in game.legal_actions(1)


async def test_advise_falls_back_to_basic_past_the_watchdog() -> None:
    game = Sheepshead.new(5, 0, seed=5)
    view = game.view(1)
    hasty = BotPool(grace=0.001, think={"strong": 0.0})  # shorter than a worker's start
    try:
        start = time.perf_counter()
        action, level, _ = await hasty.advise("sheepshead", 21, view)
        assert time.perf_counter() - start < 0.5
    finally:
        await hasty.close()
    assert level == "basic"
    assert action == make_bot("basic", "sheepshead", seed=21).choose(view)


def test_a_quick_rules_choice_never_cites_the_search() -> None:
    view = Sheepshead.new(5, 0, seed=5).view(1)
    for entry in view["legal"]:
        action = Action.from_json(entry)
        searched = explain(view, action)
        quick = explain(view, action, searched=False)
        if searched.key in SEARCH_KEYS:
            assert quick.key == "hint.quick" and "ran out of time" in quick.text
        else:
            assert quick == searched
