"""The searching Sheepshead bots (``strong`` and ``expert``) keep the lead conventions in
hand-made positions, whatever their seed: the partner on lead with trump and fail leads trump;
a defender with trump and fail leads fail to the first trick. Both searches play their own
cards against sampled deals, so the positions are checked over several seeds (in the partner's
position, ``strong``'s search over every card prefers the fail lead KS with seeds 3 and 9, and
before the lead conventions bound its search, its prior alone let seed 3's through)."""

from __future__ import annotations

import pytest

from protocol.cards import parse_cards
from server.bots import Bot
from server.bots.sheepshead_strong import SheepsheadExpertBot, SheepsheadStrongBot
from server.rules.base import Action
from server.rules.sheepshead_cards import TRUMPS
from tests.support.sheepshead_positions import called_ace_hand

TRUMP = frozenset(TRUMPS)
#: The hand-made hand with seat 1's KS and the partner's KC swapped: the partner, with no spade,
#: may take a spade lead with trump and then lead from AH JH 8D 7D KS.
SWAP = {1: "JD 7C 8C 9C KC 8S", 4: "AH QC JH 8D 7D KS"}


def searchers(seed: int) -> list[Bot]:
    """A ``strong`` and an ``expert`` bot seeded ``seed``: no deadline for strong, one far off
    for expert with a small cap on its close call, so both answer from their samples alone."""
    return [
        SheepsheadStrongBot(seed, seconds=None),
        SheepsheadExpertBot(seed, seconds=60, iterations=40),
    ]


@pytest.mark.parametrize("seed", [3, 9])
def test_a_defender_with_trump_and_fail_leads_fail_to_the_first_trick(seed: int) -> None:
    game = called_ace_hand(swap=SWAP)
    # rule SS-5.1: the dealer's left leads the first trick; seat 1 is not on the picker's side
    assert game.to_act() == (1,) and game.picker == 2 and game.trick_number == 0
    assert {c in TRUMP for c in game.hand(1)} == {True, False}
    for bot in searchers(seed):
        action = bot.choose(game.view(1))
        assert action.kind == "play" and action.cards[0] not in TRUMP, (bot, action)


@pytest.mark.parametrize("seed", [3, 9])
def test_the_hidden_partner_on_lead_with_trump_and_fail_leads_trump(seed: int) -> None:
    game = called_ace_hand(swap=SWAP)
    # trick 1: 7C led; the picker (no club: rule SS-5.2, any card) trumps with JS, seat 3
    # (no club) throws 7S, the partner (no club) takes it with QC, seat 0 follows with AC
    for text in ["7C", "JS", "7S", "QC", "AC"]:
        game.apply(game.to_act()[0], Action.from_str(f"play {text}"))
    # rule SS-5.3: the trick's winner leads the next; the partner is not yet known
    assert game.to_act() == (4,) and game.partner == 4 and not game.revealed
    assert sorted(game.hand(4)) == sorted(parse_cards("AH JH 8D 7D KS"))
    for bot in searchers(seed):
        action = bot.choose(game.view(4))
        assert action.kind == "play" and action.cards[0] in TRUMP, (bot, action)
