"""Sheepshead property tests over thousands of random hands: every invariant at every step."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.cards import CODES, parse_card
from protocol.messages import SheepsheadOptions
from server.rules.base import Action
from server.rules.sheepshead import Sheepshead
from server.rules.sheepshead_cards import DECK32, POINTS
from server.tools.sim.sheepshead import format_summary, main, play_random_hand, simulate
from tests.support.shithead import codes_in

CODE_SET = set(CODES)


def secrets(game: Sheepshead) -> tuple[set[int], int | None]:
    """The picker's secret cards so far (blind once picked, buried) and the unknown card."""
    unknown = None
    for _, action in game.log:
        if action.kind == "call_unknown":
            unknown = action.cards[1]
    picker = game.picker
    hidden: set[int] = set()
    if picker is not None:
        places = game.card_places()
        hidden = {c for c, p in places.items() if p == "buried"}
        deck = [parse_card(c) for c in game.deal_record()["deck"]]
        played = {c for c, p in places.items() if p == "trick" or p.startswith("won:")}
        hidden |= set(deck[30:]) - played
    return hidden, unknown


def check_views(game: Sheepshead) -> None:
    places = game.card_places()
    assert sorted(places) == list(DECK32)  # every card in exactly one place
    if game.is_over():
        return
    hidden, unknown = secrets(game)
    played = {c for c, p in places.items() if p == "trick" or p.startswith("won:")}
    public = played - ({unknown} if unknown is not None else set())
    if game.called is not None:
        public.add(game.called)
    for seat in (*range(5), None):
        allowed = set(public)
        if seat is not None:
            allowed |= {c for c, p in places.items() if p == f"hand:{seat}"}
            if seat == game.picker:
                allowed |= hidden | ({unknown} if unknown is not None else set())
            # Cards named by the seat's own legal actions (e.g. the aces it may call).
            allowed |= {c for a in game.legal_actions(seat) for c in a.cards}
        seen = {parse_card(c) for c in codes_in(game.view(seat))}
        assert seen <= allowed, (seat, sorted(CODES[c] for c in seen - allowed))


def play_checked(
    seed: int, dealer: int, pick_prob: float, options: SheepsheadOptions | None = None
) -> Sheepshead:
    rng = random.Random(seed)
    deck = list(DECK32)
    rng.shuffle(deck)
    game = Sheepshead.new(5, dealer, deck=deck, options=options)
    while not game.is_over():
        check_views(game)
        (seat,) = game.to_act()
        legal = game.legal_actions(seat)
        assert legal and all(game.legal_actions(s) == [] for s in range(5) if s != seat)
        if game.phase == "pick" and len(legal) == 2:
            action = Action("pick") if rng.random() < pick_prob else Action("pass")
        else:
            action = rng.choice(legal)
        events = game.apply(seat, action)
        public = {c for e in events if e.kind != "hand_over" for c in e.cards}
        if action.kind == "play" and not (events[0].data or {}).get("face_down"):
            assert public >= set(action.cards)
        hidden, unknown = secrets(game)
        assert not public & (hidden - {game.called}), "an event showed a hidden card"
        if unknown is not None:
            assert unknown not in public
    check_views(game)
    return game


def check_result(game: Sheepshead) -> None:
    result = game.outcome()
    assert result is not None
    assert sum(result.units) == 0
    if result.leaster:
        blind = sum(POINTS[c] for c in result.blind)
        assert sum(result.seat_points) + blind == 120
    else:
        buried = sum(POINTS[c] for c in result.buried)
        assert sum(result.seat_points) + buried == 120
        assert result.picker_points + result.defender_points == 120
    assert sum(result.seat_tricks) == 6
    # Replay from the deal record and the action log rebuilds the same state.
    again = Sheepshead.replay(game.deal_record(), game.log)
    assert again.outcome() == result
    assert all(again.view(s) == game.view(s) for s in (*range(5), None))


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    dealer=st.integers(0, 4),
    pick_prob=st.sampled_from([0.0, 0.2, 0.5, 1.0]),
)
def test_random_hands_keep_every_invariant_at_every_step(
    seed: int, dealer: int, pick_prob: float
) -> None:
    # rule SS-2.1, SS-5.2, SS-7.5, SS-8.2
    for k in range(3):
        check_result(play_checked(seed + k, dealer, pick_prob))


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    dealer=st.integers(0, 4),
    pick_prob=st.sampled_from([0.0, 0.3, 1.0]),
    partner=st.sampled_from(["called_ace", "jack_of_diamonds"]),
    no_pick=st.sampled_from(["leaster", "doubler", "forced"]),
    crack=st.booleans(),
)
def test_no_view_or_event_shows_a_hidden_card_under_any_house_rules(
    seed: int, dealer: int, pick_prob: float, partner: str, no_pick: str, crack: bool
) -> None:
    # rule SS-10.6, SS-10.1: the card-leak checks of every step, with random house rules
    options = SheepsheadOptions.model_validate(
        {"partner": partner, "no_pick": no_pick, "crack": crack}
    )
    game = play_checked(seed, dealer, pick_prob, options)
    result = game.outcome()
    assert result is not None and sum(result.units) == 0
    for seat in (*range(5), None):
        assert game.view(seat)["options"] == options.model_dump()
    if result.row != "thrown_in":
        check_result(game)


@pytest.mark.slow
@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_thousands_of_hands_zero_sum_and_all_points_accounted(seed: int) -> None:
    # rule SS-7.4, SS-1.4
    rng = random.Random(seed)
    for i in range(150):
        game, actions = play_random_hand(rng, i % 5, pick_prob=0.3)
        assert actions >= 33  # a pick, a bury, a call and 30 plays at least
        result = game.outcome()
        assert result is not None and sum(result.units) == 0
        total = sum(result.seat_points) + sum(POINTS[c] for c in result.buried)
        if result.leaster:
            total += sum(POINTS[c] for c in result.blind)
        assert total == 120
        places = game.card_places()
        assert len(places) == 32


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), cut=st.integers(0, 40))
def test_clone_is_independent_and_replay_matches_midway(seed: int, cut: int) -> None:
    # rule SS-5.1
    rng = random.Random(seed)
    game, _ = play_random_hand(rng, seed % 5)
    partial = Sheepshead.replay(game.deal_record(), game.log[:cut])
    copy = partial.clone()
    before = [partial.view(s) for s in (*range(5), None)]
    while not copy.is_over():
        (seat,) = copy.to_act()
        copy.apply(seat, copy.legal_actions(seat)[0])
    assert [partial.view(s) for s in (*range(5), None)] == before
    assert partial.log == game.log[:cut]


def test_simulation_summary() -> None:
    # rule SS-3.3
    summary = simulate(hands=300, seed=3, pick_prob=0.35)
    assert summary["hands"] == 300 and sum(summary["total_units"]) == 0
    assert 0 < summary["leaster_rate"] < 1 and summary["pick_rate"] + summary["leaster_rate"] == 1
    # P(all five pass) = 0.65 ** 5 ~ 0.116
    assert 0.05 < summary["leaster_rate"] < 0.2
    text = format_summary(summary)
    assert "pick rate" in text and "leaster rate" in text and "average units by seat" in text
    assert simulate(hands=50, seed=3, pick_prob=0.0)["leaster_rate"] == 1.0


def test_sim_main_prints_summary(capsys: Any) -> None:
    # rule SS-3.3
    assert main(["--hands", "40", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert "40 hands" in out and "leaster rate" in out
