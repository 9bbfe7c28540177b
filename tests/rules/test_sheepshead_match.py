"""Sheepshead matches: ten hands, rotating deal, running totals, daily deals (SS-9, SS-2.1)."""

from __future__ import annotations

import datetime
import random

import pytest

from protocol.cards import card_codes
from server.rules.base import IllegalAction
from server.rules.records import DealRecord
from server.rules.sheepshead_cards import DECK32
from server.rules.sheepshead_match import SheepsheadMatch


def finish(match: SheepsheadMatch, rng: random.Random) -> None:
    game = match.current
    while not game.is_over():
        seat = game.to_act()[0]
        legal = game.legal_actions(seat)
        game.apply(seat, rng.choice(legal))


def test_ten_hands_with_running_totals() -> None:
    # rule SS-9.1
    rng = random.Random(1)
    match = SheepsheadMatch(seed=11, first_dealer=2)
    dealers = []
    running = [0] * 5
    for number in range(1, 11):
        assert match.game_index == number - 1 and not match.is_over()
        dealers.append(match.current.dealer)
        finish(match, rng)
        result = match.current.outcome()
        assert result is not None
        running = [a + b for a, b in zip(running, result.units, strict=True)]
        if number < 10:
            match.next_game()
            assert match.totals() == running
    assert match.is_over() and match.totals() == running and sum(running) == 0
    assert len(match.results) == 10
    with pytest.raises(IllegalAction) as err:
        match.next_game()
    assert err.value.code == "match_over"
    # Each player deals twice.
    assert sorted(dealers) == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4]
    places = match.standings()
    assert [t for _, _, t in places] == sorted(running, reverse=True)
    assert match.to_json()["over"] is True


def test_dealer_rotates_clockwise_every_hand() -> None:
    # rule SS-2.1
    rng = random.Random(2)
    match = SheepsheadMatch(seed=3, first_dealer=4)
    seen = [match.current.dealer]
    for _ in range(4):
        finish(match, rng)
        seen.append(match.next_game().dealer)
    assert seen == [4, 0, 1, 2, 3]
    assert match.current.to_act() == (4,)  # the new dealer's left picks first


def test_next_game_refused_while_hand_in_play() -> None:
    # rule SS-9.1
    match = SheepsheadMatch(seed=5)
    with pytest.raises(IllegalAction) as err:
        match.next_game()
    assert err.value.code == "game_not_over"
    assert match.game_index == 0


def test_daily_match_deals_the_decks_it_is_given_with_fixed_dealers() -> None:
    # rule SS-9.2: the daily match's dealers are fixed; its decks come from the server (its
    # secret), never from the date alone
    day = datetime.date(2025, 3, 14)
    decks = [list(DECK32[i:]) + list(DECK32[:i]) for i in range(10)]
    asked: list[int] = []

    def deck(i: int) -> list[int]:
        asked.append(i)
        return decks[i]

    match = SheepsheadMatch(daily=day, decks=deck)
    assert asked == [0]  # hand 1 is not dealt before hand 0 is over
    assert match.to_json()["daily"] == "2025-03-14"
    assert card_codes(match.current.hand(1)) == card_codes(decks[0][:6])
    assert match.current.dealer == 0
    with pytest.raises(ValueError):
        SheepsheadMatch(daily=day)  # a daily match needs the server's decks
    with pytest.raises(ValueError):
        SheepsheadMatch(7, decks=deck)


def test_seeded_matches_are_reproducible() -> None:
    # rule SS-9.1
    def deal(seed: int) -> DealRecord:
        return SheepsheadMatch(seed=seed).current.deal_record()

    assert deal(8) == deal(8)
    assert deal(8) != deal(9)
