"""Sheepshead bots under the house rules (SS-10): legal under every option set, basic's crack
and jack-of-diamonds rules, and search samplers that keep the JD holder unknown."""

from __future__ import annotations

import random
from collections import Counter
from itertools import product

import pytest

from protocol.messages import SheepsheadOptions
from server.bots import Bot, make_bot
from server.bots.sampling import SheepsheadSampler, crack_decisions
from server.bots.sheepshead_basic import SheepsheadBasicBot, choose_call, table_from_view
from server.bots.sheepshead_bidding import Sequential
from server.bots.sheepshead_strong import SheepsheadExpertBot, SheepsheadStrongBot
from server.rules.base import Action
from server.rules.sheepshead import Sheepshead
from server.rules.sheepshead_cards import JD
from server.rules.sheepshead_match import HANDS, SheepsheadMatch
from tests.rules.ss_helpers import act, deck_for

#: Every option set of SS-10 (2 x 3 x 2).
ALL_OPTIONS = [
    SheepsheadOptions(partner=p, no_pick=n, crack=c)  # type: ignore[arg-type]
    for p, n, c in product(
        ("called_ace", "jack_of_diamonds"), ("leaster", "doubler", "forced"), (False, True)
    )
]


def play_match(match: SheepsheadMatch, bots: list[Bot], hands: int = HANDS) -> Counter[str]:
    """Play ``hands`` hands of ``match`` with ``bots``; every proposal must be legal."""
    kinds: Counter[str] = Counter()
    for i in range(hands):
        game = match.current
        while not game.is_over():
            (seat,) = game.to_act()
            view = game.view(seat)
            action = bots[seat].choose(view)
            assert action in game.legal_actions(seat), (action, view["phase"])
            game.apply(seat, action)
            kinds[f"{view['phase']}:{action.kind}"] += 1
        result = game.outcome()
        assert result is not None and sum(result.units) == 0
        if i < hands - 1:
            match.next_game()
    return kinds


@pytest.mark.slow
@pytest.mark.parametrize(
    "options", ALL_OPTIONS, ids=lambda o: "-".join(map(str, o.model_dump().values()))
)
def test_random_and_basic_play_every_option_set_legally(options: SheepsheadOptions) -> None:
    # rule SS-10.2, SS-10.3, SS-10.4: random and basic bots propose only legal actions
    kinds: Counter[str] = Counter()
    for i in range(6):
        for level in ("random", "basic"):
            bots = [make_bot(level, "sheepshead", seed=i * 10 + s) for s in range(5)]
            kinds += play_match(SheepsheadMatch(seed=i, options=options), bots)
    if options.partner == "jack_of_diamonds":
        assert kinds["call:jd_partner"] > 0 and kinds["call:call"] == 0
    if options.crack:
        assert kinds["crack:no_crack"] > 0 and kinds["crack:crack"] > 0
    else:
        assert not any(k.startswith("crack:") for k in kinds)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(3))
def test_strong_and_expert_play_random_option_sets_legally(seed: int) -> None:
    # rule SS-10.1: the search bots simulate under the options in force and stay legal
    rng = random.Random(seed)
    options = rng.choice([o for o in ALL_OPTIONS if o.crack or o.partner != "called_ace"])
    bots: list[Bot] = [
        SheepsheadStrongBot(seed=seed + s, iterations=10, bid_samples=6) for s in range(4)
    ]
    bots.append(SheepsheadExpertBot(seed=seed, seconds=0.02, iterations=10, bid_samples=6))
    play_match(SheepsheadMatch(seed=seed, options=options), bots, hands=2)


def test_basic_takes_the_jacks_partner_unless_alone() -> None:
    # rule SS-10.2: basic picks the jack's partner, alone only with a monster hand
    legal = [Action("jd_partner"), Action("alone")]
    weak = [int(c) for c in deck_for({})[:6]]
    assert choose_call(weak, legal) == Action("jd_partner")
    game = Sheepshead.new(
        5,
        0,
        deck=deck_for({1: "QC QS QH QD JC JS"}, "AD KD"),
        options=SheepsheadOptions(partner="jack_of_diamonds"),
    )
    act(game, 1, "pick")
    act(game, 1, "bury AD KD")
    assert SheepsheadBasicBot(seed=1).choose(game.view(1)) == Action("alone")


