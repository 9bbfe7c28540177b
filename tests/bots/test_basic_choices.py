"""Choices of the basic Sheepshead bot that players judge it by."""

from __future__ import annotations

from protocol.cards import parse_card, parse_cards
from server.bots.sheepshead_basic import SheepsheadBasicBot
from server.bots.sheepshead_policy import can_call, choose_bury, go_alone
from server.rules.base import Action
from server.rules.sheepshead import Sheepshead
from server.rules.sheepshead_cards import TRUMPS
from tests.rules.ss_helpers import deck_for


def test_bury_keeps_a_partner_call_open() -> None:
    # rule SS-4.1, SS-4.3: burying TH AH would bank 21 points but keep 8H as the only fail card,
    # whose ace is buried: nothing could be called (SS-4.3 needs every fail card to be an ace),
    # a forced alone. The bot buries 8H TH instead and keeps an unknown-card call open.
    hand = parse_cards("8H TH JD JH JS QC QH AH")
    th_ah = (parse_cards("TH")[0], parse_cards("AH")[0])
    assert not can_call([c for c in hand if c not in th_ah], th_ah)
    bury = choose_bury(hand)
    keep = [c for c in hand if c not in bury]
    assert not go_alone(keep) and can_call(keep, bury)


def test_alone_only_with_an_overwhelming_hand() -> None:
    # rule SS-4.4: alone is always allowed, but the bot reserves it for monster hands.
    assert go_alone(parse_cards("QC QS QH JC JS AD"))
    assert go_alone(parse_cards("QC QS QH QD JS AH"))
    assert not go_alone(parse_cards("QC QS JC JS AD TD"))
    assert not go_alone(parse_cards("QC QS QH JC AH TH"))


# Dealer 0: seat 1 leads trick 1. Seat 2 picks, buries KD 9D and calls AH (holding 7H); seat 4
# holds AH, so it is the partner; seats 0, 1, 3 defend.
HANDS = {
    1: "JD 7C 8C 9C KS 8S",
    2: "QS QH JS 7H AD TD",
    3: "QD JC 9S TS AS 7S",
    4: "AH QC JH 8D 7D KC",
    0: "AC TC 8H 9H TH KH",
}


def called_ace_hand() -> Sheepshead:
    game = Sheepshead.new(5, 0, deck=deck_for(HANDS, "KD 9D"))
    for seat, text in [(1, "pass"), (2, "pick"), (2, "bury KD 9D"), (2, "call AH")]:
        game.apply(seat, Action.from_str(text))
    return game


def basic_card(game: Sheepshead) -> int:
    seat = game.to_act()[0]
    action = SheepsheadBasicBot(seed=seat).choose(game.view(seat))
    assert action.kind == "play"
    return action.cards[0]


def test_a_defender_leads_fail_to_the_first_trick() -> None:
    # rule SS-5.1: seat 1, a defender with JD and five fail cards, leads to trick 1
    game = called_ace_hand()
    assert game.to_act() == (1,) and game.trick_number == 0
    assert basic_card(game) not in TRUMPS


def test_the_partner_on_lead_with_trump_leads_trump() -> None:
    # rule SS-6.2: seat 4 holds the called AH; its QC takes trick 1, so it leads trick 2
    game = called_ace_hand()
    for code in ["JD", "QS", "JC", "QC", "8H"]:
        game.apply(game.to_act()[0], Action.from_str(f"play {code}"))
    assert game.to_act() == (4,) and game.partner == 4
    assert basic_card(game) in TRUMPS


def test_the_partner_schmears_the_most_points_onto_the_pickers_sure_trick() -> None:
    # rule SS-5.2: the partner (seat 3) has no heart, so any card may go onto the picker's QC,
    # the highest trump: the trick is sure. AD (11) is worth more than TS (10), and the partner
    # keeps QH and JC, its power.
    game = position(53, 13)
    assert game.trick_cards == parse_cards("KH QC AH") and game.picker == 1
    assert game.to_act() == (3,) and game.partner == 3
    assert sorted(game.hand(3)) == sorted(parse_cards("9S AD TS QH JC"))
    assert basic_card(game) == parse_card("AD")


def position(seed: int, steps: int) -> Sheepshead:
    """A hand between five ``basic`` bots (seat ``s`` seeded ``s``) after ``steps`` actions."""
    game = Sheepshead.new(5, seed % 5, seed=seed)
    bots = [SheepsheadBasicBot(seed=s) for s in range(5)]
    for _ in range(steps):
        seat = game.to_act()[0]
        game.apply(seat, bots[seat].choose(game.view(seat)))
    return game
