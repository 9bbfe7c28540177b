"""SS-10.2 / SS-10.6: with the jack-of-diamonds partner, no view but the holder's own tells who
holds JD before it is played.

The test is a counterfactual: take a random hand, move JD to another seat the viewer cannot see
into (exchanging it with a card of that seat's, the picker's buried pair included), replay the
same actions, and require the viewer's views and the events to be identical at every step until
either card is played. Any field, event or legal-action difference that depended on where JD is
would make the two differ.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.messages import SheepsheadOptions
from protocol.views import EventWire, SheepsheadView
from server.rules.base import Action, IllegalAction
from server.rules.sheepshead import Sheepshead
from server.rules.sheepshead_cards import DECK32, JD


def views_until(
    deck: list[int],
    dealer: int,
    options: SheepsheadOptions,
    log: list[tuple[int, Action]],
    viewer: int | None,
    cards: tuple[int, int],
) -> tuple[list[SheepsheadView], list[list[EventWire]]]:
    """``viewer``'s view before each step, and each step's events, until a step that plays one
    of ``cards`` or ends the hand (that step's view included, its events not)."""
    game = Sheepshead.new(5, dealer, deck=deck, options=options)
    views: list[SheepsheadView] = []
    events: list[list[EventWire]] = []
    for seat, action in log:
        views.append(game.view(viewer))
        if action.kind == "play" and action.cards[0] in cards:
            break
        try:
            step = [e.to_json() for e in game.apply(seat, action)]
        except IllegalAction:
            # the moved cards changed a hidden seat's own legal set: compared up to here
            views.pop()
            break
        if game.is_over():
            break  # the end shows everything (SS-10.2: "or the hand ends")
        events.append(step)
    return views, events


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    no_pick=st.sampled_from(["leaster", "doubler", "forced"]),
    crack=st.booleans(),
    choose_alone=st.sampled_from([0.0, 0.3]),
)
def test_nobody_else_can_tell_who_holds_the_jack_of_diamonds(
    seed: int, no_pick: str, crack: bool, choose_alone: float
) -> None:
    # rule SS-10.2, SS-10.6: no field, event or legal action shows who holds JD before it is
    # played, to any seat but the holder (the picker included) or a spectator
    options = SheepsheadOptions.model_validate(
        {"partner": "jack_of_diamonds", "no_pick": no_pick, "crack": crack}
    )
    rng = random.Random(seed)
    deck = list(DECK32)
    rng.shuffle(deck)
    dealer = seed % 5
    game = Sheepshead.new(5, dealer, deck=deck, options=options)
    while not game.is_over():
        (seat,) = game.to_act()
        legal = game.legal_actions(seat)
        if game.phase == "pick" and len(legal) == 2:
            action = legal[0] if rng.random() < 0.4 else legal[1]
        elif game.phase == "call":
            action = legal[1] if rng.random() < choose_alone else legal[0]
        else:
            action = rng.choice(legal)
        game.apply(seat, action)
    log = list(game.log)
    picker = game.picker
    blind = set(deck[30:])
    hands = [set(deck[6 * i : 6 * i + 6]) for i in range(5)]
    owner = {c: (dealer + 1 + i) % 5 for i in range(5) for c in deck[6 * i : 6 * i + 6]}
    compared = 0
    for viewer in (*range(5), None):

        def visible(c: int, viewer: int | None = viewer) -> bool:
            """Whether the viewer ever sees ``c`` in its own hand or the blind."""
            if viewer is None:
                return False
            seen = hands[(viewer - dealer - 1) % 5]
            return c in seen or (viewer == picker and c in blind)

        if visible(JD):
            continue
        others = [c for c in DECK32 if c != JD and not visible(c)]
        for x in rng.sample(others, min(4, len(others))):
            if owner.get(x, -1) == owner.get(JD, -1) and x not in blind and JD not in blind:
                continue  # the same seat: nothing moves
            swapped = [JD if c == x else x if c == JD else c for c in deck]
            a = views_until(deck, dealer, options, log, viewer, (JD, x))
            b = views_until(swapped, dealer, options, log, viewer, (JD, x))
            n = min(len(a[0]), len(b[0]))
            assert a[0][:n] == b[0][:n], (viewer, x)
            m = min(len(a[1]), len(b[1]), n)
            assert a[1][:m] == b[1][:m], (viewer, x)
            compared += n
    assert compared > 0


def test_the_holders_own_view_knows() -> None:
    # rule SS-10.2: the holder (and only the holder) knows from their hand
    options = SheepsheadOptions(partner="jack_of_diamonds")
    for seed in range(40):
        game = Sheepshead.new(5, 0, seed=seed, options=options)
        (seat,) = game.to_act()
        game.apply(seat, Action("pick"))
        game.apply(seat, game.legal_actions(seat)[0])
        game.apply(seat, Action("jd_partner"))
        holder = game.partner
        if holder is None:
            continue
        assert game.view(holder)["you_are_partner"]
        assert not any(game.view(s)["you_are_partner"] for s in range(5) if s != holder)
        return
    raise AssertionError("no hand with a partner in 40 seeds")
