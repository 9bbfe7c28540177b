"""The conventions' counting on hand-made hands where the answer is known."""

from __future__ import annotations

import random

import pytest

from protocol.messages import SheepsheadOptions
from server.rules.base import Action
from server.rules.sheepshead import Sheepshead
from server.rules.shithead import Shithead
from server.tools.conventions import Chance, Convention, Facet, chances
from tests.rules.ss_helpers import deck_for
from tests.support.sheepshead_positions import BLIND, HANDS, TRICKS
from tests.support.sheepshead_positions import called_ace_hand as hand

C, F = Convention, Facet


def play_tricks(game: Sheepshead, tricks: list[str]) -> list[tuple[int, int, str, list[Chance]]]:
    """Play ``tricks``; per card: (trick number from 1, seat, card, its chances)."""
    out = []
    for number, trick in enumerate(tricks, 1):
        for code in trick.split():
            seat = game.to_act()[0]
            action = Action.from_str(f"play {code}")
            out.append((number, seat, code, chances(game, seat, action)))
            game.apply(seat, action)
    assert game.is_over() == (len(tricks) == 6)
    return out


def found(plays: list[tuple[int, int, str, list[Chance]]]) -> set[tuple[int, str, str, bool]]:
    """Every chance as (trick, card, key, hit)."""
    return {(n, code, ch.key, ch.hit) for n, _, code, chs in plays for ch in chs}


def test_the_called_ace_hand_counts_every_lead_and_schmear_by_the_full_states_roles() -> None:
    plays = play_tricks(hand(), TRICKS)
    # rule SS-5.1: the dealer's left, a defender, leads to trick 1: a trump lead with a choice
    assert (1, "JD", "lead_trump|defender|hidden|trick1", True) in found(plays)
    assert (1, "JD", "lead_trump_choice|defender|hidden|trick1", True) in found(plays)
    # the partner leads trump at trick 2 while nobody knows it is the partner
    assert (2, "JH", "lead_trump|partner|hidden|later", True) in found(plays)
    assert (2, "JH", "lead_trump_choice|partner|hidden|later", True) in found(plays)
    # the picker schmears AD (trump, 11 points, lower than JH) on the partner's winning trick,
    # not a sure one: seat 3, a defender still to play, holds QD, which beats JH
    assert (2, "AD", "schmear|picker|hidden|later", True) in found(plays)
    # trick 3: the partner's 8D wins; the picker, last to play, may schmear TD (SS-6.1 keeps
    # 7H) onto a sure trick, plays QH
    assert (3, "QH", "schmear|picker|hidden|later|sure", False) in found(plays)
    # rule SS-6.1: the picker may lead its hold card; it leads the called suit
    assert (4, "7H", "lead_called|picker|hidden|later", True) in found(plays)
    assert (4, "7H", "lead_trump|picker|hidden|later", False) in found(plays)
    # the called ace is shown (trick 4): the partner's trump lead at trick 5 is a known one
    assert (5, "7D", "lead_trump|partner|known|later", True) in found(plays)
    assert (6, "JS", "lead_trump|picker|known|later", True) in found(plays)


def test_forced_plays_are_no_chance_of_a_choice() -> None:
    plays = play_tricks(hand(), TRICKS)
    by_card = {(n, code): chs for n, _, code, chs in plays}
    # rule SS-6.2: the partner must play AH on the called suit's first lead: no schmear chance
    assert by_card[4, "AH"] == []
    # rule SS-6.3: one card each on the last trick: the partner's KC on the picker's JS is no
    # chance (at trick 5 the picker chose TD over JS on the partner's 7D: a schmear)
    assert by_card[6, "KC"] == []
    # (sure: seat 3, last to play, holds no trump, SS-5.2)
    assert [(ch.key, ch.hit) for ch in by_card[5, "TD"]] == [
        ("schmear|picker|known|later|sure", True)
    ]
    # a defender's play on the picker's side's trick is never a schmear chance
    assert all(not ch.key.startswith("schmear|defender") for _, _, _, chs in plays for ch in chs)
    # every lead is one lead_trump chance: six in a hand, each by its leader's role
    leads = [ch for _, _, _, chs in plays for ch in chs if ch.convention is C.LEAD_TRUMP]
    assert [ch.facets[0] for ch in leads] == [
        F.DEFENDER, F.PARTNER, F.DEFENDER, F.PICKER, F.PARTNER, F.PICKER
    ]  # fmt: skip


