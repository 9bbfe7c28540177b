"""The pick bonus of the strong Sheepshead bot and the tool that measures it from the bot's own
results (server/tools/pick_value.py): the threshold it reads from the bidding is where the
bidding's decision flips, a bonus changes nothing but that decision (so a replay of the flipped
games is the arena's paired difference), and its games are the arena's."""

from __future__ import annotations

import pytest

from server.bots.base import cpu_clock
from server.bots.sheepshead_strong import PICK_BONUS, SheepsheadStrongBot
from server.rules.base import Action
from server.tools.arena import play_one
from server.tools.pick_value import ALWAYS, Game, measure, threshold

pytestmark = pytest.mark.slow

#: A game of ``cardroom arena sheepshead --seats strong,basic,basic,basic,basic --seed 24`` in
#: which ``strong`` passed by a small margin of its sampled means (found by the tool's scan).
CLOSE = Game(seed=24, index=26)


def to_strongs_pick(game: Game, bonus: float) -> tuple[Action, SheepsheadStrongBot]:
    """Play ``game`` up to ``strong``'s pick decision and return it, and the bot after it."""
    g, bots = game.start(bonus)
    strong = bots[game.seat]
    assert isinstance(strong, SheepsheadStrongBot)
    with cpu_clock():  # the load must not cut the search short
        while g.to_act()[0] != game.seat:
            seat = g.to_act()[0]
            g.apply(seat, bots[seat].choose(g.view(seat)))
        return strong.choose(g.view(game.seat)), strong


def test_the_threshold_is_where_the_bidding_flips() -> None:
    # rule SS-3.1: pick or pass, in turn from the dealer's left
    action, bot = to_strongs_pick(CLOSE, 0.0)
    assert action == Action("pass")
    assert bot.bidder.last_pick is not None
    t = threshold(*bot.bidder.last_pick)
    assert 0.0 < t < 0.5  # a close pass
    assert to_strongs_pick(CLOSE, t - 0.01)[0] == Action("pass")
    assert to_strongs_pick(CLOSE, t + 0.01)[0] == Action("pick")


def test_strong_picks_a_close_hand_it_passed_without_the_bonus() -> None:
    # rule SS-3.1; the sampled means say pass by about 0.14 units: the learned bonus says pick
    assert PICK_BONUS > 0.2
    assert to_strongs_pick(CLOSE, 0.0)[0] == Action("pass")
    assert SheepsheadStrongBot(1).bidder.pick_bonus == PICK_BONUS
    assert to_strongs_pick(CLOSE, PICK_BONUS)[0] == Action("pick")


def test_a_bonus_changes_the_decision_and_nothing_else() -> None:
    # The tool's premise: the samples and every random number after the decision are the same.
    passed, before = to_strongs_pick(CLOSE, 0.0)
    picked, after = to_strongs_pick(CLOSE, ALWAYS)
    assert (passed, picked) == (Action("pass"), Action("pick"))
    assert before.bidder.last_pick == after.bidder.last_pick
    assert before.rng.getstate() == after.rng.getstate()


@pytest.fixture(scope="module")
def close_units() -> tuple[float, float]:
    """``strong``'s units in :data:`CLOSE` as it passes (no bonus) and as it picks."""
    _, passed, as_passed = CLOSE.play(0.0, stop_at_pick=False)
    assert not passed
    return as_passed, CLOSE.play(ALWAYS, stop_at_pick=False)[2]


def test_the_tools_games_are_the_arenas(close_units: tuple[float, float]) -> None:
    # the arena's strong (with the learned bonus) picks here (rule SS-3.2: then buries, calls)
    levels = ["strong", "basic", "basic", "basic", "basic"]
    arena = play_one("sheepshead", levels, CLOSE.index, CLOSE.seed, 3000, cpu=True)
    assert arena.picked[0]
    _, picked, units = CLOSE.play(PICK_BONUS, stop_at_pick=False)
    # made to pick, it is the same game: the bonus changed the decision only
    assert picked and units == arena.units[0] == close_units[1]


def test_measure_sums_the_flipped_games_per_deal(close_units: tuple[float, float]) -> None:
    # deal 5 of seed 24: the close pass above is the only one a bonus up to 0.3 flips
    out = measure(2, CLOSE.seed, up_to=0.3, first=CLOSE.deal)
    assert (out["games"], out["replayed"]) == (10, 1)
    rows = {r["bonus"]: r for r in out["rows"]}
    assert rows[0.0]["gain"] == rows[0.1]["gain"] == 0.0 and rows[0.1]["flipped"] == 0
    passed, picked = close_units
    assert rows[0.2]["flipped"] == 1
    assert rows[0.2]["gain"] == pytest.approx((picked - passed) / 5 / 2)  # 2 deals, 5 rotations
    assert rows[0.2]["pick_rate"] == pytest.approx(rows[0.0]["pick_rate"] + 0.1)
