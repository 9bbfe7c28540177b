"""Sheepshead house rules (SS-10): each rule on a scripted deal, then random games of whole
matches under random option sets checking every legal action accepted, every other refused
(state unchanged), each hand and the match summing to zero, and replays from the deal record."""

from __future__ import annotations

import datetime
import random
from itertools import combinations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from protocol.cards import parse_card
from protocol.errors import ErrorCode
from protocol.messages import SheepsheadOptions
from server.rules.base import Action, IllegalAction
from server.rules.sheepshead import Sheepshead
from server.rules.sheepshead_cards import DECK32, JD
from server.rules.sheepshead_match import HANDS, SheepsheadMatch
from tests.rules.ss_helpers import act, deck_for

JACK = SheepsheadOptions(partner="jack_of_diamonds")
DOUBLER = SheepsheadOptions(no_pick="doubler")
FORCED = SheepsheadOptions(no_pick="forced")
CRACK = SheepsheadOptions(crack=True)

#: Dealer 0. Seat 1 picks (blind AD KD) and buries 9S TS; seat 0 holds JD; seat 3 holds AH.
HANDS_MAIN = {
    1: "QC QS 7H 9S TS 8S",
    2: "AS TC AC 7S QH JC",
    3: "AH 9H 7C 8C 9C KC",
    4: "KS TH KH 8H QD JS",
    0: "JH JD TD 9D 8D 7D",
}


def dealt(options: SheepsheadOptions, hands: dict[int, str] = HANDS_MAIN, **kw: int) -> Sheepshead:
    return Sheepshead.new(5, 0, deck=deck_for(hands, "AD KD"), options=options, **kw)


def refused(game: Sheepshead, seat: int, text: str) -> ErrorCode:
    """The code ``apply`` refuses ``text`` with; asserts the state is exactly as before."""
    before = [game.view(s) for s in (*range(5), None)], list(game.log)
    with pytest.raises(IllegalAction) as info:
        act(game, seat, text)
    assert ([game.view(s) for s in (*range(5), None)], list(game.log)) == before
    return ErrorCode(info.value.code)


def phase(game: Sheepshead) -> str:
    """The phase, read afresh (mypy would narrow ``game.phase`` across applies)."""
    return game.phase


def play_out(game: Sheepshead, seed: int = 0) -> Sheepshead:
    rng = random.Random(seed)
    while not game.is_over():
        (seat,) = game.to_act()
        game.apply(seat, rng.choice(game.legal_actions(seat)))
    return game


# ------------------------------------------------------------------------- SS-10.2 jack of diamonds


def test_jack_of_diamonds_the_holder_partners_and_nothing_is_called() -> None:
    # rule SS-10.2: the picker calls nothing; the JD holder (seat 0) is the partner
    game = dealt(JACK)
    act(game, 1, "pick")
    act(game, 1, "bury 9S TS")
    assert game.phase == "call"
    assert game.legal_actions(1) == [Action("jd_partner"), Action("alone")]
    assert refused(game, 1, "call AH") is ErrorCode.CANNOT_CALL
    events = act(game, 1, "jd_partner")
    assert [e.kind for e in events] == ["called"] and events[0].cards == ()
    assert phase(game) == "play" and game.called is None and game.view(None)["jd_partner"]
    assert game.view(None)["partner"] is None and game.view(0)["you_are_partner"]
    result = play_out(game).outcome()
    assert result is not None and result.partner == 0 and not result.alone
    assert result.units[1] == 2 * result.units[0] and sum(result.units) == 0


def test_jack_of_diamonds_shows_the_partner_when_played() -> None:
    # rule SS-10.2: the partner shows when JD is played
    game = dealt(JACK)
    for text in ("pick", "bury 9S TS", "jd_partner"):
        act(game, 1, text)
    while not game.is_over() and game.view(None)["partner"] is None:
        (seat,) = game.to_act()
        legal = game.legal_actions(seat)
        jd = Action("play", (JD,))
        events = game.apply(seat, jd if jd in legal else legal[-1])
        if jd in legal:
            assert [e.kind for e in events][:2] == ["played", "partner_revealed"]
            assert game.view(None)["partner"] == 0 == seat
            return
    raise AssertionError("JD never played")


