"""The strong Sheepshead bot's leaster budget: a leaster's cards lie a few tenths of
a unit apart, so ``strong`` searches them with ``LEASTER_FACTOR`` times its playouts, and plays
every other hand as before."""

from __future__ import annotations

import pytest

from protocol.cards import card_code
from protocol.views import SheepsheadView
from server.bots import make_bot
from server.bots.sheepshead_strong import LEASTER_FACTOR, SheepsheadStrongBot
from server.rules.sheepshead import Sheepshead
from tests.support.sheepshead_positions import PICKER_HANDS_BEFORE, mid_hand_views


class Valued(SheepsheadStrongBot):
    """``strong`` that keeps its search's mean value of every card it searched."""

    values: dict[int, float]

    def prior(
        self, view: SheepsheadView, cards: list[int], found: int, means: dict[int, float]
    ) -> int:
        self.values = {cards[j]: m for j, m in means.items()}
        return super().prior(view, cards, found, means)


def first_leaster_lead(deal_seed: int, dealer: int) -> SheepsheadView:
    """Five ``basic`` play the deal; the view of the first seat to play in it if all passed."""
    g = Sheepshead.new(5, dealer, seed=deal_seed)
    bots = [make_bot("basic", "sheepshead", seed=s) for s in range(5)]
    while g.phase == "pick":
        seat = g.to_act()[0]
        g.apply(seat, bots[seat].choose(g.view(seat)))
    assert g.leaster
    return g.view(g.to_act()[0])


@pytest.mark.slow
def test_strong_searches_a_leaster_deeper_and_finds_the_better_lead() -> None:
    # rule SS-8.2 (the fewest points among those who took a trick wins): the seat leading the
    # first trick of this leaster (deal seed 918); 120 playouts lead 9H, 360 the jack of
    # hearts, and a search of 4,000 playouts values the jack 0.36 units above 9H
    view = first_leaster_lead(918, 3)
    seat = view["seat"]
    assert LEASTER_FACTOR == 3
    before = SheepsheadStrongBot(seed=seat, seconds=None, leaster_factor=1).choose(view)
    now = SheepsheadStrongBot(seed=seat, seconds=None).choose(view)
    assert (card_code(before.cards[0]), card_code(now.cards[0])) == ("9H", "JH")
    reference = Valued(seed=7, iterations=4000, seconds=None, leaster_factor=1)
    assert card_code(reference.choose(view).cards[0]) == "JH"
    assert reference.values[now.cards[0]] - reference.values[before.cards[0]] > 0.2


def test_the_leaster_budget_leaves_the_other_hands_as_they_were() -> None:
    # the picker's hands recorded before the leaster budget (30 playouts a card), played with
    # the default factor: a hand with a picker is searched with the same budget
    got = []
    for plays in (2, 7, 13, 19):
        for g, seat in mid_hand_views(10, plays):
            bot = SheepsheadStrongBot(seed=plays * 100 + seat, iterations=30, seconds=None)
            got.append(card_code(bot.choose(g.view(seat)).cards[0]))
    assert " ".join(got) == PICKER_HANDS_BEFORE
