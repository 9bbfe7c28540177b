"""``python -m server.tools.pick_value --hands N --seed S [--first-deal D] [--jobs J] [--up-to B]``:
what a pick bonus (:data:`~server.bots.sheepshead_strong.PICK_BONUS`) gains the strong
Sheepshead bot, learned from its own results against four ``basic``.

The bidding values pick and pass by playouts in which the bot plays its own later cards by the
convention policy; at the table it plays them by search, which gains more as the picker than
as a defender, so the sampled value of picking is low by some amount. How much is measured, not
guessed, on the arena's games (``cardroom arena sheepshead --seats strong,basic,basic,basic,basic
--seed S``: the same deals, rotations and bot seeds):

1. every game is played up to ``strong``'s pick decision (without a bonus), which records the
   sampled means of pick and pass (:attr:`~server.bots.sheepshead_bidding.Bidder.last_pick`),
   and so the least bonus that would have made it pick (:func:`threshold`);
2. every hand it passed that a bonus up to ``--up-to`` would have made it pick is played to the
   end twice: as it stands, and with ``strong`` made to pick (then burying, calling and playing
   by its own search);
3. the gain of a bonus ``b`` on a deal is the sum, over the games ``b`` flips, of what picking
   won over passing, divided by the deal's rotations; its mean and interval are over deals.

A game the bonus does not flip is the same game with or without it (the bonus moves only the
final comparison: the samples drawn, and so every random number after, are the same), so step
3 is the arena's paired difference at each bonus, for a fraction of the arena's CPU.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
from dataclasses import dataclass
from typing import Any

from server.bots import make_bot
from server.bots.base import Bot, cpu_clock
from server.bots.sheepshead_bidding import MARGIN
from server.bots.sheepshead_strong import SheepsheadStrongBot
from server.rules.sheepshead import Sheepshead
from server.tools.arena import deal_seed_of
from server.tools.intervals import over_deals

PLAYERS = 5
#: A bonus that makes ``strong`` pick whenever it is offered the pick.
ALWAYS = 1e9
#: The bonuses reported (units per hand).
BONUSES = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.75, 1.0, 1.25)


def threshold(pick: float, pass_: float, heuristic_picks: bool) -> float:
    """The bonus above which the bidding picks, given its sampled means (the heuristic's
    choice is kept unless the other beats it by :data:`MARGIN`).

    >>> threshold(1.0, 0.0, False), threshold(-1.0, 0.5, False), threshold(-1.0, 0.5, True)
    (-0.95, 1.55, 1.45)
    """
    return pass_ - pick + (-MARGIN if heuristic_picks else MARGIN)


@dataclass(frozen=True, slots=True)
class Game:
    """One arena game of ``strong`` (entry 0) and four ``basic``."""

    seed: int
    index: int

    @property
    def deal(self) -> int:
        return self.index // PLAYERS

    @property
    def seat(self) -> int:
        """``strong``'s seat (entry 0's, in this game's rotation)."""
        return self.index % PLAYERS

    def start(self, bonus: float) -> tuple[Sheepshead, list[Bot]]:
        """The dealt game and its bots, ``strong`` with the pick bonus ``bonus``."""
        block = self.deal
        bots: list[Bot] = []
        for s in range(PLAYERS):
            seed = (self.seed * 7919 + self.index * 31 + s) % 2**63
            if s == self.seat:
                bots.append(SheepsheadStrongBot(seed, pick_bonus=bonus))
            else:
                bots.append(make_bot("basic", "sheepshead", seed=seed))
        return Sheepshead.new(PLAYERS, block % PLAYERS, seed=deal_seed_of(self.seed, block)), bots

    def play(self, bonus: float, stop_at_pick: bool) -> tuple[float | None, bool, float]:
        """Play it with ``strong``'s pick bonus ``bonus``: ``strong``'s pick threshold (None if
        it was not asked, or was forced), whether it picked and, unless ``stop_at_pick``, its
        units."""
        me = self.seat
        g, bots = self.start(bonus)
        with cpu_clock():  # as ``cardroom arena --cpu``: the load cannot cut a search short
            while not g.is_over():
                if stop_at_pick and g.phase != "pick":
                    break
                seat = g.to_act()[0]
                g.apply(seat, bots[seat].choose(g.view(seat)))
                if stop_at_pick and seat == me:
                    break
        strong = bots[me]
        assert isinstance(strong, SheepsheadStrongBot)
        last = strong.bidder.last_pick
        found = None if last is None else threshold(*last)
        result = g.outcome()
        units = 0.0 if result is None else float(result.units[me])
        return found, g.picker == me, units


def _threshold(game: Game) -> tuple[Game, tuple[float | None, bool]]:
    found, picked, _ = game.play(0.0, stop_at_pick=True)
    return game, (found, picked)


def _both(game: Game) -> tuple[Game, float, float]:
    return game, game.play(0.0, False)[2], game.play(ALWAYS, False)[2]


def measure(
    hands: int, seed: int, jobs: int = 1, up_to: float = BONUSES[-1], first: int = 0
) -> dict[str, Any]:
    """The gain of each bonus of :data:`BONUSES` (and the pick rates) on ``hands`` deals from
    deal ``first`` on."""
    games = [Game(seed, i) for i in range(first * PLAYERS, (first + hands) * PLAYERS)]
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(jobs) as pool:
        scanned = dict(pool.map(_threshold, games, chunksize=1))
        found = {g: t for g, (t, picked) in scanned.items() if not picked}
        flips = [g for g in games if (t := found.get(g)) is not None and t <= up_to]
        gains = {g: (picked - passed) for g, passed, picked in pool.map(_both, flips, 1)}
    picks_before = sum(1 for _, picked in scanned.values() if picked)
    rows = []
    for b in BONUSES:
        per_deal = [0.0] * hands
        flipped = 0
        for g, gain in gains.items():
            t = found[g]
            if t is not None and t < b:
                per_deal[g.deal - first] += gain / PLAYERS
                flipped += 1
        mean, half, _ = over_deals(per_deal)
        rows.append(
            {
                "bonus": b,
                "gain": mean,
                "ci95": (mean - half, mean + half),
                "flipped": flipped,
                "pick_rate": (picks_before + flipped) / len(games),
            }
        )
    return {
        "deals": hands,
        "first": first,
        "seed": seed,
        "games": len(games),
        "replayed": len(flips),
        "rows": rows,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m server.tools.pick_value")
    parser.add_argument("--hands", type=int, default=100, help="deals (five games each)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--up-to", type=float, default=BONUSES[-1])
    parser.add_argument("--first-deal", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.hands < 2 or args.jobs < 1 or args.first_deal < 0:
        parser.error("--hands must be at least 2, --jobs positive, --first-deal not negative")
    out = measure(args.hands, args.seed, args.jobs, args.up_to, args.first_deal)
    print(
        f"strong + four basic, {out['deals']} deals (seed {out['seed']}), "
        f"{out['replayed']} games replayed"
    )
    for r in out["rows"]:
        lo, hi = r["ci95"]
        print(
            f"  bonus {r['bonus']:.2f}: gain {r['gain']:+.3f} units/hand (95% CI {lo:+.3f} .."
            f" {hi:+.3f}), {r['flipped']} hands flipped, pick rate {r['pick_rate']:.3f}"
        )
    if args.json:
        print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