@pytest.mark.parametrize("where", ["hand", "buried"])
def test_a_picker_holding_jd_plays_alone_without_saying_so(where: str) -> None:
    # rule SS-10.2: a picker with JD in hand (or buried) is alone, and nobody learns it
    hands = {**HANDS_MAIN, 1: "QC QS JD 9S TS 8S", 0: "JH 7H TD 9D 8D 7D"}
    game = dealt(JACK, hands)
    act(game, 1, "pick")
    act(game, 1, "bury JD TS" if where == "buried" else "bury 9S TS")
    other = dealt(JACK)  # the same table where seat 0 holds JD
    act(other, 1, "pick")
    act(other, 1, "bury 9S TS")
    assert act(game, 1, "jd_partner") == act(other, 1, "jd_partner")
    assert game.partner is None
    for seat in (0, 2, 3, 4, None):
        view = game.view(seat)
        assert not view["alone"] and view["partner"] is None and view["jd_partner"]
        assert not view["you_are_partner"]
    result = play_out(game).outcome()
    assert result is not None and result.alone and result.partner is None
    assert result.units[1] == -4 * result.units[0]
    assert game.view(None)["alone"]  # known at the end


def test_declared_alone_under_the_jack_the_holder_defends() -> None:
    # rule SS-10.2: declared alone (SS-4.4, public), the JD holder defends
    game = dealt(JACK)
    for text in ("pick", "bury 9S TS", "alone"):
        act(game, 1, text)
    assert game.view(None)["alone"] and not game.view(None)["jd_partner"]
    assert not game.view(0)["you_are_partner"]
    result = play_out(game).outcome()
    assert result is not None and result.partner is None
    assert result.units[0] == result.units[2] and result.units[1] == -4 * result.units[0]


def test_jack_of_diamonds_lifts_the_called_suit_obligations() -> None:
    # rule SS-10.2: SS-6 does not apply (the JD holder may throw off anything, lead anything)
    game = dealt(JACK)
    for text in ("pick", "bury 9S TS", "jd_partner"):
        act(game, 1, text)
    (seat,) = game.to_act()
    assert seat == 1
    act(game, 1, "play 7H")  # hearts led: seat 2 has none and may play any card
    assert len(game.legal_actions(2)) == 6


# ------------------------------------------------------------------------- SS-10.3 no pick


def pass_all(game: Sheepshead) -> list[str]:
    kinds: list[str] = []
    while game.phase == "pick":
        (seat,) = game.to_act()
        kinds += [e.kind for e in act(game, seat, "pass")]
    return kinds


def test_doubler_throws_the_hand_in_and_doubles_the_next_up_to_eight() -> None:
    # rule SS-10.3: a thrown-in hand counts as one of ten; x2 each time, capped at x8
    match = SheepsheadMatch(seed=4, options=DOUBLER)
    multipliers = []
    for i in range(HANDS):
        hand = match.current
        multipliers.append(hand.multiplier)
        assert hand.view(None)["multiplier"] == hand.multiplier
        kinds = pass_all(hand)
        assert kinds[-2:] == ["thrown_in", "hand_over"] and hand.is_over()
        result = hand.outcome()
        assert result is not None and result.row == "thrown_in" and result.units == (0,) * 5
        if i < HANDS - 1:
            match.next_game()
    assert multipliers == [1, 2, 4, 8, 8, 8, 8, 8, 8, 8]
    assert match.is_over() and match.totals() == [0] * 5  # the pending x8 is lost


def test_doubler_multiplier_pays_once_then_resets() -> None:
    # rule SS-10.3, SS-10.5: the played hand after a throw-in pays x2, the one after x1
    match = SheepsheadMatch(seed=11, options=DOUBLER)
    pass_all(match.current)
    match.next_game()
    hand = match.current
    assert hand.multiplier == 2 and hand.deal_record()["multiplier"] == 2
    act(hand, hand.to_act()[0], "pick")
    play_out(hand, 3)
    result = hand.outcome()
    assert result is not None and result.multiplier == 2
    assert all(u % 2 == 0 for u in result.units) and sum(result.units) == 0
    assert Sheepshead.replay(hand.deal_record(), hand.log).outcome() == result
    match.next_game()
    assert match.current.multiplier == 1


