"""Card-play beliefs of the strong Sheepshead bot: sampled deals are weighted by how likely the
cards the other seats played were under a model of their play (``basic``'s rule, from what each
seat could see), and its playouts let each seat see what it could see (the partner hidden until
the called card falls, the voids shown so far); ``expert`` solves the last three tricks exactly."""

from __future__ import annotations

import random

import pytest

import server.bots.sampling as sampling
from server.bots import make_bot
from server.bots.sampling import SheepsheadSampler
from server.bots.sheepshead_rollout import evaluate, playout, solve, void_suits
from server.bots.sheepshead_strong import SheepsheadExpertBot
from server.rules.base import Action
from server.rules.sheepshead_cards import SUIT_CLASS
from tests.support.sheepshead_positions import mid_hand_views


def test_the_true_deal_is_fully_likely_when_the_others_play_the_model() -> None:
    # The others are ``basic`` bots: with their real cards every play they made is the model's.
    checked = 0
    for g, seat in mid_hand_views(20, 12):
        sampler = SheepsheadSampler(g.view(seat))
        hidden = [[] if s == seat else list(g.hand(s)) for s in range(5)]
        extra = [] if seat == g.picker else list(g.buried)
        rebuilt = sampler._rebuild(hidden, extra, -1, -1)
        assert rebuilt is not None
        assert sampler._play_weight == 1.0
        checked += 1
    assert checked >= 10


def true_cards_share(play_beliefs: bool, monkeypatch: pytest.MonkeyPatch) -> float:
    """Weighted share of the other seats' hidden cards that the samples place right."""
    monkeypatch.setattr(sampling, "PLAY_BELIEFS", play_beliefs)
    rng = random.Random(4)
    right = total = 0.0
    for g, seat in mid_hand_views(30, 10):
        sampler = SheepsheadSampler(g.view(seat))
        for _ in range(30):
            found = sampler.sample_weighted(rng)
            assert found is not None
            sample, w = found
            assert 0.0 < w <= 1.0
            for s in range(5):
                if s != seat:
                    truth = set(g.hand(s))
                    right += w * sum(1 for c in sample.hand(s) if c in truth)
                    total += w * len(truth)
    return right / total


@pytest.mark.slow
def test_card_play_beliefs_place_hidden_cards_better(monkeypatch: pytest.MonkeyPatch) -> None:
    uniform = true_cards_share(False, monkeypatch)
    believed = true_cards_share(True, monkeypatch)
    assert believed > uniform + 0.01, (uniform, believed)


def test_playout_voids_are_the_suits_a_seat_did_not_follow() -> None:
    # rule SS-5.2: a seat must follow the suit led if it can, so not following shows a void
    for g, _ in mid_hand_views(10, 15):
        voids = void_suits(g)
        tricks = [(t.seats, t.cards) for t in g.tricks]
        tricks.append((tuple(g.trick_seats), tuple(g.trick_cards)))
        for seats, cards in tricks:
            if not cards:
                continue
            led = SUIT_CLASS[cards[0]]
            for s, c in zip(seats, cards, strict=True):
                assert (SUIT_CLASS[c] != led) <= (led in voids[s])
        for s in range(5):
            for cls in voids[s]:
                assert not any(SUIT_CLASS[c] == cls for c in g.hand(s))
        playout(g.clone(), random.Random(1))  # finishes from any position


def test_strong_plays_are_reproducible_with_beliefs() -> None:
    for g, seat in mid_hand_views(6, 7):
        view = g.view(seat)
        a = make_bot("strong", "sheepshead", seed=3).choose(view)
        assert a == make_bot("strong", "sheepshead", seed=3).choose(view)
        assert a in g.legal_actions(seat)
        assert isinstance(a, Action)


@pytest.mark.slow
def test_expert_solves_the_last_three_tricks_exactly() -> None:
    # rule SS-5.3: the exact value follows the trick winners; every seat plays legally (SS-5.2)
    checked = 0
    for g, seat in mid_hand_views(12, 15):  # three tricks played, three to go
        assert g.picker is not None and max(len(g.hand(s)) for s in range(5)) == 3
        side = {g.picker} if g.partner is None else {g.picker, g.partner}
        team = side if seat in side else set(range(5)) - side
        exact = solve(g.clone(), seat, team, -1e9, 1e9)
        for rng_seed in (1, 2):
            assert evaluate(g.clone(), seat, random.Random(rng_seed), 3) == exact
        checked += 1
        view = g.view(seat)
        bot = SheepsheadExpertBot(seed=1, seconds=30, iterations=12, bid_samples=4)
        assert bot.choose(view) in g.legal_actions(seat)
    assert checked >= 6
