"""The interface both rules cores share: explicit decks as card codes, is_legal, the read API."""

from __future__ import annotations

import random

import pytest

from protocol.cards import card_codes, parse_cards
from server.rules.base import Action, Game
from server.rules.registry import GAMES
from server.rules.sheepshead import Sheepshead
from server.rules.sheepshead_cards import DECK32, POINTS
from server.rules.shithead import Shithead


def test_decks_as_codes_or_integers_deal_the_same_game() -> None:
    # rule SH-2.2, SS-2.1: an explicit deck is dealt top card first.
    ints = list(range(52))
    random.Random(3).shuffle(ints)
    by_codes = Shithead.new(4, 1, deck=card_codes(ints))
    assert by_codes.snapshot() == Shithead.new(4, 1, deck=ints).snapshot()
    assert by_codes.deal_record()["deck"] == card_codes(ints)
    ss = list(DECK32)
    random.Random(4).shuffle(ss)
    game = Sheepshead.new(5, 2, deck=card_codes(ss))
    assert game.deal_record() == Sheepshead.new(5, 2, deck=ss).deal_record()
    assert Sheepshead.from_deal_record(game.deal_record()).hand(3) == game.hand(3)


@pytest.mark.parametrize(
    ("game", "deck", "message"),
    [
        (Shithead, ["2C"] * 52, "missing 2D"),
        (Shithead, card_codes(range(51)), "51 given; missing AS"),
        (Shithead, [*card_codes(range(51)), "2C"], "twice 2C"),
        (Shithead, [*card_codes(range(51)), "XX"], "deck position 51: bad card code 'XX'"),
        (Shithead, [*range(51), 52], "no card integer 52"),
        (Shithead, [*range(51), None], "None is not a card code"),
        (Shithead, " ".join(card_codes(range(52))), "not one string"),
        (Sheepshead, [*card_codes(DECK32[:31]), "2C"], "not in this deck 2C"),
    ],
)
def test_bad_decks_say_what_is_wrong(game: type[Game], deck: list[object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        game.new(max(game.seat_counts), 0, deck=deck)  # type: ignore[arg-type]


def test_unknown_options_are_refused_by_both_games() -> None:
    for spec in GAMES.values():
        with pytest.raises(ValueError, match="fast"):
            spec.game.new(max(spec.game.seat_counts), 0, seed=1, options={"fast": True})


def test_is_legal_answers_without_changing_the_game() -> None:
    # rule SH-4.1, SS-5.2: is_legal agrees with apply and leaves the state as it was.
    rng = random.Random(9)
    games: list[Game] = [Shithead.new(3, 0, seed=5), Sheepshead.new(5, 0, seed=5)]
    for game in games:
        for _ in range(60):
            if game.is_over():
                break
            seat = game.to_act()[0]
            legal = game.legal_actions(seat)
            before, log = game.view(seat), len(game.log)
            assert all(game.is_legal(seat, a) for a in legal)
            other = (seat + 1) % game.num_players
            if other not in game.to_act():
                assert not any(game.is_legal(other, a) for a in legal)
            assert not game.is_legal(seat, Action("burn"))
            assert game.view(seat) == before and len(game.log) == log
            game.apply(seat, rng.choice(legal))


def test_sheepshead_read_api_matches_the_view() -> None:
    rng = random.Random(2)
    game = Sheepshead.new(5, 3, seed=8)
    while not game.is_over():
        seat = game.to_act()[0]
        view = game.view(seat)
        assert game.turn == seat and view["hand_counts"] == [game.hand_count(s) for s in range(5)]
        if game.phase == "play":
            assert parse_cards([a["cards"][0] for a in view["legal"]]) == game.legal_cards(seat)
            assert game.legal_cards((seat + 1) % 5) == []
        game.apply(seat, rng.choice(game.legal_actions(seat)))
    assert game.turn == -1 and sum(game.tricks_won) == 6 and len(game.tricks) == 6
    aside = game.blind if game.leaster else game.buried  # rule SS-8.1: cards not in tricks
    assert sum(game.points_won) + sum(POINTS[c] for c in aside) == 120


@pytest.mark.parametrize("rules", [Shithead, Sheepshead])
def test_a_deal_record_without_its_deck_is_refused_not_dealt_at_random(rules: type[Game]) -> None:
    record = rules.new(min(rules.seat_counts), seed=1).deal_record()
    del record["deck"]
    with pytest.raises(KeyError):
        rules.from_deal_record(record)
