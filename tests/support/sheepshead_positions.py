"""Sheepshead positions in the middle of a hand, for the strong bot's search tests."""

from __future__ import annotations

from server.bots import make_bot
from server.rules.sheepshead import Sheepshead

#: Recorded before the speed work: strong (30 playouts a card, the leaster budget as then) on
#: the picker's hands of ``mid_hand_views(10, plays)`` for plays 2, 7, 13 and 19.
PICKER_HANDS_BEFORE = "9H 9C AD JS TS 7H 7C 8C JC AD TD KD TD 9D 8H 7H"


def mid_hand_views(games: int, plays: int) -> list[tuple[Sheepshead, int]]:
    """Games between five ``basic`` bots stopped after ``plays`` cards (picker's hands only, no
    unknown-card call), with the seat to play next."""
    out = []
    for i in range(games):
        g = Sheepshead.new(5, i % 5, seed=500 + i)
        bots = [make_bot("basic", "sheepshead", seed=s) for s in range(5)]
        played = 0
        while not g.is_over() and played < plays:
            seat = g.to_act()[0]
            if g.phase == "play":
                played += 1
            g.apply(seat, bots[seat].choose(g.view(seat)))
        if g.is_over() or g.picker is None or g.unknown_card is not None:
            continue
        out.append((g, g.to_act()[0]))
    return out
