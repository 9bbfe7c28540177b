"""Two fixed Shithead policies that pass the pile back and forth until the length cap
(rule SH-6.6)."""

from __future__ import annotations

from server.rules.base import Action
from server.rules.shithead import Shithead
from tests.rules.sh_helpers import all_ready

ORDER = "3456789JQKA2T"


def _by_order(action: Action) -> int:
    return ORDER.index(action.to_str().split()[1][0])


def lowest(game: Shithead, seat: int) -> Action:
    """A fixed policy: its lowest play (several of a rank at once), else what it must do."""
    legal = game.legal_actions(seat)
    plays = [a for a in legal if a.kind == "play"]
    return min(plays, key=lambda a: (_by_order(a), -len(a.cards))) if plays else legal[0]


def highest(game: Shithead, seat: int) -> Action:
    """A fixed policy: its highest ordinary play (never a 2 or a 10), else what it must do."""
    legal = game.legal_actions(seat)
    plays = [a for a in legal if a.kind == "play" and _by_order(a) < ORDER.index("2")]
    return max(plays, key=lambda a: (_by_order(a), -len(a.cards))) if plays else legal[0]


def looping() -> Shithead:
    game = Shithead.new(2, dealer=0, seed=0)
    all_ready(game)
    return game


def play_out(game: Shithead) -> Shithead:
    """Play ``game`` to its end, seat 0 by :func:`lowest`, seat 1 by :func:`highest`."""
    policies = (lowest, highest)
    while not game.is_over():
        game.apply(game.turn, policies[game.turn](game, game.turn))
    return game
