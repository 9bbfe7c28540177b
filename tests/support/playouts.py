"""Counting the playouts of the Shithead search (its budget is a number of them)."""

from __future__ import annotations

import random

import pytest

from server.bots import shithead_strong
from server.rules.shithead import Shithead


def count_playouts(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A counter (its one item) of the playouts the Shithead search runs from now on."""
    real = shithead_strong.playout
    calls = [0]

    def counting(g: Shithead, me: int, horizon: int, rng: random.Random) -> float:
        calls[0] += 1
        return real(g, me, horizon, rng)

    monkeypatch.setattr(shithead_strong, "playout", counting)
    return calls
