"""The strong Sheepshead bot bids by simulation over deals sampled from its view: its picks,
burials and calls are legal, sensible on clear hands, reproducible from a seed, and the samples
agree with the view and with the other seats' passes."""

from __future__ import annotations

import json
import random

import pytest

import server.bots.sampling as sampling
from protocol.cards import JACK, QUEEN, parse_cards
from server.bots.sampling import SheepsheadSampler
from server.bots.sheepshead_bidding import BidDealer, call_candidates
from server.bots.sheepshead_policy import should_pick
from server.bots.sheepshead_strong import SheepsheadStrongBot
from server.rules.base import Action
from server.rules.sheepshead import Sheepshead
from server.rules.sheepshead_cards import DECK32


def deal_with(first: str, seed: int, dealer: int = 0, blind: str = "") -> Sheepshead:
    """A hand in which the seat at the dealer's left holds ``first`` (six codes), and the blind
    is ``blind`` (two codes) if given."""
    mine = parse_cards(first)
    last = parse_cards(blind)
    rest = [c for c in DECK32 if c not in mine and c not in last]
    random.Random(seed).shuffle(rest)
    return Sheepshead.new(5, dealer, deck=[*mine, *rest, *last])


def bot(seed: int = 1) -> SheepsheadStrongBot:
    # No deadline: the test machine's load must not change the decisions.
    return SheepsheadStrongBot(seed=seed, iterations=12, bid_samples=16, seconds=None)


def test_picks_a_monster_and_passes_trash() -> None:
    # rule SS-3.1: pick or pass, in turn from the dealer's left
    for seed in range(3):
        g = deal_with("QC QS QH QD JC JS", seed)
        assert bot(seed).choose(json.loads(json.dumps(g.view(1)))) == Action("pick")
        g = deal_with("7C 8C 9S 8H 7H KD", seed)
        assert bot(seed).choose(g.view(1)) == Action("pass")


@pytest.mark.slow
def test_buries_fail_cards_and_calls_a_partner_with_an_ordinary_hand() -> None:
    # rule SS-3.2, SS-4.1: the picker buries two cards it holds and calls an ace
    for seed in range(3):
        g = deal_with("QC JS AD TD 7H 8S", seed, blind="9C KH")
        g.apply(1, Action("pick"))
        b = bot(seed)
        bury = b.choose(g.view(1))
        assert bury.kind == "bury" and bury in g.legal_actions(1)
        # Queens and jacks are the picker's power: never buried with fail cards to spare.
        assert not any(c >> 2 in (QUEEN, JACK) for c in bury.cards)
        g.apply(1, bury)
        call = b.choose(g.view(1))
        assert call in g.legal_actions(1)
        assert call.kind == "call"  # four trumps and no fail ace: alone would lose


def test_call_candidates_keep_every_ace_and_alone() -> None:
    g = deal_with("QC QS QH JC JS JH", 4)
    g.apply(1, Action("pick"))
    g.apply(1, g.legal_actions(1)[0])
    legal = g.legal_actions(1)
    cands = call_candidates(legal)
    assert Action("alone") in cands
    assert {a.cards[0] for a in cands if a.cards} == {a.cards[0] for a in legal if a.cards}
    assert all(a in legal for a in cands)


def play_bidding(seed: int) -> list[Action]:
    g = Sheepshead.new(5, seed % 5, seed=seed)
    bots = [bot(seed * 5 + s) for s in range(5)]
    actions = []
    while g.phase in ("pick", "bury", "call"):
        seat = g.to_act()[0]
        a = bots[seat].choose(g.view(seat))
        assert a in g.legal_actions(seat)
        actions.append(a)
        g.apply(seat, a)
    return actions


@pytest.mark.slow
def test_bidding_is_legal_and_reproducible_from_a_seed() -> None:
    kinds: set[str] = set()
    for seed in range(7):
        first = play_bidding(seed)
        assert first == play_bidding(seed)
        kinds |= {a.kind for a in first}
    assert {"pick", "pass", "bury"} <= kinds


def test_bid_samples_agree_with_the_view() -> None:
    rng = random.Random(3)
    g = Sheepshead.new(5, 3, seed=8)  # seats 4 and 0 pass, seat 1 picks
    g.apply(4, Action("pass"))
    g.apply(0, Action("pass"))
    for phase in ("pick", "bury", "call"):
        seat = g.to_act()[0]
        view = g.view(seat)
        dealer = BidDealer(view)
        for _ in range(20):
            sample = dealer.sample(rng)
            assert sample is not None
            mine = sample.view(seat)
            for key in ("phase", "hand", "passed", "picker", "buried", "blind", "legal"):
                assert mine[key] == view[key], (phase, key)
        g.apply(seat, Action("pick") if phase == "pick" else g.legal_actions(seat)[0])


def passer_would_pick_rate(beliefs: bool, monkeypatch: pytest.MonkeyPatch) -> float:
    """How often the sampled hand of a seat that passed is one the model would pick with."""
    monkeypatch.setattr(sampling, "BELIEFS", beliefs)
    rng = random.Random(9)
    hits = total = 0
    for seed in range(6):
        g = Sheepshead.new(5, 0, seed=seed)
        for s in (1, 2, 3):
            g.apply(s, Action("pass"))
        dealer = BidDealer(g.view(4))
        for _ in range(60):
            sample = dealer.sample(rng)
            assert sample is not None
            for position, s in enumerate((1, 2, 3)):
                total += 1
                hits += should_pick(sample.hand(s), position)
    return hits / total


def test_passes_make_strong_hands_unlikely_for_the_passers(monkeypatch: pytest.MonkeyPatch) -> None:
    uniform = passer_would_pick_rate(False, monkeypatch)
    believed = passer_would_pick_rate(True, monkeypatch)
    assert uniform > 0.05
    assert believed < 0.6 * uniform


def test_play_samples_give_the_picker_a_hand_it_would_pick(monkeypatch: pytest.MonkeyPatch) -> None:
    """In the card play, the picker's sampled dealt hand fits its pick (and the passers' their
    passes) more often with beliefs than without."""

    def rate(beliefs: bool) -> float:
        monkeypatch.setattr(sampling, "BELIEFS", beliefs)
        rng = random.Random(2)
        fits = total = 0
        for seed in range(40):
            g = Sheepshead.new(5, 0, seed=seed)
            seat = 1
            g.apply(seat, Action("pick"))
            g.apply(seat, g.legal_actions(seat)[0])
            g.apply(seat, Action("alone"))
            view = g.view(2)
            sampler = SheepsheadSampler(view)
            for _ in range(10):
                sample = sampler.sample(rng)
                assert sample is not None
                dealt = [c for c in [*sample.hand(1), *sample.buried] if c not in sample.blind]
                total += 1
                fits += should_pick(dealt, 0)
        return fits / total

    assert rate(True) > rate(False) + 0.1