def cracking_table(defender_hand: str) -> Sheepshead:
    game = Sheepshead.new(
        5,
        0,
        deck=deck_for({1: "QC 7H 9S TS 8S 7S", 2: defender_hand}, "AD KD"),
        options=SheepsheadOptions(crack=True),
    )
    act(game, 1, "pick")
    act(game, 1, "bury 9S TS")
    act(game, 1, game.legal_actions(1)[0].to_str())
    return game


def test_basic_cracks_a_strong_defence_and_not_a_weak_one() -> None:
    # rule SS-10.4: a defender with four trumps and a queen cracks; a trumpless one does not
    strong = cracking_table("QS QH JC JS 7C 8C")
    assert strong.to_act() == (2,)
    assert SheepsheadBasicBot(seed=1).choose(strong.view(2)) == Action("crack")
    weak = cracking_table("7C 8C 9C KC TH 9H")
    assert SheepsheadBasicBot(seed=1).choose(weak.view(2)) == Action("no_crack")


def test_basic_picker_recracks_only_a_near_alone_hand() -> None:
    # rule SS-10.4: the picker re-cracks with five trumps and two queens, else declines
    game = Sheepshead.new(
        5,
        0,
        deck=deck_for({1: "QC QS JC JS JH 7C", 2: "QH QD JD 9D 8C 9C"}, "AD KD"),
        options=SheepsheadOptions(crack=True),
    )
    act(game, 1, "pick")
    act(game, 1, "bury 7C KD")
    act(game, 1, "alone")
    act(game, 2, "crack")
    assert SheepsheadBasicBot(seed=1).choose(game.view(1)) == Action("recrack")
    weak = cracking_table("QS QH JC JS 7C 8C")
    act(weak, 2, "crack")
    assert SheepsheadBasicBot(seed=1).choose(weak.view(1)) == Action("no_crack")


def test_a_picker_holding_jd_knows_it_is_alone_and_the_others_do_not() -> None:
    # rule SS-10.2: basic's picker counts every other seat a foe; the others know nothing yet
    game = Sheepshead.new(
        5,
        0,
        deck=deck_for({1: "QC QS JD 9S TS 8S"}, "AD KD"),
        options=SheepsheadOptions(partner="jack_of_diamonds"),
    )
    for text in ("pick", "bury 9S TS", "jd_partner"):
        act(game, 1, text)
    assert table_from_view(game.view(1)).foes == frozenset({0, 2, 3, 4})
    assert table_from_view(game.view(3)).friends == frozenset()


def test_samplers_leave_the_jd_holder_unknown() -> None:
    # rule SS-10.2, SS-10.6: a defender's samples put JD in every other seat, and rebuild the
    # view's options, multiplier and crack round exactly
    options = SheepsheadOptions(partner="jack_of_diamonds", crack=True, no_pick="doubler")
    game = Sheepshead.new(
        5,
        0,
        deck=deck_for({1: "QC QS 7H 9S TS 8S", 2: "7C 8C 9C KC TH 9H"}, "AD KD"),
        options=options,
        multiplier=2,
    )
    for text in ("pick", "bury 9S TS", "jd_partner"):
        act(game, 1, text)
    act(game, 2, "no_crack")
    act(game, 3, "crack")
    act(game, 1, "recrack")
    act(game, 1, "play QC")
    view = game.view(2)
    assert view["multiplier"] == 8
    sampler = SheepsheadSampler(view)
    rng = random.Random(3)
    holders: Counter[str] = Counter()
    for _ in range(300):
        sample = sampler.sample(rng)
        assert sample is not None
        mine = sample.view(2)  # the same position for seat 2 (its legal cards in any order)
        assert {**mine, "legal": None} == {**view, "legal": None}
        assert sorted(map(str, mine["legal"])) == sorted(map(str, view["legal"]))
        places = sample.card_places()
        holders[places[JD]] += 1
    assert {"hand:0", "hand:1", "hand:3", "hand:4"} <= set(holders)


