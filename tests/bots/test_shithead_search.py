"""The strong Shithead bot's search: which actions it compares, and how it shares its playouts
among them (sequential halving)."""

from __future__ import annotations

import itertools

import pytest

from protocol.cards import parse_card
from server.bots.base import Deadline
from server.bots.halving import schedule
from server.bots.shithead_strong import ShitheadStrongBot, candidates
from server.rules.base import Action
from server.rules.shithead import Shithead
from tests.support.playouts import count_playouts


def _actions(*texts: str) -> list[Action]:
    return [Action.from_str(t) for t in texts]


def test_one_candidate_per_rank_and_number_of_cards() -> None:
    # rule SH-1.1: suits never matter, so 7C and 7H are the same play; two 7s are another.
    legal = _actions("play 7C", "play 7H", "play 7D", "play 7C 7H", "play 7C 7D", "play 7H 7D")
    legal += _actions("play 7C 7H 7D", "play 9S", "pickup")
    default = Action.from_str("play 7D")
    got = candidates(legal, default)
    want = ["play 7D", "play 7C 7H", "play 7C 7H 7D", "play 9S", "pickup"]
    assert [a.to_str() for a in got] == want
    # Without a default, the first of each kind stands for it.
    assert candidates(legal)[0] == Action.from_str("play 7C")


def test_a_forced_addition_to_the_pickup_adds_the_least_useful_face_up_card() -> None:
    # rule SH-5.2: playing from the face-up cards, a seat that cannot play takes the pile with
    # one of them; the search compares only the pick-up that gives away the least.
    g = Shithead.from_position(
        hands=["", "4C 5C"],
        face_up=["5H TD 3S", "6S"],
        face_down=["8C", "8D"],
        pile="QS",
        turn=0,
    )
    legal = g.legal_actions(0)
    pickups = [a for a in legal if a.kind == "pickup"]
    assert len(pickups) > 1, [a.to_str() for a in legal]
    chosen = [a for a in candidates(legal) if a.kind == "pickup"]
    assert chosen == [Action("pickup", (parse_card("3S"),))]


