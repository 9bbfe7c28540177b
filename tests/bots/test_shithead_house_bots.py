"""Shithead bots under the house rules (SH-7): legal under every option set, at every level,
and basic's rules adapted (what to play on a 7, when an 8's skip helps, glass 3s)."""

from __future__ import annotations

import itertools
import random

import pytest

from protocol.cards import parse_cards
from protocol.messages import ShitheadOptions
from server.bots import Bot, make_bot
from server.bots.shithead_basic import ShitheadBasicBot
from server.bots.shithead_policy import choose_play, target_face_up
from server.bots.shithead_strong import ShitheadExpertBot, ShitheadStrongBot
from server.rules.base import Action
from server.rules.shithead import Shithead
from server.tools import arena


def play(game: Shithead, bots: list[Bot], cap: int = 3000) -> tuple[None, bool]:
    """Play ``game`` to the end (or ``cap`` actions), each bot on its seat's view; every action
    must be accepted. Returns whether the cap stopped it (second)."""
    for _ in range(cap):
        if game.is_over():
            return None, False
        seat = game.to_act()[0]
        game.apply(seat, bots[seat].choose(game.view(seat)))  # raises if illegal
    return None, not game.is_over()


EVERY_SET = [
    ShitheadOptions(seven_lower=a, eight_skips=b, three_invisible=c)
    for a, b, c in itertools.product((False, True), repeat=3)
]


@pytest.mark.slow
@pytest.mark.parametrize("level", ["random", "basic"])
@pytest.mark.parametrize("rules", EVERY_SET, ids=lambda r: str(r) or "book")
def test_fast_bots_play_legally_under_every_option_set(level: str, rules: ShitheadOptions) -> None:
    # rule SH-7.1: options combine freely; every bot action is accepted under them.
    rng = random.Random(21)
    capped = 0
    for i in range(30):
        players = 2 + i % 4
        bots = [make_bot(level, "shithead", seed=i * 10 + s) for s in range(players)]
        game = Shithead.new(players, i % players, seed=rng.getrandbits(32), options=rules)
        _, was_capped = play(game, bots)
        capped += was_capped
    assert capped == 0


@pytest.mark.slow
@pytest.mark.parametrize("rules", EVERY_SET[1:], ids=str)
def test_search_bots_play_legally_under_every_option_set(rules: ShitheadOptions) -> None:
    # rule SH-7.5: the search bots sample positions under the rules the view shows, so every
    # candidate they try in a playout is legal there too (a glass 3 on a king, say).
    rng = random.Random(5)
    for i in range(2):
        players = 3 + i
        bots: list[Bot] = [
            ShitheadStrongBot(seed=i + s, iterations=6, horizon=15) for s in range(players - 1)
        ]
        bots.append(ShitheadExpertBot(seed=i, seconds=0.01, iterations=6))
        game = Shithead.new(players, 0, seed=rng.getrandbits(32), options=rules)
        play(game, bots)
        assert game.is_over()


def act(legal: list[str], pile: str, rules: ShitheadOptions, **kw: bool) -> str:
    actions = [Action.from_str(a) for a in legal]
    return choose_play(actions, parse_cards(pile), None, rules=rules, **kw).to_str()


def test_basic_on_the_book_is_as_before() -> None:
    legal = ["play 5C", "play 8D", "play AH", "play 2D", "pickup"]
    assert act(legal, "4S", ShitheadOptions()) == "play 5C"
    assert act(legal, "4S", ShitheadOptions(), danger=True, crowd=True) == "play AH"


def test_basic_holds_back_a_player_about_to_go_out_with_a_seven_that_plays_lower() -> None:
    # rule SH-7.2: after a 7 only 3 to 7 (and 2, 10) may follow: fewer ranks than after an 8.
    legal = ["play 5C", "play 7D", "play 8H", "pickup"]
    assert act(legal, "4S", ShitheadOptions(), danger=True) == "play 8H"
    assert act(legal, "4S", ShitheadOptions(seven_lower=True), danger=True) == "play 7D"


def test_basic_skips_a_player_about_to_go_out_with_an_eight() -> None:
    # rule SH-7.3: with three or more still playing, an 8 skips the one about to go out.
    legal = ["play 5C", "play 8D", "play 8D 8S", "play AH", "pickup"]
    rules = ShitheadOptions(eight_skips=True)
    assert act(legal, "4S", rules, danger=True, crowd=True) == "play 8D"
    # heads-up the skip only hands the turn back, on one's own 8: the usual choice
    assert act(legal, "4S", rules, danger=True, crowd=False) == "play AH"
    assert act(legal, "4S", rules) == "play 5C"  # nobody about to go out: no need


def test_basic_keeps_glass_threes_and_plays_them_before_a_two() -> None:
    # rule SH-7.4: a glass 3 goes on anything and leaves the card to beat as it was.
    glass = ShitheadOptions(three_invisible=True)
    legal = ["play 3C", "play 6D", "play 2H", "pickup"]
    assert act(legal, "5S", glass) == "play 6D"  # the 3 is kept, like a 2
    assert act(["play 3C", "play 2H", "pickup"], "9S", glass) == "play 3C"  # not the 2
    # a big pile is burned with a 10 rather than passed on
    assert act(["play 3C", "play TH", "pickup"], "9S 9C JD QH", glass) == "play TH"
    # glass 3s are worth keeping face up, like 2s and 10s
    six = parse_cards("3C 5D 9H KS 4D 6C")
    assert target_face_up(six, glass=True) == [1, 11, 7]  # 3, K, 9
    assert target_face_up(six) == [11, 7, 4]  # K, 9, 6


def test_basic_reads_the_rules_from_its_view() -> None:
    # rule SH-7.5: the view shows the rules in force; the bot plays by them.
    game = Shithead.from_position(
        hands=["3C 6D 2H", "QD KD", "JC"],
        face_up=["", "", ""],
        face_down=["JS", "JH", "JD"],
        pile="9S",
        turn=0,
        options=ShitheadOptions(three_invisible=True),
    )
    assert ShitheadBasicBot(seed=1).choose(game.view(0)).to_str() == "play 3C"


def test_the_arena_takes_house_rules_and_refuses_unknown_ones() -> None:
    summary = arena.run("shithead", ["basic", "random"], 4, seed=1, options={"eight_skips": True})
    assert summary.games == 4 and sum(map(sum, summary.units.values())) == 4  # one loser each
    with pytest.raises(SystemExit) as refused:
        arena.main(["shithead", "--seats", "basic,random", "--options", '{"jokers": true}'])
    assert refused.value.code == 2
