"""The views on the wire are byte for byte those recorded before they were typed: fixed-seed
games of both games, every seat and the spectator at every step, their events and state frames,
and the replay steps of the finished games (``golden/views.json``, written on the untyped code).

Rewrite it only for a deliberate protocol change: ``python -m tests.protocol.test_view_golden``.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

import pytest

from protocol import messages as m
from protocol.views import EventWire
from server.rules.base import Game
from server.rules.sheepshead import Sheepshead
from server.rules.shithead import Shithead
from server.store.history import history_item, replay_steps

GOLDEN = Path(__file__).with_name("golden") / "views.json"

#: (name, a new game): both games, several seat counts and seeds.
CASES: dict[str, tuple[type[Game], int, int, int]] = {
    "shithead-3-seed2": (Shithead, 3, 0, 2),
    "shithead-5-seed7": (Shithead, 5, 1, 7),
    "sheepshead-5-seed1": (Sheepshead, 5, 4, 1),
    "sheepshead-5-seed9": (Sheepshead, 5, 2, 9),
}


def record(rules: type[Game], players: int, dealer: int, seed: int) -> dict[str, Any]:
    """A game played out by a seeded random choice of legal actions: the digest of every view,
    event list and state frame on the way, and in full the views at each phase's first step
    and the last one (so a difference is readable, not only detected)."""
    game = rules.new(players, dealer, seed=seed)
    rng = random.Random(seed)
    digest = hashlib.sha256()
    samples: list[dict[str, Any]] = []
    events: list[EventWire] = []
    version, phase = 0, ""
    while True:
        views = [game.view(seat) for seat in [None, *range(game.num_players)]]
        for seat, view in zip([None, *range(game.num_players)], views, strict=True):
            digest.update(m.json_bytes(view))
            digest.update(m.dump_state("ABCDE", version, seat, view, events, None).encode())
        digest.update(m.json_bytes(events))
        if game.phase != phase or game.is_over():
            phase = game.phase
            samples.append({"version": version, "events": events, "views": views})
        if game.is_over():
            break
        seat = game.to_act()[0]
        legal = game.legal_actions(seat)
        events = [e.to_json() for e in game.apply(seat, legal[rng.randrange(len(legal))])]
        version += 1
    names = [f"P{s}" for s in range(game.num_players)]
    steps = replay_steps(history_item(0, game, names))
    return {
        "versions": version,
        "sha256": digest.hexdigest(),
        "replay_sha256": hashlib.sha256(m.json_bytes(steps)).hexdigest(),
        "samples": samples,
    }


def build() -> dict[str, Any]:
    return {name: record(*case) for name, case in CASES.items()}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CASES))
def test_views_events_and_frames_are_the_recorded_bytes(name: str) -> None:
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))[name]
    now = record(*CASES[name])
    assert now["versions"] == golden["versions"]
    # the samples first: a difference there names the field
    assert json.loads(m.json_bytes(now["samples"])) == golden["samples"]
    assert now["sha256"] == golden["sha256"]
    assert now["replay_sha256"] == golden["replay_sha256"]


def test_the_golden_games_cover_every_phase_of_both_games() -> None:
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))
    phases = {
        (name.split("-")[0], s["views"][0]["phase"])
        for name, g in golden.items()
        for s in g["samples"]
    }
    assert {p for g, p in phases if g == "shithead"} >= {"swap", "play", "over"}
    assert {p for g, p in phases if g == "sheepshead"} >= {"pick", "bury", "call", "play", "over"}


if __name__ == "__main__":
    GOLDEN.write_text(json.dumps(build(), separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"{GOLDEN}: written", file=sys.stderr)