@pytest.mark.parametrize("n", range(2, 22))
@pytest.mark.parametrize("iterations", [96, 192])
def test_halving_keeps_the_budget_and_ends_with_two(n: int, iterations: int) -> None:
    plan = schedule(n, iterations)
    widths = [w for w, _ in plan]
    assert widths[0] == n
    assert widths[-1] == min(n, 2)
    assert all(b == (a + 1) // 2 for a, b in itertools.pairwise(widths))
    spent = sum(w * s for w, s in plan)
    # Within the budget, but for a floor of two samples a candidate in a round.
    assert spent <= iterations + 2 * n
    assert spent >= iterations * 3 // 4
    # The two finalists get at least as many samples as an equal share would give them.
    flat = schedule(n, iterations, halving=False)[0][1]
    assert sum(s for _, s in plan) >= flat or n <= 2


def _spread_position() -> Shithead:
    """Seat 0 can play any of five ranks (several in pairs) on an empty pile, or a 10."""
    return Shithead.from_position(
        hands=["4C 4D 6H 6S 8C TH JD", "3C 5C 7C 9C", "3D 5D 7D 9D"],
        face_up=["KS", "KH", "KD"],
        face_down=["QS", "QH", "QD"],
        pile="",
        turn=0,
    )


def test_the_search_plays_out_exactly_its_schedule(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = count_playouts(monkeypatch)
    g = _spread_position()
    view = g.view(0)
    legal = g.legal_actions(0)
    bot = ShitheadStrongBot(seed=4, iterations=64, horizon=40)
    cands = candidates(legal)
    choice = bot.choose(view)
    assert choice in legal
    assert calls[0] == sum(w * s for w, s in schedule(len(cands), 64))


def test_a_burn_that_lets_it_go_out_wins_the_search() -> None:
    # rule SH-4.3, SH-6.3: a 10 burns the pile and its player plays again; with one card left
    # after it, that is the way out. The pick-up keeps a hand full of cards.
    g = Shithead.from_position(
        hands=["TH 3C", "4C 6C 7C 9C 9S", "4D 6D 7D 9D 9H"],
        face_up=["", "KH", "KD"],
        face_down=["", "QH", "QD"],
        pile="JS",
        turn=0,
    )
    bot = ShitheadStrongBot(seed=2, iterations=48, horizon=60)
    first = bot.choose(g.view(0))
    assert first == Action("play", (parse_card("TH"),))


def test_past_its_deadline_it_answers_with_a_legal_candidate() -> None:
    g = _spread_position()
    legal = g.legal_actions(0)
    bot = ShitheadStrongBot(seed=5, iterations=10_000, horizon=150)
    cands = candidates(legal)
    deadline = Deadline(0.05)
    choice = bot.search(g.view(0), cands, set(), cands[0], deadline)
    assert choice in cands
    assert deadline.passed()


def test_deadline_shares_split_the_time_left() -> None:
    never = Deadline(None).shares(3)
    assert len(never) == 3 and not any(d.passed() for d in never)
    d = Deadline(30.0)
    parts = d.shares(3)
    assert parts[-1].at == d.at
    ats = [p.at for p in parts if p.at is not None]
    assert len(ats) == 3 and ats == sorted(ats)


def _flipping_position() -> Shithead:
    """Heads-up, no stock: both seats will turn face-down cards blind, so the playouts depend
    on which slot each flip picks (their only randomness)."""
    return Shithead.from_position(
        hands=["7C 7H 4S", "5D 6D"],
        face_up=["", ""],
        face_down=["KC 3C QD", "8H JS 9S"],
        pile="6S",
        turn=0,
    )


def test_actions_that_differ_only_by_suit_get_the_same_value_on_every_sample() -> None:
    # rule SH-1.1: suits never matter, so 7C and 7H lead to the same game. With common random
    # numbers every candidate's playout flips the same face-down slots, so the two tie exactly
    # (the flips' luck no longer picks among equal actions) and the tie goes to the usual play.
    g = _flipping_position()
    view = g.view(0)
    seven_c, seven_h = Action.from_str("play 7C"), Action.from_str("play 7H")
    for seed in range(4):
        bot = ShitheadStrongBot(seed=seed, iterations=64)
        means: dict[int, float] = {}
        for default in (seven_c, seven_h):
            found = bot.search(view, [seven_c, seven_h], set(), default, None, means)
            assert means[0] == means[1]
            assert found == default


def _early_heads_up(hand: str, pile: str) -> Shithead:
    """Heads-up with most of the stock left: seat 0 holds ``hand`` (an ordinary card, the 9C,
    beats the pile) and the other seat four cards."""
    stock = "2D 3D 5H 9D JD QH QC AC 4H 8H 6H TS 6D 3C 8C AH 2S 4S QD 7S AS"
    return Shithead.from_position(
        hands=[hand, "4D 6C JH KC"],
        face_up=["QS KD TD", "7H 6S KH"],
        face_down=["2C AD 8D", "3S 9H JC"],
        pile=pile,
        stock=" ".join(c for c in stock.split() if c not in hand.split()),
        turn=0,
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    "hand",
    ["3H 6H 7D 9C", "3H 2H 7D 9C", "3H TH 7D 9C"],
    ids=["ordinary", "with a 2", "with a 10"],
)
def test_with_an_ordinary_card_that_plays_on_a_small_pile_strong_plays_it(hand: str) -> None:
    # rule SH-4.6: picking up is allowed with a play in hand, and a 2 or a 10 goes on anything
    # (SH-1.4), but players expect neither while an ordinary card plays; the search found them
    # no better here and took them in about half the seeds on its noise.
    view = _early_heads_up(hand, "8S").view(0)
    nine = Action.from_str("play 9C")
    bots = [ShitheadStrongBot(seed=s, seconds=None) for s in range(12)]  # no wall clock
    # at two standard errors a near-tie still departs now and then (one seed of 12 with the 2);
    # today's code departed with 3 to 5 seeds of 8
    assert sum(bot.choose(view) != nine for bot in bots) <= 1


def test_a_ten_that_burns_the_way_out_is_played_over_the_ordinary_card() -> None:
    # rule SH-4.3, SH-6.3: the 10 burns the pile and its player plays again, here the 9 to go
    # out; the usual play (the 9 first) lets the other seat go out with its last card. Clearly
    # right on every sample, so the search departs from the usual play.
    g = Shithead.from_position(
        hands=["TH 9C", "AS"],
        face_up=["", ""],
        face_down=["", ""],
        pile="8S",
        turn=0,
    )
    for seed in range(3):
        bot = ShitheadStrongBot(seed=seed, seconds=None)
        assert bot.choose(g.view(0)) == Action.from_str("play TH")