def test_a_defenders_schmear_on_a_fellow_defenders_trick_counts_for_the_defenders() -> None:
    game = hand()
    plays = play_tricks(game, TRICKS[:2])
    # trick 3 again, but seat 0 (a defender) plays on seat 3's AS before anyone trumps
    seat = game.to_act()[0]
    assert seat == 3
    game.apply(3, Action.from_str("play AS"))
    # seat 4 (the partner) may not throw off AH (SS-6.1): KC, 8D, 7D; it plays KC, AS still wins
    game.apply(4, Action.from_str("play KC"))
    schmear = chances(game, 0, Action.from_str("play AC"))
    assert [ch.key for ch in schmear] == ["schmear|defender|hidden|later"]
    assert schmear[0].hit
    assert plays  # the first two tricks were played


def test_an_alone_picker_has_no_partner_and_no_called_suit() -> None:
    # rule SS-4.4: alone, the picker faces four defenders; nothing is called
    plays = play_tricks(hand(call="alone"), TRICKS)
    keys = {ch.key for _, _, _, chs in plays for ch in chs}
    assert not any("partner" in k for k in keys)
    assert not any(k.startswith("lead_called") for k in keys)
    # seat 4 leads trick 2 as a defender against the alone picker, known to be alone
    assert (2, "JH", "lead_trump|defender|alone|known|later", True) in found(plays)


def test_the_jack_of_diamonds_partner_is_the_partner_and_nothing_is_called() -> None:
    # rule SS-10.2: the JD holder (seat 1, at the dealer's left) partners; no called suit
    plays = play_tricks(hand(SheepsheadOptions(partner="jack_of_diamonds"), "jd_partner"), TRICKS)
    keys = {ch.key for _, _, _, chs in plays for ch in chs}
    assert not any(k.startswith("lead_called") for k in keys)
    assert (1, "JD", "lead_trump|partner|hidden|trick1", True) in found(plays)
    # seat 4 holds AH but is a defender now
    assert (2, "JH", "lead_trump|defender|known|later", True) in found(plays)


def test_a_picker_holding_the_jack_of_diamonds_is_alone_without_a_word() -> None:
    # rule SS-10.2: the picker holding JD plays alone; the table learns it when JD is played
    hands = {**HANDS, 1: "QS 7C 8C 9C KS 8S", 2: "JD QH JS 7H AD TD"}
    game = Sheepshead.new(
        5, 0, deck=deck_for(hands, BLIND), options=SheepsheadOptions(partner="jack_of_diamonds")
    )
    for seat, text in [(1, "pass"), (2, "pick"), (2, "bury KD 9D"), (2, "jd_partner")]:
        game.apply(seat, Action.from_str(text))
    lead = chances(game, 1, Action.from_str("play QS"))
    assert lead[0].key == "lead_trump|defender|alone|hidden|trick1"


def test_a_leaster_has_no_sides() -> None:
    # rule SS-8.1: everyone plays for themselves: no roles, no schmear, no called suit
    game = Sheepshead.new(5, 0, deck=deck_for(HANDS, BLIND))
    for seat in (1, 2, 3, 4, 0):
        game.apply(seat, Action("pass"))
    assert game.leaster
    found_keys = []
    while not game.is_over():
        seat = game.to_act()[0]
        action = game.legal_actions(seat)[0]
        found_keys += [ch.key for ch in chances(game, seat, action)]
        game.apply(seat, action)
    assert found_keys
    assert {k.split("|")[1] for k in found_keys} == {"leaster"}
    assert sum(k.startswith("lead_trump|") for k in found_keys) == 6
    assert not any(k.startswith(("schmear", "lead_called")) for k in found_keys)


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"crack": True},
        {"partner": "jack_of_diamonds"},
        {"partner": "jack_of_diamonds", "crack": True},
        {"no_pick": "forced"},
        {"no_pick": "doubler"},
    ],
)
def test_random_hands_under_every_house_rule_count_one_trump_lead_chance_per_lead(
    options: dict[str, object],
) -> None:
    rng = random.Random(7)
    for deal in range(12):
        game = Sheepshead.new(5, deal % 5, seed=deal, options=options)
        leads = 0
        while not game.is_over():
            seat = game.to_act()[0]
            action = rng.choice(game.legal_actions(seat))
            if game.phase == "play" and not game.trick_cards:
                leads += 1
            found_ = chances(game, seat, action)
            lead_chances = [ch for ch in found_ if ch.convention is C.LEAD_TRUMP]
            assert len(lead_chances) == (game.phase == "play" and not game.trick_cards)
            for ch in found_:
                if F.PARTNER in ch.facets:
                    assert seat == game.partner
                if F.ALONE in ch.facets:
                    assert game.partner is None
                if ch.convention is C.LEAD_CALLED:
                    assert game.called is not None and game.options.partner == "called_ace"
            game.apply(seat, action)
        assert leads in (0, 6)  # a doubler throw-in plays no trick


