"""Bots work from a seat's view alone, and the same seed gives the same decisions."""

from __future__ import annotations

import copy
import inspect
import json
import random
from collections.abc import Mapping
from typing import get_args

import pytest

from protocol.messages import BotLevel
from server.bots import make_bot
from server.bots.base import BOT_LEVELS, DEFAULT_LEVEL, Bot
from server.bots.sheepshead_strong import SheepsheadStrongBot
from server.bots.shithead_strong import ShitheadStrongBot
from server.rules.base import Action
from server.rules.sheepshead import Sheepshead
from server.rules.shithead import Shithead


def test_levels_and_default() -> None:
    assert BOT_LEVELS == ("random", "basic", "strong", "expert")
    assert DEFAULT_LEVEL == "basic"
    assert get_args(BotLevel) == BOT_LEVELS  # the protocol offers exactly the server's levels
    for game in ("shithead", "sheepshead"):
        for level in BOT_LEVELS:
            bot = make_bot(level, game, seed=1)
            assert list(inspect.signature(bot.choose).parameters) == ["view"]
        expert = make_bot("expert", game, seed=1)
        assert type(expert).__name__ == f"{game.capitalize()}ExpertBot"
        assert getattr(expert, "seconds", None) == 1.0  # the default time budget
        assert getattr(make_bot("expert", game, seed=1, seconds=0.2), "seconds", None) == 0.2


@pytest.mark.slow
@pytest.mark.parametrize("level", ["random", "basic", "strong", "expert"])
@pytest.mark.parametrize("name", ["shithead", "sheepshead"])
def test_bot_sees_only_plain_json(name: str, level: str) -> None:
    """The bot gets a JSON round-trip of the view (no game object is reachable from it) and
    does not mutate it; the Sheepshead hand starts with bidding, so the simulated picks, burials
    and calls are covered."""
    game = Shithead.new(4, 0, seed=3) if name == "shithead" else Sheepshead.new(5, 0, seed=3)
    bots = {s: make_bot(level, name, seed=s, seconds=0.02) for s in range(game.num_players)}
    for _ in range(40):
        if game.is_over():
            break
        seat = game.to_act()[0]
        view = json.loads(json.dumps(game.view(seat)))
        frozen = copy.deepcopy(view)
        action = bots[seat].choose(view)
        assert view == frozen
        game.apply(seat, action)


def test_shithead_sampling_is_consistent_with_the_view() -> None:
    """A determinised position shows the bot exactly the view it was built from."""
    from server.bots.sampling import sample_shithead

    rng = random.Random(4)
    game = Shithead.new(4, 1, seed=9)
    bots = [make_bot("basic", "shithead", seed=s) for s in range(4)]
    checked = 0
    while not game.is_over() and checked < 150:
        seat = game.to_act()[0]
        view = game.view(seat)
        if view["phase"] == "play":
            sample = sample_shithead(view, rng)
            mine = sample.view(seat)
            for key in ("pile", "stock", "burned", "seats", "hand", "legal", "turn", "source"):
                assert mine[key] == view[key], key
            checked += 1
        game.apply(seat, bots[seat].choose(view))


@pytest.mark.slow
def test_sheepshead_sampling_is_consistent_with_the_view() -> None:
    from server.bots.sampling import SheepsheadSampler

    rng = random.Random(6)
    checked = 0
    for i in range(30):
        game = Sheepshead.new(5, i % 5, seed=100 + i)
        bots = [make_bot("basic", "sheepshead", seed=s) for s in range(5)]
        while not game.is_over():
            seat = game.to_act()[0]
            view = game.view(seat)
            if view["phase"] == "play":
                sample = SheepsheadSampler(view).sample(rng)
                assert sample is not None
                mine = sample.view(seat)
                keys = (
                    "hand",
                    "tricks",
                    "trick",
                    "hand_counts",
                    "called",
                    "partner",
                    "picker",
                    "you_are_partner",
                    "buried",
                    "unknown_card",
                    "called_suit_led",
                )
                got: Mapping[str, object] = mine
                want: Mapping[str, object] = view
                for key in keys:
                    assert got[key] == want[key], key
                # The same legal cards (listed in the order of the sampled deal).
                assert sorted(map(str, mine["legal"])) == sorted(map(str, view["legal"]))
                checked += 1
            game.apply(seat, bots[seat].choose(view))
    assert checked > 500


def _bot(level: str, name: str, seed: int) -> Bot:
    """The level's bot; a search bot with a small playout budget and no safety deadline (under
    a loaded machine a deadline would cut the search short, and the same seed would then
    decide differently: by design, not a defect)."""
    if level != "strong":
        return make_bot(level, name, seed=seed)
    if name == "shithead":
        return ShitheadStrongBot(seed, iterations=48, seconds=None)
    return SheepsheadStrongBot(seed, iterations=48, bid_samples=16, seconds=None)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["shithead", "sheepshead"])
@pytest.mark.parametrize("level", ["basic", "strong"])
def test_same_seed_same_decisions(name: str, level: str) -> None:
    def record(seed: int) -> list[Action]:
        game = Shithead.new(4, 0, seed=5) if name == "shithead" else Sheepshead.new(5, 2, seed=5)
        bots = [_bot(level, name, seed + s) for s in range(game.num_players)]
        actions: list[Action] = []
        while not game.is_over() and len(actions) < 60:
            seat = game.to_act()[0]
            a = bots[seat].choose(game.view(seat))
            actions.append(a)
            game.apply(seat, a)
        return actions

    assert record(1) == record(1)
