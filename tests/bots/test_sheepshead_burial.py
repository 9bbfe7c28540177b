"""The simulated picker's burial in the strong Sheepshead bot's bidding playouts (made cheaper)
is pure speed: :func:`choose_bury` is :func:`rank_burials`' first pair without
the call check of every pair, so every burial, and every bidding decision built on them, is the
one before the change. The bids below were recorded from the code before it (commit 2c5fd1f)."""

from __future__ import annotations

import random
from itertools import combinations

import pytest

from protocol.cards import card_code, parse_cards
from server.bots import make_bot
from server.bots.sheepshead_bidding import Sequential
from server.bots.sheepshead_policy import can_call, choose_bury, go_alone, rank_burials
from server.bots.sheepshead_strong import SheepsheadStrongBot
from server.rules.sheepshead import Sheepshead
from server.rules.sheepshead_cards import DECK32, TRUMPS

#: ``strong``'s bidding decisions with a choice (action / samples drawn) on the deals of seeds
#: 800..811 between five ``basic``, recorded before the change.
BIDS_BEFORE = (
    "pass/8 pick/24 bury TC AS/12 call AC/8 pass/8 pass/24 pick/8 bury 8H AH/12 alone/8 pass/24 "
    "pass/24 bury TD KS/12 call_unknown AH 7D/8 pass/24 pass/8 pass/24 pick/24 bury 8C KC/8 "
    "call AH/8 pass/24 bury 7S AH/12 call AC/8 pass/8 pass/24 pick/8 bury 8S AC/12 pass/8 pass/8 "
    "pick/8 bury 7C AH/12 call AC/8 pass/8 pass/24 pick/24 bury TS AS/12 call AH/8 pass/8 "
    "pass/24 pass/24 bury 7C 9C/12 call AC/8 pass/24 pick/24 pass/24 pick/24 pass/24 pass/24 "
    "pass/8 bury 7C AC/12 call AS/8 pick/8 bury TC AS/12 call AC/24"
)


def burial(hand: str) -> str:
    return " ".join(card_code(c) for c in choose_bury(parse_cards(hand)))


def pairs_open(hand: str) -> list[tuple[int, int]]:
    """The pairs of ``hand`` whose burial leaves a partner call open (or goes alone)."""
    cards = parse_cards(hand)
    out = []
    for pair in combinations(sorted(cards), 2):
        keep = [c for c in cards if c not in pair]
        if can_call(keep, pair) or go_alone(keep):
            out.append(pair)
    return out


def test_the_burial_keeps_a_call_open_over_a_higher_score() -> None:
    # rule SS-4.1: burying two aces (AH AS) scores highest, but then no ace is left out of the
    # hand to call; burying 9C KS keeps all three aces, so a ten can be called (SS-4.2)
    hand = "AC AS AH QC JD 7D 9C KS"
    assert parse_cards("AH AS") not in [list(p) for p in pairs_open(hand)]
    assert burial(hand) == "9C KS"
    # a hand that goes alone (all four queens) needs no call: its weakest fail goes
    assert burial("QC QS QH QD JC 7C 8S 9H") == "7C 8S"


def test_with_every_call_closed_the_best_score_is_buried() -> None:
    # every fail ace and ten in hand: no burial leaves a card to call (SS-4.1-4.3), so the
    # penalty lowers every pair alike and the best score goes, ties by the sorted pairs' order
    hand = "AC TC AS TS AH TH QC JD"
    assert pairs_open(hand) == []
    assert burial(hand) == "TC AC"


@pytest.mark.slow
def test_choose_bury_is_the_first_ranked_burial() -> None:
    rng = random.Random(24)
    fails = [c for c in DECK32 if c not in TRUMPS]
    for n in range(3000):
        if n % 2:
            hand = rng.sample(DECK32, 8)
        else:  # pickers' hands: many trumps, where a call may be closed
            trumps = rng.sample(list(TRUMPS), rng.randint(3, 8))
            hand = trumps + rng.sample(fails, 8 - len(trumps))
            rng.shuffle(hand)
        assert choose_bury(hand) == rank_burials(hand)[0], hand


@pytest.mark.slow
def test_strong_bids_as_before_the_burial_speed_work() -> None:
    got = []
    for i in range(12):
        g = Sheepshead.new(5, i % 5, seed=800 + i)
        bots = [make_bot("basic", "sheepshead", seed=s) for s in range(5)]
        while not g.is_over() and g.phase in ("pick", "bury", "call"):
            seat = g.to_act()[0]
            view = g.view(seat)
            if len(view["legal"]) > 1:
                bot = SheepsheadStrongBot(seed=i, seconds=None, bid_sequential=Sequential(8, 48))
                got.append(f"{bot.choose(view).to_str()}/{bot.bidder.used}")
            g.apply(seat, bots[seat].choose(view))
    assert " ".join(got) == BIDS_BEFORE