def sh(hand: str, pile: str, **options: bool) -> Shithead:
    return Shithead.from_position(
        hands=[hand, "9S 9C"], face_up=["", ""], face_down=["", ""], pile=pile, turn=0,
        options=options,
    )  # fmt: skip


def keys(game: Shithead, text: str) -> dict[str, bool]:
    return {ch.key: ch.hit for ch in chances(game, 0, Action.from_str(text))}


def test_shithead_a_ten_played_when_an_ordinary_card_plays_is_wasted() -> None:
    # rule SH-1.4, SH-4.2: the 10 plays on anything; here the 5 plays too
    game = sh("TC 5D", "4H")
    assert keys(game, "play TC") == {
        "waste_ten|no_stock|hand": True,
        "waste_special|no_stock|hand": True,
        "pickup_with_play|no_stock|hand|ordinary_plays": False,
    }
    assert keys(game, "play 5D")["waste_ten|no_stock|hand"] is False


def test_shithead_a_forced_ten_is_no_waste() -> None:
    # rule SH-4.1: the 3 does not go on a king, so the 10 is the only play
    game = sh("TC 3D", "KH")
    assert keys(game, "play TC") == {"pickup_with_play|no_stock|hand": False}


def test_shithead_pick_ups_with_and_without_a_legal_play() -> None:
    # rule SH-4.6: picking up is always allowed; here the 5 could have played
    assert keys(sh("5D", "4H"), "pickup") == {
        "pickup_with_play|no_stock|hand|ordinary_plays": True,
        "pickup_forced|no_stock|hand": False,
    }
    # only the 2 plays (SH-1.3): a pick-up that keeps it is told apart
    assert keys(sh("2D 5C", "9H"), "pickup") == {
        "pickup_with_play|no_stock|hand": True,
        "pickup_forced|no_stock|hand": False,
    }
    assert keys(sh("3D", "KH"), "pickup") == {"pickup_forced|no_stock|hand": True}


def test_shithead_playing_more_than_needed() -> None:
    assert keys(sh("5D KC", "4H"), "play KC") == {
        "pickup_with_play|no_stock|hand|ordinary_plays": False,
        "overplay|no_stock|hand": True,
    }
    assert keys(sh("5D KC", "4H"), "play 5D")["overplay|no_stock|hand"] is False
    # two 2s where one resets the pile (SH-1.3), and an ordinary card played too
    two = keys(sh("2C 2D 5H", "4H"), "play 2C 2D")
    assert two["special_doubled|no_stock|hand"] is True
    assert two["waste_two|no_stock|hand"] is True
    # with no ordinary play the 2 is no waste
    assert "waste_two|no_stock|hand" not in keys(sh("2C 5H", "9H"), "play 2C")


def test_shithead_the_glass_three_is_special_only_under_its_house_rule() -> None:
    # rule SH-7.4: a glass 3 plays on anything
    glass = keys(sh("3C 5D", "4H", three_invisible=True), "play 3C")
    assert glass["waste_glass|no_stock|hand"] is True
    # without it the 3 does not even go on a 4: the 5 is the only play
    assert keys(sh("3C 5D", "4H"), "play 5D") == {
        "pickup_with_play|no_stock|hand|ordinary_plays": False
    }


def test_shithead_a_turned_face_down_card_is_no_choice() -> None:
    game = Shithead.from_position(
        hands=["", "5C"], face_up=["", ""], face_down=["TC", "- 9D"], pile="QH", turn=0
    )
    assert chances(game, 0, Action.from_str("flip #0")) == []
