"""The exact-legal-moves view contract, over many random games of both games.

A seat's view lists in ``legal`` every action it may send except multi-card plays, which
Shithead's ``play_sets`` describe exactly (any non-empty subset of one set); Sheepshead's
``bury_from`` describes the bury pairs. Each check asks ``apply`` on a clone, so the view and the
rules core cannot drift apart.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.cards import parse_cards
from protocol.views import View
from server.rules.base import Action, Game, IllegalAction
from server.rules.sheepshead import Sheepshead
from server.rules.sheepshead_cards import DECK32
from server.rules.shithead import Shithead
from tests.support.shithead import random_game


def accepted(game: Game, seat: int, action: Action) -> bool:
    """Whether ``apply`` takes ``action`` (tried on a clone: the game itself is untouched)."""
    try:
        game.clone().apply(seat, action)
    except IllegalAction:
        return False
    return True


def legal_of(view: View) -> set[Action]:
    return {Action.from_json(a) for a in view["legal"]}


# ---------------------------------------------------------------------------------- Shithead


def shithead_candidates(game: Shithead, seat: int) -> set[Action]:
    """Every non-play action worth trying for ``seat``: legal or not."""
    own = game.hands[seat] + game.face_up[seat]
    other = [c for c in range(52) if c not in own][:3]  # a few cards the seat does not hold
    tries = {Action("ready"), Action("pickup")}
    tries |= {Action("swap", (h, u)) for h in own + other for u in own + other if h != u}
    tries |= {Action("pickup", (c,)) for c in own + other}
    tries |= {Action("flip", (), s) for s in range(4)}
    return tries


def check_shithead_view(game: Shithead, seat: int) -> None:
    view = game.view(seat)
    sets = [parse_cards(s) for s in view["play_sets"]]
    legal = legal_of(view)
    own = set(game.hands[seat]) | set(game.face_up[seat])
    covered: set[int] = set()
    for cards in sets:
        assert cards and len({c >> 2 for c in cards}) == 1  # one rank per set
        assert set(cards) <= own  # never another seat's card (nor a hidden one)
        covered |= set(cards)
        for k in range(1, len(cards) + 1):
            for subset in combinations(cards, k):
                assert accepted(game, seat, Action("play", subset)), subset
            # legal keeps at least one representative per rank and count
            assert any(
                a.kind == "play" and len(a.cards) == k and a.cards[0] >> 2 == cards[0] >> 2
                for a in legal
            )
    for c in range(52):
        if c not in covered:
            assert not accepted(game, seat, Action("play", (c,))), c
    for a, b in combinations(sets, 2):
        assert not accepted(game, seat, Action("play", (a[0], b[0])))  # one set at a time
    for action in legal:
        if action.kind == "play":
            assert any(set(action.cards) <= set(s) for s in sets), action
    # every other action is listed exactly: accepted if and only if listed
    for action in shithead_candidates(game, seat):
        assert accepted(game, seat, action) == (action in legal), action


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(players=st.integers(2, 5), seed=st.integers(0, 2**32))
def test_shithead_view_lists_legal_moves_exactly(players: int, seed: int) -> None:
    # rule SH-2.3, SH-4.1, SH-4.2, SH-5.1, SH-5.2, SH-5.4: the view's legal moves are exact.
    rng = random.Random(seed)
    for step, game in enumerate(random_game(players, seed)):
        if step % 3 and not game.is_over():
            continue
        spectator = game.view(None)
        assert spectator["legal"] == [] and spectator["play_sets"] == []
        acting = game.to_act()
        for seat in range(players):
            if seat in acting:
                check_shithead_view(game, seat)
            elif rng.random() < 0.3:
                view = game.view(seat)
                assert view["play_sets"] == [] and view["legal"] == []


def test_shithead_play_sets_from_a_known_position() -> None:
    # rule SH-4.1, SH-4.2: on a 7 only 7s and higher, 2s and 10s go; sets group by rank.
    g = Shithead.from_position(
        hands=["7C 7H 5D 2S TD KH", "9C"],
        face_up=["", ""],
        face_down=["4C", "9D"],
        pile="7D",
        turn=0,
    )
    assert g.view(0)["play_sets"] == [["7C", "7H"], ["KH"], ["2S"], ["TD"]]
    assert g.view(1)["play_sets"] == []
    # rule SH-5.2: from the face-up cards with a legal play, a pick-up adds any face-up card.
    g = Shithead.from_position(
        hands=["", "9C"], face_up=["8C 8H 3D", "5C"], face_down=["4C", "9D"], pile="7D", turn=0
    )
    view = g.view(0)
    assert view["play_sets"] == [["8C", "8H"]]
    pickups = [a for a in view["legal"] if a["kind"] == "pickup"]
    assert sorted(a["cards"][0] for a in pickups) == ["3D", "8C", "8H"]


def test_shithead_swap_phase_lists_every_pair() -> None:
    # rule SH-2.3: any hand card may be swapped with any face-up card.
    game = Shithead.new(3, 0, seed=11)
    view = game.view(1)
    swaps = {tuple(a["cards"]) for a in view["legal"] if a["kind"] == "swap"}
    hand, up = view["hand"] or [], view["seats"][1]["face_up"]
    assert swaps == {(h, u) for h in hand for u in up}
    assert view["play_sets"] == []


# ---------------------------------------------------------------------------------- Sheepshead


ACES_TENS = parse_cards("AC AS AH TC TS TH")


def sheepshead_candidates(game: Sheepshead, seat: int) -> set[Action]:
    phase = game.phase
    if phase == "pick":
        return {Action("pick"), Action("pass"), Action("alone")}
    if phase == "bury":
        return {Action("bury", p) for p in combinations(sorted(DECK32), 2)} | {Action("pick")}
    if phase == "call":
        hand = game.hand(seat)
        tries = {Action("call", (c,)) for c in DECK32} | {Action("alone")}
        tries |= {Action("call_unknown", (a, c)) for a in ACES_TENS for c in [*hand, DECK32[0]]}
        return tries
    return {Action("play", (c,)) for c in DECK32} | {Action("pass")}


def random_hands(seed: int) -> Iterator[Sheepshead]:
    rng = random.Random(seed)
    game = Sheepshead.new(5, rng.randrange(5), seed=seed)
    pick_prob = rng.choice([0.0, 0.3, 0.9])
    yield game
    while not game.is_over():
        (seat,) = game.to_act()
        legal = game.legal_actions(seat)
        if game.phase == "pick":
            action = legal[0] if rng.random() < pick_prob else legal[1]
        else:
            action = rng.choice(legal)
        game.apply(seat, action)
        yield game


@pytest.mark.slow
@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**32))
def test_sheepshead_view_lists_legal_moves_exactly(seed: int) -> None:
    # rule SS-3.1, SS-3.2, SS-4.1, SS-4.2, SS-4.3, SS-4.4, SS-5.2, SS-6.1: every action exact.
    for game in random_hands(seed):
        assert game.view(None)["bury_from"] == [] and game.view(None)["legal"] == []
        acting = game.to_act()
        for seat in range(5):
            view = game.view(seat)
            if seat not in acting:
                assert view["legal"] == [] and view["bury_from"] == []
                continue
            legal = legal_of(view)
            for action in sheepshead_candidates(game, seat):
                assert accepted(game, seat, action) == (action in legal), action
            bury_from = parse_cards(view["bury_from"])
            if game.phase == "bury":
                assert set(bury_from) == set(game.hand(seat))  # own cards only
                # any two distinct cards of bury_from are a legal bury, and nothing else is
                pairs = {frozenset(a.cards) for a in legal}
                assert pairs == {frozenset(p) for p in combinations(bury_from, 2)}
            else:
                assert bury_from == []