def test_forced_the_dealer_may_not_pass() -> None:
    # rule SS-10.3: forced, after four passes the dealer must pick
    game = dealt(FORCED)
    for seat in (1, 2, 3, 4):
        act(game, seat, "pass")
    assert game.legal_actions(0) == [Action("pick")]
    assert refused(game, 0, "pass") is ErrorCode.MUST_PICK
    act(game, 0, "pick")
    assert game.picker == 0 and game.phase == "bury"


def test_leaster_is_still_the_default() -> None:
    # rule SS-10.3: no_pick leaster is SS-8
    game = dealt(SheepsheadOptions(crack=True))
    assert pass_all(game)[-1] == "leaster" and game.phase == "play"  # SS-10.4: no crack


# ------------------------------------------------------------------------- SS-10.4 crack


def picked(options: SheepsheadOptions) -> Sheepshead:
    game = dealt(options)
    for text in ("pick", "bury 9S TS", "call AH"):
        act(game, 1, text)
    return game


def test_crack_is_asked_clockwise_from_the_pickers_left_and_the_picker_recracks() -> None:
    # rule SS-10.4: the first crack ends the asking; the picker alone may re-crack
    game = picked(CRACK)
    assert game.phase == "crack" and game.to_act() == (2,)
    assert game.legal_actions(2) == [Action("crack"), Action("no_crack")]
    assert refused(game, 2, "recrack") is ErrorCode.CANNOT_CRACK
    assert refused(game, 1, "crack") is ErrorCode.NOT_YOUR_TURN
    act(game, 2, "no_crack")
    assert [e.kind for e in act(game, 3, "crack")] == ["cracked"]
    assert game.to_act() == (1,) and game.multiplier == 2
    assert game.legal_actions(1) == [Action("recrack"), Action("no_crack")]
    assert refused(game, 1, "crack") is ErrorCode.CANNOT_CRACK
    act(game, 1, "recrack")
    assert phase(game) == "play" and game.to_act() == (1,) and game.multiplier == 4
    view = game.view(4)
    assert (view["cracked"], view["recracked"], view["multiplier"]) == (3, 1, 4)
    result = play_out(game).outcome()
    assert result is not None and result.multiplier == 4 and sum(result.units) == 0
    assert all(u % 4 == 0 for u in result.units)


def test_nobody_cracks_and_play_begins() -> None:
    # rule SS-10.4: four defenders say no, stakes unchanged
    game = picked(CRACK)
    for seat in (2, 3, 4, 0):
        act(game, seat, "no_crack")
    assert game.phase == "play" and game.multiplier == 1 and game.view(None)["cracked"] is None


def test_crack_comes_after_the_jack_choice() -> None:
    # rule SS-10.4: with the jack of diamonds, after the choice between alone and the jack's partner
    game = dealt(SheepsheadOptions(partner="jack_of_diamonds", crack=True))
    for text in ("pick", "bury 9S TS"):
        act(game, 1, text)
    assert refused(game, 2, "crack") is ErrorCode.WRONG_PHASE
    act(game, 1, "jd_partner")
    assert game.phase == "crack" and game.to_act() == (2,)


def test_multipliers_multiply() -> None:
    # rule SS-10.5: a doubler hand (x2) cracked and re-cracked pays x8 its SS-7 amount
    opts = SheepsheadOptions(no_pick="doubler", crack=True)
    game = dealt(opts, multiplier=2)
    plain = dealt(SheepsheadOptions())
    for g in (game, plain):
        for text in ("pick", "bury 9S TS", "call AH"):
            act(g, 1, text)
    act(game, 2, "crack")
    act(game, 1, "recrack")
    assert game.multiplier == 8
    rng_seed = 5
    play_out(plain, rng_seed)
    # the same plays in both hands
    for seat, action in plain.log[3:]:
        game.apply(seat, action)
    a, b = game.outcome(), plain.outcome()
    assert a is not None and b is not None
    assert a.units == tuple(8 * u for u in b.units) and a.multiplier == 8


# ------------------------------------------------------------------------- random option sets

OPTION_SETS = st.builds(
    SheepsheadOptions,
    partner=st.sampled_from(["called_ace", "jack_of_diamonds"]),
    no_pick=st.sampled_from(["leaster", "doubler", "forced"]),
    crack=st.booleans(),
)

KINDS_NO_CARDS = ("pick", "pass", "alone", "jd_partner", "crack", "no_crack", "recrack")


