"""``cardroom bench rules``: speed of the rules cores on one core.

Shithead: a fixed simple policy (all cards of the lowest playable rank,
pick up only when nothing can be played, at most 5,000 actions a game); an action is listing the
legal actions plus applying one. Sheepshead: complete random-legal hands. Both: CPU time of this
process, the deals made before the timed loop.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import time

from server.rules.shithead import Shithead
from server.tools.sim.sheepshead import deal_random, play_random
from server.tools.sim.shithead import lowest_policy, play_game


def bench_shithead(players: int, games: int, seed: int) -> dict[str, float]:
    rng = random.Random(seed)
    deals = [Shithead.new(players, i % players, seed=rng.getrandbits(64)) for i in range(games)]
    actions = capped = 0
    start = time.process_time()
    for game in deals:
        n, hit = play_game(game, lowest_policy, 5000)
        actions += n
        capped += hit
    seconds = time.process_time() - start
    return {
        "players": players,
        "games": games,
        "capped": capped,
        "actions": actions,
        "actions_per_s": actions / seconds,
        "games_per_s": games / seconds,
    }


def bench_sheepshead(hands: int, seed: int) -> dict[str, float]:
    rng = random.Random(seed)
    deals = [deal_random(rng, i % 5) for i in range(hands)]
    policy = random.Random(seed + 1)  # the random policy's draws are part of the timed play
    actions = 0
    start = time.process_time()
    for game in deals:
        actions += play_random(game, policy)
    seconds = time.process_time() - start
    return {
        "hands": hands,
        "actions": actions,
        "hands_per_s": hands / seconds,
        "actions_per_s": actions / seconds,
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="cardroom bench rules")
    parser.add_argument("--games", type=int, default=2000, help="Shithead games per seat count")
    parser.add_argument("--hands", type=int, default=5000, help="Sheepshead hands")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--cpu",
        type=int,
        default=0,
        help="pin to this CPU (-1: do not pin); on this VM CPU 1 measures slower",
    )
    parser.add_argument(
        "--repeat", type=int, default=3, help="runs per figure; the best is shown (as timeit does)"
    )
    args = parser.parse_args(argv)
    if args.cpu >= 0:
        os.sched_setaffinity(0, {args.cpu})
    where = f"pinned to CPU {args.cpu}" if args.cpu >= 0 else "not pinned"
    print(f"python {platform.python_version()} on {platform.machine()}, one core ({where})")
    print(
        f"shithead, lowest-playable policy, cap 5,000 actions, best of {args.repeat} "
        "(deal time excluded; CPU time of this process):"
    )
    for players in (2, 4, 5):
        r = max(
            (bench_shithead(players, args.games, args.seed) for _ in range(args.repeat)),
            key=lambda x: x["actions_per_s"],
        )
        print(
            f"  {players} players: {r['actions_per_s']:>9,.0f} actions/s  "
            f"{r['games_per_s']:>7,.0f} games/s  "
            f"({r['actions'] / r['games']:.1f} actions/game, {r['capped']:.0f} of "
            f"{r['games']:.0f} games capped)"
        )
    r = max(
        (bench_sheepshead(args.hands, args.seed) for _ in range(args.repeat)),
        key=lambda x: x["hands_per_s"],
    )
    print(
        f"sheepshead, random legal play, best of {args.repeat} (deal time excluded; CPU time "
        f"of this process): {r['hands_per_s']:,.0f} complete hands/s, "
        f"{r['actions_per_s']:,.0f} actions/s ({r['hands']:.0f} hands)"
    )
    return 0
