"""Simulations of Shithead with fixed policies: random legal play, and the benchmark's simple
policy. Pure (no I/O beyond ``main``), seeded, and capped: Shithead can cycle forever, so a game
stops after ``max_actions`` and is counted as capped rather than hidden.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from server.rules.base import Action
from server.rules.registry import game_spec
from server.rules.shithead import READY, Shithead

Policy = Callable[[Shithead, int, list[Action]], Action]


def random_policy(rng: random.Random) -> Policy:
    """Uniformly random legal actions; in the swap phase, ready at once."""

    def choose(game: Shithead, seat: int, legal: list[Action]) -> Action:
        if game.phase == "swap":
            return READY
        return legal[rng.randrange(len(legal))]

    return choose


def lowest_policy(game: Shithead, seat: int, legal: list[Action]) -> Action:
    """The benchmark policy: all cards of the lowest playable rank (ordinary ranks low to high,
    then 2s, then 10s: the order ``legal_actions`` lists plays in), a pick-up only when nothing
    can be played, the first face-down slot, ready at once in the swap phase."""
    first = legal[0]
    kind = first.kind
    if kind == "swap":
        return READY
    if kind != "play":
        return first  # a pick-up (nothing playable) or a face-down flip
    rank = first.cards[0] >> 2
    best = first
    for a in legal:
        if a.kind != "play" or a.cards[0] >> 2 != rank:
            break
        best = a  # plays of one rank are listed by growing count
    return best


def play_game(game: Shithead, policy: Policy, max_actions: int = 5000) -> tuple[int, bool]:
    """Play ``game`` to the end (or the cap) with one policy for every seat.

    Returns the number of actions taken and whether the cap stopped the game.
    """
    actions = 0
    while not game.is_over():
        if actions >= max_actions:
            return actions, True
        seat = game.to_act()[0]
        game.apply(seat, policy(game, seat, game.legal_actions(seat)))
        actions += 1
    return actions, False


@dataclass
class SimSummary:
    players: int
    games: int = 0
    capped: int = 0
    actions: int = 0
    seconds: float = 0.0
    losses: list[int] = field(default_factory=list)

    def format(self) -> str:
        done = self.games - self.capped
        lines = [
            f"shithead: {self.players} players, {self.games} games "
            f"({done} finished, {self.capped} stopped at the action cap)",
            f"actions: {self.actions} ({self.actions / max(self.games, 1):.1f} per game), "
            f"{self.actions / max(self.seconds, 1e-9):,.0f} actions/s, "
            f"{self.games / max(self.seconds, 1e-9):,.0f} games/s",
            "losses by seat offset from the dealer: "
            + ", ".join(f"+{i}: {n} ({n / max(done, 1):.1%})" for i, n in enumerate(self.losses)),
        ]
        return "\n".join(lines)


def simulate(
    players: int, games: int, seed: int = 0, policy: str = "random", max_actions: int = 5000
) -> SimSummary:
    """Play ``games`` seeded games with random legal play (or the ``lowest`` policy)."""
    rng = random.Random(seed)
    choose = random_policy(rng) if policy == "random" else lowest_policy
    summary = SimSummary(players, losses=[0] * players)
    start = time.perf_counter()
    for i in range(games):
        dealer = i % players
        game = Shithead.new(players, dealer, seed=rng.getrandbits(64))
        n, capped = play_game(game, choose, max_actions)
        summary.games += 1
        summary.actions += n
        if capped:
            summary.capped += 1
        else:
            outcome = game.outcome()
            assert outcome is not None
            summary.losses[(outcome.loser - dealer) % players] += 1
    summary.seconds = time.perf_counter() - start
    return summary


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="cardroom sim shithead")
    parser.add_argument(
        "--players", type=int, default=4, choices=game_spec(Shithead.name).seat_counts
    )
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--policy", choices=("random", "lowest"), default="random")
    parser.add_argument("--max-actions", type=int, default=5000)
    args = parser.parse_args(argv)
    print(simulate(args.players, args.games, args.seed, args.policy, args.max_actions).format())
    return 0
