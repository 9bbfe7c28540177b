"""``python -m server.tools.paired GAME --seats L,L,… --against SPEC [--hands N] [--seed S]
[--first K] [--jobs J] [--cpu] [--out FILE] [--pool FILE,…]``: is a change to a bot stronger?

Every game of the arena (:func:`~server.tools.arena.play_one`: the same deal, rotation and bot
seeds) is played twice: once as the seat list says, once with the first entry's level played by
the bot ``--against`` names (``path/to/file.py:Class`` or ``package.module:Class``, e.g. an older
version saved by ``git show``; every seat of that level plays it). The other seats meet the same
cards and seeds either way, so most of the luck cancels. The result is the first entry's loss
rate (Shithead) or units per hand (Sheepshead) as registered, as ``--against``, and their
difference, each deal's rotations averaged first and the 95% interval over deals
(:func:`~server.tools.intervals.over_deals`); with ``--conventions``-style counts of the first
entry's plays and its decision times (CPU with ``--cpu``). Each game pair is one JSON line
(``--out`` appends them as they finish), so a long comparison runs in chunks (``--first``,
``--seed``) and ``--pool`` sums the chunks.

>>> spec = "server.bots.shithead_basic:ShitheadBasicBot"  # the registered basic itself
>>> pairs = [play_pair("shithead", ["basic", "random"], i, 3, spec) for i in range(4)]
>>> all(p.results[0] == p.results[1] for p in pairs)  # the same bot, deal and seeds both ways
True
>>> comparison(pairs)["difference"]
{'mean': 0.0, 'ci95': (0.0, 0.0), 'deals': 2}
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import importlib.util
import json
import multiprocessing
import statistics
import sys
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from server.bots.base import BOT_LEVELS, BotFactory
from server.rules.registry import GAME_NAMES, game_spec
from server.tools.arena import DEFAULT_CAP, play_one
from server.tools.conventions_report import ConventionCounts
from server.tools.intervals import over_deals

#: The two ways every game is played: as registered, then with ``--against``.
SIDES = ("registered", "against")

_loaded: dict[str, BotFactory] = {}


def load_bot(spec: str) -> BotFactory:
    """The bot class ``spec`` names: ``path/to/file.py:Class`` or ``package.module:Class``.

    >>> load_bot("server.bots.shithead_basic:ShitheadBasicBot").__name__
    'ShitheadBasicBot'
    """
    if spec not in _loaded:
        where, _, name = spec.rpartition(":")
        if not where or not name:
            raise ValueError(f"{spec!r} is not FILE.py:Class or package.module:Class")
        if where.endswith(".py"):
            module_name = f"_paired_{len(_loaded)}_{Path(where).stem}"
            found = importlib.util.spec_from_file_location(module_name, where)
            if found is None or found.loader is None:
                raise ValueError(f"cannot load {where}")
            module = importlib.util.module_from_spec(found)
            found.loader.exec_module(module)
        else:
            module = importlib.import_module(where)
        _loaded[spec] = cast(BotFactory, getattr(module, name))
    return _loaded[spec]


@dataclass
class Pair:
    """One game index played both ways: per side, the first entry's result and what it did."""

    index: int
    seed: int
    players: int
    games: tuple[dict[str, Any], dict[str, Any]]

    @property
    def deal(self) -> tuple[int, int]:
        return self.seed, self.index // self.players

    @property
    def results(self) -> tuple[float, float]:
        return self.games[0]["result"], self.games[1]["result"]

    @property
    def capped(self) -> bool:
        return bool(self.games[0]["capped"] or self.games[1]["capped"])

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "seed": self.seed,
            "players": self.players,
            "games": self.games,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Pair:
        games = data["games"]
        return cls(data["index"], data["seed"], data["players"], (games[0], games[1]))


def play_pair(
    game: str,
    levels: list[str],
    index: int,
    seed: int,
    against: str,
    cap: int = DEFAULT_CAP,
    cpu: bool = False,
    options: dict[str, object] | None = None,
) -> Pair:
    """Game ``index`` of the arena's run ``seed``, played as registered and then with the
    first entry's level played by ``against``."""
    games: list[dict[str, Any]] = []
    for factories in (None, {levels[0]: load_bot(against)}):
        start = time.process_time()
        r = play_one(game, levels, index, seed, cap, None, cpu, options, True, factories)
        games.append(
            {
                "result": r.units[0],
                "capped": r.capped,
                "cpu": time.process_time() - start,
                "times": r.times[0],
                "conventions": r.conventions[0],
            }
        )
    return Pair(index, seed, len(levels), (games[0], games[1]))