def candidates(game: Sheepshead, seat: int, rng: random.Random) -> set[Action]:
    """Actions worth trying for ``seat``, legal or not."""
    tries = {Action(k) for k in KINDS_NO_CARDS}
    tries |= {Action("play", (c,)) for c in DECK32}
    tries |= {Action("call", (c,)) for c in rng.sample(DECK32, 4)}
    hand = game.hand(seat)
    tries |= {Action("bury", p) for p in list(combinations(sorted(hand), 2))[:3]}
    if hand:  # empty when the picker has only the unknown card left (rule SS-4.3)
        tries.add(Action("bury", (hand[0], next(c for c in DECK32 if c not in hand))))
    tries |= {Action("crack", (parse_card("AH"),)), Action("pick", (JD,))}
    return tries


def check_step(game: Sheepshead, rng: random.Random) -> None:
    (seat,) = game.to_act()
    legal = game.legal_actions(seat)
    assert legal and all(game.legal_actions(s) == [] for s in range(5) if s != seat)
    for action in candidates(game, seat, rng) | set(legal):
        trial = game.clone()
        try:
            trial.apply(seat, action)
        except IllegalAction:
            assert action not in legal, action
            assert trial.view(None) == game.view(None) and trial.log == game.log
        else:
            assert action in legal or action.kind == "bury", action
    other = (seat + 1) % 5
    with pytest.raises(IllegalAction):
        game.clone().apply(other, legal[0])


@pytest.mark.slow
@settings(max_examples=30, deadline=None)
@given(options=OPTION_SETS, seed=st.integers(0, 2**32 - 1), pick=st.sampled_from([0.0, 0.15, 0.5]))
# a picker left holding only the unknown card (an empty hand) while to act
@example(options=SheepsheadOptions(partner="called_ace", no_pick="forced"), seed=32487359, pick=0.0)
def test_random_matches_under_random_house_rules(
    options: SheepsheadOptions, seed: int, pick: float
) -> None:
    # rule SS-10.1, SS-10.2, SS-10.3, SS-10.4, SS-10.5: legal accepted, others refused,
    # each hand and the match sum to zero, the deal record replays each hand
    rng = random.Random(seed)
    match = SheepsheadMatch(seed=seed, options=options)
    for i in range(HANDS):
        hand = match.current
        assert hand.options == options
        while not hand.is_over():
            if rng.random() < 0.3:
                check_step(hand, rng)
            (seat,) = hand.to_act()
            legal = hand.legal_actions(seat)
            if hand.phase == "pick" and len(legal) == 2:
                action = legal[0] if rng.random() < pick else legal[1]
            else:
                action = rng.choice(legal)
            hand.apply(seat, action)
        result = hand.outcome()
        assert result is not None and sum(result.units) == 0
        assert result.multiplier == hand.multiplier
        assert all(u % result.multiplier == 0 for u in result.units)
        if options.no_pick != "leaster":
            assert not result.leaster
        if options.no_pick != "doubler":
            assert result.row != "thrown_in" and hand.base_multiplier == 1
        if not options.crack or result.leaster:
            assert hand.multiplier == hand.base_multiplier
        again = Sheepshead.replay(hand.deal_record(), hand.log)
        assert again.outcome() == result
        assert all(again.view(s) == hand.view(s) for s in (*range(5), None))
        if i < HANDS - 1:
            match.next_game()
    assert match.is_over() and sum(match.totals()) == 0


def test_a_daily_match_refuses_house_rules() -> None:
    # rule SS-10.1: a daily match always uses the defaults
    with pytest.raises(ValueError, match="default rules"):
        SheepsheadMatch(daily=datetime.date(2026, 1, 1), decks=lambda i: DECK32, options=CRACK)


def test_default_options_leave_the_deal_record_as_before() -> None:
    # rule SS-10.1: the defaults are SS-1 … SS-9, and a default hand's record is unchanged
    game = Sheepshead.new(5, 0, seed=1)
    assert game.deal_record()["options"] == {} and "multiplier" not in game.deal_record()
    opts = Sheepshead.new(5, 0, seed=1, options={"partner": "jack_of_diamonds"})
    assert opts.deal_record()["options"] == {"partner": "jack_of_diamonds"}
    assert Sheepshead.from_deal_record(opts.deal_record()).options == JACK
