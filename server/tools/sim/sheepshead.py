"""Simulations of Sheepshead with a random legal policy: the pick rate, leaster rate and average
units by seat, and the speed of the rules core in complete hands per second on one core.

The policy picks with a fixed probability at each pick decision (else passes) and chooses every
other decision uniformly among the legal actions. Pure (no I/O beyond ``main``) and seeded.

>>> summary = simulate(hands=20, seed=1)
>>> summary["hands"], sum(summary["total_units"])
(20, 0)
"""

from __future__ import annotations

import argparse
import random
import time
from typing import Any

from server.rules.sheepshead import PASS, PICK, Sheepshead
from server.rules.sheepshead_cards import DECK32


def deal_random(rng: random.Random, dealer: int) -> Sheepshead:
    """A uniformly shuffled deal from ``rng``."""
    rand = rng.random
    # A uniform shuffle (sort by random keys; ties have probability ~0), cheaper than
    # ``rng.shuffle``'s 31 bounded draws.
    return Sheepshead(sorted(DECK32, key=lambda _: rand()), dealer)


def play_random(game: Sheepshead, rng: random.Random, pick_prob: float = 0.35) -> int:
    """Play a dealt hand to the end with the random policy; return the number of actions."""
    rand = rng.random
    actions = 0
    legal_actions = game.legal_actions
    apply = game.apply
    to_act = game.to_act
    while game.phase == "pick":
        apply(to_act()[0], PICK if rand() < pick_prob else PASS)
        actions += 1
    while True:
        seats = to_act()
        if not seats:
            return actions
        seat = seats[0]
        legal = legal_actions(seat)
        apply(seat, legal[int(rand() * len(legal))])
        actions += 1


def play_random_hand(
    rng: random.Random, dealer: int, pick_prob: float = 0.35
) -> tuple[Sheepshead, int]:
    """Deal a hand from ``rng`` and play it to the end with the random policy.

    Returns the finished game and the number of actions taken.
    """
    game = deal_random(rng, dealer)
    return game, play_random(game, rng, pick_prob)


def simulate(hands: int, seed: int, pick_prob: float = 0.35) -> dict[str, Any]:
    """Play ``hands`` random hands (the deal rotating) and summarize them."""
    rng = random.Random(seed)
    totals = [0] * 5
    picks = leasters = alones = unknowns = actions = 0
    start = time.perf_counter()
    for i in range(hands):
        game, n = play_random_hand(rng, i % 5, pick_prob)
        actions += n
        result = game.outcome()
        assert result is not None
        for s, u in enumerate(result.units):
            totals[s] += u
        if result.leaster:
            leasters += 1
        else:
            picks += 1
            alones += result.alone
            unknowns += result.unknown is not None
    elapsed = time.perf_counter() - start
    n = max(hands, 1)
    return {
        "hands": hands,
        "seed": seed,
        "pick_prob": pick_prob,
        "pick_rate": picks / n,
        "leaster_rate": leasters / n,
        "alone_rate": alones / max(picks, 1),
        "unknown_rate": unknowns / max(picks, 1),
        "total_units": totals,
        "average_units": [t / n for t in totals],
        "actions": actions,
        "seconds": elapsed,
        "hands_per_second": hands / elapsed if elapsed > 0 else float("inf"),
    }


def format_summary(summary: dict[str, Any]) -> str:
    """A few lines for people."""
    avg = "  ".join(f"{s}:{u:+.3f}" for s, u in enumerate(summary["average_units"]))
    return "\n".join(
        [
            f"sheepshead: {summary['hands']} hands, seed {summary['seed']}, "
            f"pick probability {summary['pick_prob']:.2f}",
            f"pick rate     {summary['pick_rate']:.3f}",
            f"leaster rate  {summary['leaster_rate']:.3f}",
            f"alone rate    {summary['alone_rate']:.3f} of picked hands "
            f"(unknown-card calls {summary['unknown_rate']:.3f})",
            f"average units by seat  {avg}",
            f"speed         {summary['hands_per_second']:.0f} hands/s "
            f"({summary['actions']} actions in {summary['seconds']:.2f} s)",
        ]
    )


def main(argv: list[str]) -> int:
    """``cardroom sim sheepshead [--hands N] [--seed S] [--pick-prob P]``."""
    parser = argparse.ArgumentParser(prog="cardroom sim sheepshead")
    parser.add_argument("--hands", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--pick-prob", type=float, default=0.35)
    args = parser.parse_args(argv)
    if args.hands < 1 or not 0.0 <= args.pick_prob <= 1.0:
        parser.error("--hands must be positive and --pick-prob within 0..1")
    print(format_summary(simulate(args.hands, args.seed, args.pick_prob)))
    return 0
