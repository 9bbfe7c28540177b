"""``python -m server.tools.leaster_value --hands N --seed S [--first-deal D] [--jobs J]
[--factors A,B]``: what the strong Sheepshead bot's leaster budget
(:data:`~server.bots.sheepshead_strong.LEASTER_FACTOR`) gains against four ``basic``, paired on
the arena's games (``cardroom arena sheepshead --seats strong,basic,basic,basic,basic --seed
S``: the same deals, rotations and bot seeds).

The factor changes only the card play of a leaster (SS-8): the bidding draws the same samples
whatever it is, so a game in which somebody picks is the same game with either factor, and its
difference is 0. Each game is therefore played to the end of the bidding only; a leaster is then
played to the end once per factor from that point, every bot copied, so the two differ by
``strong``'s leaster budget and nothing else. The gain per deal is the sum of the leasters'
differences divided by the deal's rotations; its mean and interval are over deals, as the
arena's (:func:`~server.tools.intervals.over_deals`), for a fraction of the arena's CPU.
"""

from __future__ import annotations

import argparse
import copy
import json
import multiprocessing
import statistics
from dataclasses import dataclass
from functools import partial
from typing import Any

from server.bots import make_bot
from server.bots.base import Bot, cpu_clock
from server.bots.sheepshead_strong import LEASTER_FACTOR, SheepsheadStrongBot
from server.rules.sheepshead import Sheepshead
from server.tools.arena import deal_seed_of
from server.tools.intervals import over_deals

PLAYERS = 5


@dataclass(frozen=True, slots=True)
class Leaster:
    """One arena game: whether all passed and, if so, ``strong``'s units with each factor."""

    index: int
    leaster: bool
    units: tuple[float, ...] = ()


def _finish(g: Sheepshead, bots: list[Bot], seat: int) -> float:
    while not g.is_over():
        s = g.to_act()[0]
        g.apply(s, bots[s].choose(g.view(s)))
    result = g.outcome()
    assert result is not None
    return float(result.units[seat])


def play(seed: int, index: int, factors: tuple[int, ...] = (1, LEASTER_FACTOR)) -> Leaster:
    """Game ``index`` of the arena's run of ``seed`` (``strong`` in entry 0): played to the end
    of the bidding, and, if it is a leaster, to the end once per factor of ``factors``."""
    block, me = divmod(index, PLAYERS)
    bots: list[Bot] = []
    for s in range(PLAYERS):
        bot_seed = (seed * 7919 + index * 31 + s) % 2**63  # as the arena seeds them
        if s == me:
            bots.append(SheepsheadStrongBot(bot_seed, leaster_factor=factors[0]))
        else:
            bots.append(make_bot("basic", "sheepshead", seed=bot_seed))
    g = Sheepshead.new(PLAYERS, block % PLAYERS, seed=deal_seed_of(seed, block))
    with cpu_clock():  # as ``cardroom arena --cpu``: the load cannot cut a search short
        while g.phase == "pick":
            s = g.to_act()[0]
            g.apply(s, bots[s].choose(g.view(s)))
        if not g.leaster:
            return Leaster(index, False)
        units = []
        for factor in factors:
            branch = copy.deepcopy(bots)
            strong = branch[me]
            assert isinstance(strong, SheepsheadStrongBot)
            strong.leaster_factor = factor
            units.append(_finish(g.clone(), branch, me))
    return Leaster(index, True, tuple(units))


def measure(
    hands: int, seed: int, jobs: int = 1, first: int = 0, factors: tuple[int, int] = (1, 3)
) -> dict[str, Any]:
    """The gain of factor ``factors[1]`` over ``factors[0]`` on ``hands`` deals from deal
    ``first`` on, per hand over deals and per leaster."""
    indices = range(first * PLAYERS, (first + hands) * PLAYERS)
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(jobs) as pool:
        games = pool.map(partial(play, seed, factors=factors), indices, chunksize=1)
    per_deal = [0.0] * hands
    diffs = []
    for r in games:
        if r.leaster:
            d = r.units[1] - r.units[0]
            diffs.append(d)
            per_deal[r.index // PLAYERS - first] += d / PLAYERS
    mean, half, _ = over_deals(per_deal)
    return {
        "deals": hands,
        "first": first,
        "seed": seed,
        "factors": factors,
        "games": len(games),
        "leasters": len(diffs),
        "gain": mean,
        "ci95": (mean - half, mean + half),
        "per_leaster": statistics.fmean(diffs) if diffs else 0.0,
        "better": sum(1 for d in diffs if d > 0),
        "worse": sum(1 for d in diffs if d < 0),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m server.tools.leaster_value")
    parser.add_argument("--hands", type=int, default=100, help="deals (five games each)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--first-deal", type=int, default=0)
    parser.add_argument("--factors", default=f"1,{LEASTER_FACTOR}", help="A,B: B against A")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    try:
        a, b = (int(x) for x in args.factors.split(","))
    except ValueError:
        parser.error("--factors must be two whole numbers, A,B")
    if args.hands < 2 or args.jobs < 1 or args.first_deal < 0 or min(a, b) < 1:
        parser.error("--hands at least 2, --jobs and the factors positive, --first-deal >= 0")
    out = measure(args.hands, args.seed, args.jobs, args.first_deal, (a, b))
    lo, hi = out["ci95"]
    print(
        f"strong + four basic, {out['deals']} deals (seed {out['seed']}), {out['leasters']}"
        f" leasters: factor {b} against {a} {out['gain']:+.3f} units/hand (95% CI {lo:+.3f} .."
        f" {hi:+.3f}), {out['per_leaster']:+.3f} a leaster ({out['better']} won more,"
        f" {out['worse']} less)"
    )
    if args.json:
        print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
