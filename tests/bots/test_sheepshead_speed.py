"""Cheaper playouts for the strong Sheepshead bot are pure speed: the same seed gives
the same cards as before them. The choices below were recorded from the code before the change
(commit 8d79ae0); the replay's memo of the model's plays gives the weights a fresh replay gives,
and the policy's suit counts break ties as the per-card count did."""

from __future__ import annotations

import random

import pytest

from protocol.cards import card_code, parse_cards
from server.bots import make_bot
from server.bots.sampling import SheepsheadSampler
from server.bots.sheepshead_policy import Table, _suit_lens, choose_card, power
from server.bots.sheepshead_strong import SheepsheadStrongBot
from server.rules.sheepshead import Sheepshead
from server.rules.sheepshead_cards import STRENGTH, SUIT_CLASS, TRUMP
from tests.support.sheepshead_positions import PICKER_HANDS_BEFORE, mid_hand_views

#: Likewise on leasters of five ``basic`` (deal seed 900 + i), before the n-th card of the hand.
LEASTERS_BEFORE = [
    (6, 3, "9H"), (6, 9, "TH"), (7, 16, "KS"), (8, 9, "KD"), (18, 3, "7D"), (18, 16, "KH"),
    (24, 3, "7D"), (24, 9, "TS"), (25, 16, "JC"), (36, 16, "JD"), (47, 3, "QD"), (47, 9, "QC"),
]  # fmt: skip


def strong(seed: int) -> SheepsheadStrongBot:
    # the leasters' budget as it was recorded (30 playouts, not LEASTER_FACTOR times as many)
    return SheepsheadStrongBot(seed=seed, iterations=30, seconds=None, leaster_factor=1)


def test_strong_picks_the_cards_it_picked_before_the_speed_work() -> None:
    got = []
    for plays in (2, 7, 13, 19):
        for g, seat in mid_hand_views(10, plays):
            action = strong(plays * 100 + seat).choose(g.view(seat))
            got.append(card_code(action.cards[0]))
    assert " ".join(got) == PICKER_HANDS_BEFORE


def test_strong_plays_leasters_as_before_the_speed_work() -> None:
    # rule SS-8 (the leaster): the policy's void dump and low leads, counted per suit once
    got = []
    for i in sorted({i for i, _, _ in LEASTERS_BEFORE}):
        g = Sheepshead.new(5, i % 5, seed=900 + i)
        bots = [make_bot("basic", "sheepshead", seed=s) for s in range(5)]
        n = 0
        while not g.is_over():
            seat = g.to_act()[0]
            view = g.view(seat)
            if g.phase == "play" and g.leaster and n in (3, 9, 16) and len(view["legal"]) > 1:
                action = strong(n * 100 + seat).choose(view)
                got.append((i, n, card_code(action.cards[0])))
            n += g.phase == "play"
            g.apply(seat, bots[seat].choose(view))
    assert got == LEASTERS_BEFORE


def samples(sampler: SheepsheadSampler, seed: int, fresh: bool) -> list[tuple[object, float]]:
    rng = random.Random(seed)
    out: list[tuple[object, float]] = []
    for _ in range(40):
        if fresh:
            sampler._model_memo.clear()
        found = sampler.sample_weighted(rng)
        assert found is not None
        game, w = found
        out.append(([game.hand(s) for s in range(5)], w))
    return out


@pytest.mark.slow
def test_the_replay_memo_gives_the_weights_of_a_fresh_replay() -> None:
    checked = repeats = 0
    for plays in (12, 18):
        for g, seat in mid_hand_views(12, plays):
            view = g.view(seat)
            memo = SheepsheadSampler(view)
            drawn = samples(memo, seat, fresh=False)
            assert drawn == samples(SheepsheadSampler(view), seat, fresh=True)
            assert any(w < 1.0 for _, w in drawn) or plays == 12  # off-model plays are seen
            lookups = sum(1 for s, _ in memo.history if s != seat) * len(drawn)
            repeats += lookups - len(memo._model_memo)
            checked += 1
    assert checked >= 10
    assert repeats > 0  # the memo was used, not only filled


def test_suit_lengths_counted_once_break_ties_as_before() -> None:
    hand = parse_cards("QC 7D KH 9S KS 8H 7H")
    lens = _suit_lens(hand)
    assert lens[TRUMP] == 2 and sum(lens) == len(hand)
    # A defender with no ace to cash leads the shortest fail suit (spades: 2, hearts: 3), its
    # cheapest card.
    t = Table(
        seat=1, hand=hand, legal=hand, trick_seats=[], trick_cards=[], seen=set(),
        leaster=False, picker=0, called=-1, called_suit_led=True, friends=frozenset(),
        foes=frozenset({0}), tricks_won=[0] * 5, points_won=[0] * 5,
    )  # fmt: skip
    assert card_code(choose_card(t)) == "9S"
    # In a leaster, void in the suit led: the most points, the shorter suit first (KH and KS
    # are worth 4 each; spades is the shorter).
    lead = parse_cards("7C")
    t.leaster, t.trick_seats, t.trick_cards, t.seen = True, [0], lead, set(lead)
    t.hand = t.legal = parse_cards("KH 8H 7H KS 9S 8S 7S")[:5]  # hearts 3, spades 2
    assert card_code(choose_card(t)) == "KS"


def test_the_power_table_is_the_rule_of_power() -> None:
    # rule SS-5.3: a trump beats any fail card, a fail card wins only in the suit led; no card
    # led yet (-1): only trumps have power; a face-down card (-1) has none
    for led in (-1, *sorted(set(SUIT_CLASS))):
        for c in range(-1, 52):
            by_rule = 0 if c < 0 else STRENGTH[c] if SUIT_CLASS[c] in (TRUMP, led) else 0
            assert power(c, led) == by_rule, (c, led)