# ------------------------------------------------------------ the searched crack (strong, expert)


def searched(game: Sheepshead, seat: int, seeds: int = 3) -> list[str]:
    """What ``strong`` decides for ``seat`` with a few seeds (each seed decides alike every time:
    a fixed sample budget)."""
    return [SheepsheadStrongBot(seed=s).choose(game.view(seat)).kind for s in range(seeds)]


@pytest.mark.slow
def test_strong_cracks_a_monster_defence_and_not_a_trumpless_one() -> None:
    # rule SS-10.4: the search cracks when the doubled hand pays, declines with no trumps
    assert searched(cracking_table("QS QH QD AC AH TC"), 2) == ["crack"] * 3
    assert searched(cracking_table("7C 8C 9C KC TH 9H"), 2) == ["no_crack"] * 3


def test_strong_cracks_by_search_where_basics_rule_does_not() -> None:
    # rule SS-10.4: three trumps with a queen and three fail aces and tens win the defence its
    # hand in the simulations; basic's count (four trumps, or a picking hand) says no
    game = cracking_table("QS JH 9D AC TC AH")
    assert SheepsheadBasicBot(seed=1).choose(game.view(2)) == Action("no_crack")
    assert searched(game, 2) == ["crack"] * 3


def recrack_table(picker: str, bury: str, call: str) -> Sheepshead:
    """Seat 1 picks ``picker`` with the blind 7S 8S, buries, calls; seat 2 cracks."""
    game = Sheepshead.new(
        5, 0, deck=deck_for({1: picker}, "7S 8S"), options=SheepsheadOptions(crack=True)
    )
    for text in ("pick", f"bury {bury}", call):
        act(game, 1, text)
    act(game, 2, "crack")
    return game


def test_strong_picker_recracks_a_lock_and_not_a_bluff() -> None:
    # rule SS-10.4: four queens and two fail aces alone beat any defence (basic's count of five
    # trumps says no); five trumps of which three are small, against a crack, do not
    lock = recrack_table("QC QS QH QD AC AH", "7S 8S", "alone")
    assert SheepsheadBasicBot(seed=1).choose(lock.view(1)) == Action("no_crack")
    assert searched(lock, 1) == ["recrack"] * 3
    small = recrack_table("QD QH 7D 8D 9D 7C", "7S 8S", "call AC")
    assert SheepsheadBasicBot(seed=1).choose(small.view(1)) == Action("recrack")
    assert searched(small, 1) == ["no_crack"] * 3


@pytest.mark.parametrize("sequential", [None, Sequential(first=1, playouts=2)])
def test_a_crack_needs_the_margin_not_noise(sequential: Sequential | None) -> None:
    # rule SS-10.4: with too few samples to tell (a fixed budget of one, or a sequential cap
    # of one), the stakes stay (no_crack)
    game = cracking_table("QS QH QD AC AH TC")
    bot = SheepsheadStrongBot(seed=1, bid_samples=1, bid_sequential=sequential)
    assert bot.choose(game.view(2)) == Action("no_crack")


def test_the_crack_round_so_far_is_replayed_in_the_samples() -> None:
    # rule SS-10.4: seat 3 deciding sees seat 2's decline; the picker answering sees the crack
    game = cracking_table("7C 8C 9C KC TH 9H")
    act(game, 2, "no_crack")
    view = game.view(3)
    assert crack_decisions(view, 1) == [(2, Action("no_crack"))]
    sample = SheepsheadSampler(view).sample(random.Random(1))
    assert sample is not None and sample.to_act() == (3,)
    act(game, 3, "crack")
    view = game.view(1)
    assert crack_decisions(view, 1) == [(2, Action("no_crack")), (3, Action("crack"))]
    sample = SheepsheadSampler(view).sample(random.Random(1))
    assert sample is not None and sample.to_act() == (1,) and sample.multiplier == 2