def comparison(pairs: Iterable[Pair], game: str = "shithead") -> dict[str, Any]:
    """Both sides' mean result and their difference (against − registered) over deals, with
    95% intervals; pairs with a capped game are left out (counted)."""
    by_deal: dict[tuple[int, int], list[tuple[float, float]]] = {}
    times: tuple[list[float], list[float]] = ([], [])
    cpu = [0.0, 0.0]
    counts = ConventionCounts(game, {})
    deal_numbers: dict[tuple[int, int], int] = {}
    played = capped = 0
    for p in pairs:
        played += 1
        if p.capped:
            capped += 1
            continue
        by_deal.setdefault(p.deal, []).append(p.results)
        number = deal_numbers.setdefault(p.deal, len(deal_numbers))
        for k, g in enumerate(p.games):
            times[k].extend(g["times"])
            cpu[k] += g["cpu"]
            counts.add(SIDES[k], number, g["conventions"])

    def interval(values: list[float]) -> dict[str, Any]:
        mean, half, deals = over_deals(values)
        return {"mean": mean, "ci95": (mean - half, mean + half), "deals": deals}

    means = [tuple(statistics.fmean(r[k] for r in rs) for k in (0, 1)) for rs in by_deal.values()]
    out: dict[str, Any] = {
        "pairs": played,
        "capped_pairs": capped,
        "difference": interval([b - a for a, b in means]),
    }
    for k, side in enumerate(SIDES):
        ts = sorted(times[k])
        out[side] = {
            **interval([m[k] for m in means]),
            "cpu_per_game": cpu[k] / max(1, played - capped),
            "decisions": len(ts),
            "time_median_ms": 1000 * ts[len(ts) // 2] if ts else 0.0,
            "time_p99_ms": 1000 * ts[min(len(ts) - 1, int(0.99 * len(ts)))] if ts else 0.0,
        }
    out["conventions"] = counts.stats()
    out["conventions_table"] = counts.format()
    return out


def describe(c: dict[str, Any], game: str) -> str:
    what = "loss rate" if game == "shithead" else "units/hand"
    lines = [f"{c['pairs']} game pairs ({c['capped_pairs']} with a capped game left out)"]
    for side in (*SIDES, "difference"):
        e = c[side]
        lo, hi = e["ci95"]
        label = "against − registered" if side == "difference" else side
        row = f"  {label:<22} {what} {e['mean']:+.3f} (95% CI {lo:+.3f} .. {hi:+.3f})"
        row += f" over {e['deals']} deals"
        if side != "difference":
            row += (
                f"; {e['cpu_per_game']:.1f} s CPU a game; decision median "
                f"{e['time_median_ms']:.0f} ms, p99 {e['time_p99_ms']:.0f} ms "
                f"({e['decisions']})"
            )
        lines.append(row)
    lines.append(c["conventions_table"])
    return "\n".join(lines)


def _work(args: tuple[str, list[str], int, int, str, int, bool, dict[str, object] | None]) -> Pair:
    return play_pair(*args)


def _pairs(
    game: str,
    levels: list[str],
    indices: range,
    seed: int,
    against: str,
    jobs: int,
    cap: int,
    cpu: bool,
    options: dict[str, object] | None,
) -> Iterator[Pair]:
    tasks = [(game, levels, i, seed, against, cap, cpu, options) for i in indices]
    if jobs <= 1:
        yield from map(_work, tasks)
        return
    with multiprocessing.get_context("spawn").Pool(jobs) as pool:
        yield from pool.imap_unordered(_work, tasks, chunksize=1)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m server.tools.paired")
    parser.add_argument("game", choices=GAME_NAMES)
    parser.add_argument("--seats", help="comma-separated levels; the first entry is compared")
    parser.add_argument("--against", help="FILE.py:Class or package.module:Class")
    parser.add_argument("--hands", "--games", dest="games", type=int, default=100)
    parser.add_argument("--first", type=int, default=0, help="the first game number")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--cap", type=int, default=DEFAULT_CAP, help="max actions per game")
    parser.add_argument("--cpu", action="store_true", help="time decisions in CPU time")
    parser.add_argument("--options", type=json.loads, default=None, help="the house rules")
    parser.add_argument("--out", help="append each game pair to this file as a JSON line")
    parser.add_argument("--pool", help="comma-separated files of game pairs: sum them, play none")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON too")
    args = parser.parse_args(argv)
    if args.pool:
        pairs = [
            Pair.from_json(json.loads(line))
            for name in args.pool.split(",")
            for line in Path(name).read_text().splitlines()
            if line.strip()
        ]
    else:
        levels = [x.strip() for x in (args.seats or "").split(",") if x.strip()]
        if not levels or not args.against:
            parser.error("--seats and --against are needed (or --pool)")
        bad = [x for x in levels if x not in BOT_LEVELS]
        if bad:
            parser.error(f"unknown levels {bad}; levels are {', '.join(BOT_LEVELS)}")
        try:
            game_spec(args.game).check_players(len(levels))
            load_bot(args.against)
        except (ValueError, ImportError, AttributeError, OSError) as exc:
            parser.error(str(exc))
        if args.games < 1 or args.jobs < 1 or args.first < 0:
            parser.error("--hands and --jobs must be positive, --first not negative")
        tasks = _pairs(
            args.game,
            levels,
            range(args.first, args.first + args.games),
            args.seed,
            args.against,
            args.jobs,
            args.cap,
            args.cpu,
            args.options,
        )
        pairs = []
        with contextlib.ExitStack() as files:
            out = files.enter_context(Path(args.out).open("a")) if args.out else None
            for pair in tasks:
                pairs.append(pair)
                if out is not None:  # as they finish: a chunk cut short keeps its pairs
                    out.write(json.dumps(pair.to_json()) + "\n")
                    out.flush()
    result = comparison(pairs, args.game)
    print(describe(result, args.game))
    if args.json:
        print(json.dumps({k: v for k, v in result.items() if k != "conventions_table"}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
