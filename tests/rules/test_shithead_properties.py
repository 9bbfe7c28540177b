"""Shithead property tests over many random games: cards conserved, views never leak, games
are deterministic and replayable, and arbitrary actions are either legal or change nothing."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.cards import card_codes
from server.rules.base import Action, IllegalAction
from server.rules.shithead import Ending, Shithead
from tests.support.shithead import (
    MAX_ACTIONS,
    choose,
    codes_in,
    legal_or_unchanged,
    random_game,
    visible_to,
)

pytestmark = pytest.mark.slow


def play_out(players: int, seed: int, stop: int = MAX_ACTIONS) -> Shithead:
    """The state of a random game after ``stop`` actions (or at its end)."""
    states = random_game(players, seed)
    game = next(states)
    for i, game in enumerate(states, 1):  # noqa: B007 - the last state is the result
        if i >= stop:
            break
    return game


def all_cards(game: Shithead) -> list[int]:
    cards = [*game.stock, *game.pile, *game.burned]
    for s in range(game.num_players):
        cards += game.hands[s] + game.face_up[s] + [c for c in game.face_down[s] if c is not None]
    return cards


def check_no_leak(game: Shithead) -> None:
    for viewer in [None, *range(game.num_players)]:
        view = game.view(viewer)
        leaked = codes_in(view) - visible_to(game, viewer)
        assert not leaked, f"view of {viewer} shows hidden {leaked}"


def shuffled_hidden(game: Shithead, viewer: int | None, rng: random.Random) -> Shithead:
    """A copy with every card hidden from ``viewer`` dealt again among the hidden places."""
    other = game.clone()
    places: list[tuple[list[Any], int]] = []
    for s in range(other.num_players):
        if s != viewer:
            known = list(other.known[s])
            for i, c in enumerate(other.hands[s]):
                if c in known:
                    known.remove(c)
                else:
                    places.append((other.hands[s], i))
        for slot, down in enumerate(other.face_down[s]):
            if down is not None:
                places.append((other.face_down[s], slot))
    places += [(other.stock, i) for i in range(len(other.stock))]
    values = [where[i] for where, i in places]
    rng.shuffle(values)
    for (where, i), value in zip(places, values, strict=True):
        where[i] = value
    return other


@settings(max_examples=400)
@given(players=st.integers(2, 5), seed=st.integers(0, 2**32))
def test_cards_conserved_and_views_never_leak(players: int, seed: int) -> None:
    # rule SH-2.2, SH-4.7: all 52 cards are always somewhere, exactly once.
    rng = random.Random(seed)
    for step, game in enumerate(random_game(players, seed)):
        cards = all_cards(game)
        assert sorted(cards) == list(range(52))
        for s in range(players):
            for c in game.known[s]:
                assert c in game.hands[s]
        if step % 7 == 0 or game.is_over():
            check_no_leak(game)
            viewer = rng.choice([None, *range(players)])
            # the view is a function of what the viewer may know: re-dealing the hidden cards
            # changes nothing in it
            assert shuffled_hidden(game, viewer, rng).view(viewer) == game.view(viewer)


@settings(max_examples=1000)
@given(players=st.integers(2, 5), seed=st.integers(0, 2**32))
def test_a_thousand_games_deterministic_and_replayable(players: int, seed: int) -> None:
    # rule SH-6.4: every finished game has exactly one loser and never ends in a draw.
    # rule SH-2.2: the same seed deals the same game; the same deck and actions replay it.
    assert (
        Shithead.new(players, 0, seed=seed).snapshot()
        == Shithead.new(players, 0, seed=seed).snapshot()
    )
    game = play_out(players, seed)
    rebuilt = Shithead.replay(game.deal_record(), game.log)
    assert rebuilt.snapshot() == game.snapshot()
    if game.is_over():
        outcome = game.outcome()
        assert outcome is not None
        if outcome.ended is Ending.LAST_PLAYER:
            assert len(outcome.out_order) == players - 1
        else:  # rule SH-6.6: capped with two or more players still holding cards
            assert len(outcome.out_order) < players - 1
        assert outcome.loser not in outcome.out_order
        assert game.holds_cards(outcome.loser)
        assert sum(outcome.scores) == 1


actions = st.builds(
    Action,
    kind=st.sampled_from(["play", "pickup", "flip", "swap", "ready", "burn", ""]),
    cards=st.lists(st.integers(0, 51), max_size=4).map(tuple),
    slot=st.integers(-1, 4),
)


@settings(max_examples=300)
@given(
    players=st.integers(2, 5),
    seed=st.integers(0, 2**32),
    stop=st.integers(0, 400),
    tries=st.lists(st.tuples(st.integers(-1, 5), actions), min_size=1, max_size=30),
)
def test_any_action_is_legal_or_changes_nothing(
    players: int, seed: int, stop: int, tries: list[tuple[int, Action]]
) -> None:
    game = play_out(players, seed, stop)
    for seat, action in tries:
        legal_or_unchanged(game, seat, action)


@settings(max_examples=300)
@given(
    data=st.one_of(
        st.none(),
        st.integers(),
        st.text(),
        st.lists(st.text()),
        st.dictionaries(
            st.sampled_from(["kind", "cards", "slot", "extra"]),
            st.one_of(st.text(), st.integers(), st.lists(st.text()), st.none(), st.booleans()),
        ),
    )
)
def test_malformed_payloads_are_refused_with_a_code(data: object) -> None:
    try:
        action = Action.from_json(data)
    except IllegalAction as exc:
        assert exc.code == "malformed_action"
    else:
        assert Action.from_json(action.to_json()) == action
        game = Shithead.new(3, 0, seed=1)
        before = game.snapshot()
        try:
            game.apply(0, action)
        except IllegalAction:
            assert game.snapshot() == before


@settings(max_examples=200)
@given(players=st.integers(2, 5), seed=st.integers(0, 2**32))
def test_events_show_only_public_cards(players: int, seed: int) -> None:
    # Events go to every seat and spectator: a card in one is face up (pile, table, burned
    # after being played) or known to be in a hand; a draw names no card.
    rng = random.Random(seed)
    game = Shithead.new(players, rng.randrange(players), seed=seed)
    for _ in range(MAX_ACTIONS):
        if game.is_over():
            break
        acting = game.to_act()
        seat = acting[rng.randrange(len(acting))]
        events = game.apply(seat, choose(game, seat, rng))
        public = visible_to(game, None) | set(card_codes(game.burned))
        for event in events:
            assert set(card_codes(event.cards)) <= public, event
            if event.kind == "drew":
                assert event.cards == () and event.data is not None
                assert event.data == {"count": event.data["count"]}


def test_games_that_hit_the_action_cap_are_counted_not_hidden() -> None:
    # rule SH-6.4, SH-6.6: a finished game always has its loser; random play that cycles is
    # ended by the rules' own length cap, so the simulation's cap is never reached.
    from server.tools.sim.shithead import simulate

    summary = simulate(4, 300, seed=5, policy="random", max_actions=20_000)
    assert summary.capped == 0
    assert sum(summary.losses) == summary.games
