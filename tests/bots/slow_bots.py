"""Bots the tests inject into the pool's workers (``BotPool(factories=...)``): deterministic,
and slow, hung or dying on purpose."""

from __future__ import annotations

import os
import time

from protocol.views import View
from server.bots.shithead_strong import ShitheadStrongBot
from server.rules.base import Action

#: Seconds :class:`SlowBot` takes per decision: only the order of decisions is asserted.
SLOW_SECONDS = 0.05


class SlowBot:
    """The first legal action (ready in a swap phase), after :data:`SLOW_SECONDS`."""

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed

    def choose(self, view: View) -> Action:
        time.sleep(SLOW_SECONDS)
        if view.get("phase") == "swap":
            return Action("ready")
        return Action.from_json(view["legal"][0])


class HangBot:
    """Never answers (a search stuck in a loop)."""

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed

    def choose(self, view: View) -> Action:
        time.sleep(3600)
        raise AssertionError("unreachable")


class DyingBot:
    """Kills its worker process (a crash, or the kernel's OOM killer)."""

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed

    def choose(self, view: View) -> Action:
        os._exit(3)


def patient_strong(seed: int | None = None) -> ShitheadStrongBot:
    """The Shithead ``strong`` bot without its wall-clock ceiling (``SAFETY_SECONDS``), so that it
    decides the same in a worker on a loaded machine as in the test's own process."""
    return ShitheadStrongBot(seed, seconds=None)
