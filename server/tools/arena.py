"""``cardroom arena GAME --seats strong,basic,basic,basic,basic --hands N --seed S [--jobs J]``:
bots of several levels play many games against each other, and the arena reports per level.
``--seconds T`` sets the time budget per decision of the timed level, ``expert`` (default 1 s);
``--cpu`` times decisions in the CPU time of the playing process, which on a busy machine shows
what a quiet core would take (the wall clock also counts other processes' turns), and makes the
bots' deadlines (``expert``'s budget, ``strong``'s safety ceiling) count it too, so that the
load cannot cut searches short and change the results.

Position cancels out: the games come in blocks of one deal per seat count; within a block the
same deal (same deck, same dealer) is played once per rotation of the seat list, so every entry
sits in every seat with the same cards. Each bot sees only its seat's view.

Per level it prints: Sheepshead average units per hand with a 95% confidence interval, pick and
alone rates (and the table's leaster rate); Shithead loss rate with its 95% interval (par is one
over the number of players) and how many games hit the length cap; and the decision time (median
and p99) of every level. The games of one deal are not independent (the same cards, and several
seats of one level in the same hand), so the intervals are computed over deals: each deal's result
for a level is the mean over its rotations and seats, and the interval is the mean of those ± 1.96
sample standard deviations over the square root of the number of deals. ``--conventions`` adds,
per level and role, how often each table convention is kept (trump leads by the picker, the
partner and the defenders, schmears, called-suit leads; Shithead: wasted 2s and 10s, pick-ups
with a play, overplays), each classified from the full state before the play
(:mod:`server.tools.conventions`) and given an interval over deals
(:mod:`server.tools.conventions_report`). ``--jobs`` plays games in
parallel processes; the results do not depend on it (every game and every bot is seeded from
``--seed`` and the game number).

>>> summary = run("sheepshead", ["basic", "random", "random", "random", "random"], 5, seed=1)
>>> summary.games, round(sum(summary.units["basic"]) + sum(summary.units["random"]), 6)
(5, 0.0)
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import random
import statistics
import sys
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from server.bots import BOT_LEVELS, Bot, make_bot
from server.bots.base import BotFactory, cpu_clock
from server.rules.registry import GAME_NAMES, game_spec
from server.rules.sheepshead import Sheepshead
from server.rules.shithead import Shithead
from server.tools.conventions import chances
from server.tools.conventions_report import ConventionCounts, Tally, count
from server.tools.intervals import over_deals as over_deals  # re-exported: pooled from --json
from server.tools.intervals import wilson

#: Shithead games stop after this many actions and count as capped.
DEFAULT_CAP = 3000


@dataclass
class GameRecord:
    """What one game produced, per entry of the seat list (not per seat)."""

    index: int
    units: list[float]  # sheepshead units, or shithead 1 for the loser (0 if capped)
    capped: bool = False
    picked: list[bool] = field(default_factory=list)
    alone: list[bool] = field(default_factory=list)
    leaster: bool = False
    times: list[list[float]] = field(default_factory=list)
    # --conventions: per entry, the chances seen (conventions_report.Tally)
    conventions: list[Tally] = field(default_factory=list)


def deal_seed_of(seed: int, block: int) -> int:
    """The seed of the deal of ``block`` in a run of ``seed`` (every rotation of it plays it)."""
    return random.Random(seed * 1_000_003 + block).getrandbits(63)


def play_one(
    game: str,
    levels: list[str],
    index: int,
    seed: int,
    cap: int,
    seconds: float | None = None,
    cpu: bool = False,
    options: dict[str, object] | None = None,
    conventions: bool = False,
    factories: Mapping[str, BotFactory] | None = None,
) -> GameRecord:
    """Play game ``index``: block ``index // P`` fixes the deal, ``index % P`` the rotation.
    ``seconds`` is the time budget of timed levels (``expert``), else their default; ``cpu``
    times decisions in process CPU time instead of wall time; ``options``: the house rules;
    ``conventions``: classify every decision from the full state (server.tools.conventions);
    ``factories``: levels played by another bot (``factory(seed)``, e.g. an older version,
    ``server.tools.paired``) instead of the registered one, on the same seeds."""
    players = len(levels)
    block, rotation = divmod(index, players)
    deal_seed = deal_seed_of(seed, block)
    dealer = block % players
    # Entry j sits at seat (j + rotation) % players.
    seat_entry = [(s - rotation) % players for s in range(players)]
    bots: list[Bot] = []
    for s in range(players):
        level, bot_seed = levels[seat_entry[s]], (seed * 7919 + index * 31 + s) % 2**63
        factory = factories.get(level) if factories else None
        if factory is not None:
            bots.append(factory(bot_seed))
        else:
            bots.append(make_bot(level, game, seed=bot_seed, seconds=seconds))
    times: list[list[float]] = [[] for _ in range(players)]
    tallies: list[Tally] = [{} for _ in range(players)] if conventions else []
    g: Shithead | Sheepshead
    rules = game_spec(game).options.model_validate(options or {})
    if game == "shithead":
        g = Shithead.new(players, dealer, seed=deal_seed, options=rules.model_dump())
    else:
        g = Sheepshead.new(players, dealer, seed=deal_seed, options=rules.model_dump())
    actions = 0
    clock = time.process_time if cpu else time.perf_counter
    with cpu_clock(cpu):  # the bots' deadlines too: the load must not cut their searches short
        while not g.is_over() and actions < cap:
            seat = g.to_act()[0]
            view = g.view(seat)
            start = clock()
            action = bots[seat].choose(view)
            times[seat_entry[seat]].append(clock() - start)
            if conventions:  # before apply: the state the decision was made in
                count(tallies[seat_entry[seat]], chances(g, seat, action))
            g.apply(seat, action)
            actions += 1
    record = GameRecord(index, [0.0] * players, times=times, conventions=tallies)
    if not g.is_over():
        record.capped = True
        return record
    if isinstance(g, Shithead):
        outcome = g.outcome()
        assert outcome is not None
        record.units[seat_entry[outcome.loser]] = 1.0
    else:
        result = g.outcome()
        assert result is not None
        for s in range(players):
            record.units[seat_entry[s]] = float(result.units[s])
        record.picked = [False] * players
        record.alone = [False] * players
        record.leaster = result.leaster
        if result.picker is not None:
            record.picked[seat_entry[result.picker]] = True
            record.alone[seat_entry[result.picker]] = result.alone
    return record


def _work(
    args: tuple[str, list[str], int, int, int, float | None, bool, dict[str, object] | None, bool],
) -> GameRecord:
    return play_one(*args)


@dataclass
class Summary:
    """Results pooled per level."""

    game: str
    levels: list[str]
    games: int = 0
    capped: int = 0
    leasters: int = 0
    units: dict[str, list[float]] = field(default_factory=dict)
    # level -> deal (block) -> the level's results in that deal's games
    by_deal: dict[str, dict[int, list[float]]] = field(default_factory=dict)
    picks: dict[str, int] = field(default_factory=dict)
    alones: dict[str, int] = field(default_factory=dict)
    times: dict[str, list[float]] = field(default_factory=dict)
    seconds: float = 0.0
    conventions: ConventionCounts | None = None  # --conventions

    def add(self, r: GameRecord) -> None:
        self.games += 1
        self.capped += r.capped
        self.leasters += r.leaster
        for j, level in enumerate(self.levels):
            self.times.setdefault(level, []).extend(r.times[j])
            if r.conventions:  # capped games too: their plays were made
                if self.conventions is None:
                    self.conventions = ConventionCounts(self.game, {})
                self.conventions.add(level, r.index // len(self.levels), r.conventions[j])
            if r.capped:
                continue
            self.units.setdefault(level, []).append(r.units[j])
            block = r.index // len(self.levels)
            self.by_deal.setdefault(level, {}).setdefault(block, []).append(r.units[j])
            if r.picked:
                self.picks[level] = self.picks.get(level, 0) + r.picked[j]
                self.alones[level] = self.alones.get(level, 0) + r.alone[j]

    def over_deals(self, level: str) -> tuple[float, float, int]:
        """The level's mean over deals, the half-width of its 95% interval, and the number of
        deals (each deal's rotations averaged first, sample standard deviation).

        >>> s = Summary("sheepshead", ["a", "b"])
        >>> s.by_deal = {"a": {0: [1.0, 3.0], 1: [2.0, 2.0], 2: [5.0, 1.0]}}
        >>> mean, half, deals = s.over_deals("a")
        >>> round(mean, 3), round(half, 3), deals  # deal means 2, 2, 3
        (2.333, 0.653, 3)
        """
        return over_deals([statistics.fmean(xs) for xs in self.by_deal.get(level, {}).values()])

    def stats(self) -> dict[str, Any]:
        """Per-level figures as plain data."""
        out: dict[str, Any] = {
            "game": self.game,
            "seats": self.levels,
            "games": self.games,
            "capped": self.capped,
            "seconds": round(self.seconds, 1),
            "levels": {},
        }
        if self.game == "sheepshead":
            out["leaster_rate"] = self.leasters / max(self.games, 1)
        else:
            out["par_loss_rate"] = 1 / len(self.levels)
        for level in dict.fromkeys(self.levels):
            n = len(self.units.get(level, []))
            mean, half, deals = self.over_deals(level)
            ts = sorted(self.times.get(level, []))
            entry: dict[str, Any] = {
                "seat_games": n,
                "deals": deals,
                "decisions": len(ts),
                "time_median_ms": 1000 * ts[len(ts) // 2] if ts else 0.0,
                "time_p99_ms": 1000 * ts[min(len(ts) - 1, int(0.99 * len(ts)))] if ts else 0.0,
                # each deal's mean, so that runs on other seeds can be pooled over deals
                "deal_means": [statistics.fmean(xs) for xs in self.by_deal.get(level, {}).values()],
            }
            if self.game == "sheepshead":
                picks = self.picks.get(level, 0)
                entry.update(
                    units_per_hand=mean,
                    ci95=(mean - half, mean + half),
                    pick_rate=picks / max(n, 1),
                    alone_rate=self.alones.get(level, 0) / max(picks, 1),
                )
            else:
                lo, hi = max(0.0, mean - half), min(1.0, mean + half)
                if half == 0.0:  # every deal alike (e.g. never lost): Wilson over the deals
                    lo, hi = wilson(round(mean * deals), deals)
                entry.update(loss_rate=mean, ci95=(lo, hi))
            out["levels"][level] = entry
        if self.conventions is not None:
            out["conventions"] = self.conventions.stats()
        return out

    def format(self) -> str:
        s = self.stats()
        lines = [
            f"{self.game}: {self.games} games, seats {','.join(self.levels)}, "
            f"{s['seconds']} s" + (f", capped {self.capped}" if self.game == "shithead" else "")
        ]
        if self.game == "sheepshead":
            lines.append(f"leaster rate {s['leaster_rate']:.3f}")
        else:
            lines.append(f"par loss rate {s['par_loss_rate']:.3f}")
        for level, e in s["levels"].items():
            lo, hi = e["ci95"]
            if self.game == "sheepshead":
                result = (
                    f"{e['units_per_hand']:+.3f} units/hand (95% CI {lo:+.3f} .. {hi:+.3f}), "
                    f"pick {e['pick_rate']:.3f}, alone {e['alone_rate']:.3f} of picks"
                )
            else:
                result = f"loss rate {e['loss_rate']:.3f} (95% CI {lo:.3f} .. {hi:.3f})"
            lines.append(
                f"  {level:<7} {result}; {e['seat_games']} seat-games over {e['deals']} deals; "
                "decision "
                f"median {e['time_median_ms']:.2f} ms, p99 {e['time_p99_ms']:.1f} ms "
                f"({e['decisions']} decisions)"
            )
        if self.conventions is not None:
            lines.append(self.conventions.format())
        return "\n".join(lines)


def _records(
    game: str,
    levels: list[str],
    games: int,
    seed: int,
    jobs: int,
    cap: int,
    seconds: float | None,
    cpu: bool,
    options: dict[str, object] | None = None,
    conventions: bool = False,
) -> Iterator[GameRecord]:
    tasks = [(game, levels, i, seed, cap, seconds, cpu, options, conventions) for i in range(games)]
    if jobs <= 1:
        for t in tasks:
            yield _work(t)
        return
    with multiprocessing.get_context("spawn").Pool(jobs) as pool:
        yield from pool.imap_unordered(_work, tasks, chunksize=1)


def _bar(done: int, total: int, start: float) -> None:
    width = 30
    filled = width * done // max(total, 1)
    elapsed = time.perf_counter() - start
    eta = elapsed / done * (total - done) if done else 0.0
    sys.stderr.write(
        f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} "
        f"{elapsed:5.0f}s elapsed, ~{eta:4.0f}s left"
    )
    if done == total:
        sys.stderr.write("\n")
    sys.stderr.flush()


def run(
    game: str,
    levels: list[str],
    games: int,
    seed: int = 0,
    jobs: int = 1,
    cap: int = DEFAULT_CAP,
    progress: bool = False,
    seconds: float | None = None,
    cpu: bool = False,
    options: dict[str, object] | None = None,
    conventions: bool = False,
) -> Summary:
    """Play ``games`` games and pool the results per level (``seconds``: the time budget of
    timed levels such as ``expert``, else their default; ``cpu``: time decisions in CPU time;
    ``options``: the house rules every game is played under, as ``create`` takes them;
    ``conventions``: add the conventions report, server.tools.conventions_report)."""
    summary = Summary(game, levels)
    start = shown = time.perf_counter()
    records = _records(game, levels, games, seed, jobs, cap, seconds, cpu, options, conventions)
    for done, record in enumerate(records, 1):
        summary.add(record)
        if progress and (done == games or time.perf_counter() - shown > 0.5):
            shown = time.perf_counter()
            _bar(done, games, start)
    summary.seconds = time.perf_counter() - start
    return summary


def main(argv: list[str]) -> int:
    """``cardroom arena GAME --seats L,L,… [--hands N] [--seed S] [--jobs J] [--cap A]
    [--seconds T] [--cpu] [--options JSON] [--conventions] [--json]``."""
    parser = argparse.ArgumentParser(prog="cardroom arena")
    parser.add_argument("game", choices=GAME_NAMES)
    parser.add_argument("--seats", required=True, help="comma-separated levels, one per seat")
    parser.add_argument("--hands", "--games", dest="games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--cap", type=int, default=DEFAULT_CAP, help="max actions per game")
    parser.add_argument(
        "--seconds",
        type=float,
        default=None,
        help="time budget per decision of timed levels (expert; default 1 s)",
    )
    parser.add_argument(
        "--cpu",
        action="store_true",
        help="time decisions (and the bots' deadlines) in process CPU time, not wall time",
    )
    parser.add_argument(
        "--options",
        type=json.loads,
        default=None,
        help=(
            "the house rules as create takes them, e.g. '{\"seven_lower\": true}' (SH-7) or"
            ' \'{"partner": "jack_of_diamonds"}\' (SS-10)'
        ),
    )
    parser.add_argument(
        "--conventions",
        action="store_true",
        help="report how often each table convention is kept, per level and role",
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON too")
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    levels = [x.strip() for x in args.seats.split(",") if x.strip()]
    bad = [x for x in levels if x not in BOT_LEVELS]
    if bad:
        parser.error(f"unknown levels {bad}; levels are {', '.join(BOT_LEVELS)}")
    try:
        game_spec(args.game).check_players(len(levels))
    except ValueError as exc:
        parser.error(str(exc))
    if args.games < 1 or args.jobs < 1 or (args.seconds is not None and args.seconds <= 0):
        parser.error("--hands, --jobs and --seconds must be positive")
    try:
        game_spec(args.game).options.model_validate(args.options or {})
    except ValueError as exc:
        parser.error(f"--options: {exc}")
    summary = run(
        args.game,
        levels,
        args.games,
        args.seed,
        args.jobs,
        args.cap,
        not args.no_progress,
        args.seconds,
        args.cpu,
        args.options,
        args.conventions,
    )
    print(summary.format())
    if args.json:
        print(json.dumps(summary.stats()))
    return 0
