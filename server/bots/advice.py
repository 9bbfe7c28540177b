"""What a hint's search found, so its reason can name the facts and the figures that decided it.

A hint follows the rule of thumb (the ``basic`` heuristic's play, "the usual play") unless the
``strong`` bot's playouts put another action clearly ahead: by at least :data:`HINT_MARGIN` of
losing chance. A player learning the game then meets the conventions, and the exceptions only
where they matter, each named with its figures (``server.bots.reasons``).

>>> from server.rules.base import Action
>>> a = Advice(Action.from_str("play 4C"), ((Action.from_str("play 4C"), 0.30),))
>>> a.loss(Action.from_str("play 4C")), a.loss(Action.from_str("pickup"))
(0.3, None)
"""

from __future__ import annotations

from dataclasses import dataclass

from server.rules.base import Action

#: How much lower a chance of losing must be before a hint departs from the usual play: about
#: twice the noise of the difference between two candidates at the hint's playout budget.
HINT_MARGIN = 0.05


@dataclass(frozen=True, slots=True)
class Advice:
    """The usual play and each compared action's estimated chance of losing (0..1)."""

    usual: Action
    losses: tuple[tuple[Action, float], ...] = ()

    def loss(self, action: Action) -> float | None:
        return next((v for a, v in self.losses if a == action), None)

    def settle(self, chosen: Action) -> Action:
        """``chosen``, or the usual play when the playouts do not put ``chosen`` clearly ahead."""
        mine, usual = self.loss(chosen), self.loss(self.usual)
        if chosen == self.usual or mine is None or usual is None:
            return chosen
        return chosen if usual - mine >= HINT_MARGIN else self.usual
