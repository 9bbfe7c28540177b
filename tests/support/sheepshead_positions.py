"""Sheepshead positions: in the middle of a hand, for the strong bot's search tests; a hand-made
called-ace hand with its tricks, for the conventions' counts and the searching bots' leads."""

from __future__ import annotations

from protocol.messages import SheepsheadOptions
from server.bots import make_bot
from server.rules.base import Action
from server.rules.sheepshead import Sheepshead
from tests.rules.ss_helpers import deck_for

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


# Dealer 0: seat 1 leads trick 1. Seat 2 picks the blind KD 9D, buries it and calls AH (holding
# 7H); seat 4 holds AH, so it is the partner; seats 0, 1, 3 defend.
HANDS = {
    1: "JD 7C 8C 9C KS 8S",
    2: "QS QH JS 7H AD TD",
    3: "QD JC 9S TS AS 7S",
    4: "AH QC JH 8D 7D KC",
    0: "AC TC 8H 9H TH KH",
}
BLIND = "KD 9D"
# Trick by trick, from its leader.
TRICKS = [
    "JD QS JC QC 8H",  # 1: seat 1 (defender) leads trump; the partner's QC wins
    "JH 9H 7C AD QD",  # 2: the partner (not yet known) leads trump; the picker schmears AD
    "AS 8D KH 8S QH",  # 3: the partner trumps the defender's AS, the picker's QH wins
    "7H 7S AH TH KS",  # 4: the picker leads the called suit; the partner must play AH (SS-6.2)
    "7D TC 9C TD 9S",  # 5: the partner, known now, leads trump; the picker schmears TD
    "JS TS KC AC 8C",  # 6: the picker's last card
]


def called_ace_hand(
    options: SheepsheadOptions | None = None,
    call: str = "call AH",
    swap: dict[int, str] | None = None,
) -> Sheepshead:
    """The hand above after the bidding (``call``: the picker's call), nobody cracking: seat 1,
    a defender, on lead to trick 1. ``swap``: other hands for some seats (the same cards in
    all, the blind kept)."""
    game = Sheepshead.new(5, 0, deck=deck_for({**HANDS, **(swap or {})}, BLIND), options=options)
    for seat, text in [(1, "pass"), (2, "pick"), (2, "bury KD 9D"), (2, call)]:
        game.apply(seat, Action.from_str(text))
    while game.phase == "crack":  # SS-10.4: nobody cracks
        game.apply(game.to_act()[0], Action("no_crack"))
    return game
