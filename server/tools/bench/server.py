"""``cardroom bench server``: game actions per second through one real server process, with
bots.

Starts ``cardroom serve`` pinned to CPU 0 (bots move at once, rate limit raised), opens
``--rooms`` rooms, each with one scripted human client (this process, pinned to CPU 1) and four
bots, and measures ``--seconds`` after a warm-up with the load tester's counting
(:mod:`server.tools.bench.loadtest`): only the human's own acknowledged actions count as its actions
(never version bumps, so ``start`` and ``next_game`` are not actions), latency is timed from
sending an action to receiving the state it produced (refused requests, setup requests and
chat are not timed), and the bots' moves are counted and timed apart, from the events of the
states they produce.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence

from server.tools.bench.loadtest import measure_rooms, prepare, run
from server.tools.bench.loadtest import parser as loadtest_parser


async def run_load(
    game: str,
    rooms: int,
    seconds: float,
    level: str,
    port: int | None = None,
    *,
    extra: Sequence[str] = (),
    on_done: Callable[[int], object] | None = None,
    pace: float | None = None,
) -> dict[str, float]:
    """This bench's load against a server (``port``: one already running; else one started with
    ``extra`` arguments besides the raised limits), for other benches: actions/s (the human's
    acks plus the bots' moves), the human's, and its act → own view (mean, p50, p99, share
    within 5 ms). ``on_done(port)`` runs before a started server is stopped. ``pace``: the
    humans' actions/s in all (the bots still answer at once); default as fast as they may."""
    options = ["--game", game, "--rooms", str(rooms), "--humans", "1", "--level", level]
    options += ["--seconds", str(seconds), "--no-ceiling"]
    if pace:
        options += ["--pace", str(pace)]
    options += [f"--serve-arg={a}" for a in extra]
    if port:
        options += ["--port", str(port)]
    args = prepare(loadtest_parser().parse_args(options))
    r, _, _ = await measure_rooms(args, on_done)
    return {
        "actions_per_s": r.accepted_per_s + r.bot_moves_per_s,
        "human_actions_per_s": r.accepted_per_s,
        "mean_latency_ms": r.mean_ms,
        "p50_ms": r.p50_ms,
        "p99_ms": r.p99_ms,
        "within_5ms": r.within_5ms,
        "server_cpu": float("nan") if r.server_cpu is None else r.server_cpu,  # of one core
        # the server process's CPU seconds a second over actions a second (nan: not measured)
        "server_cpu_per_action": (r.server_cpu if r.server_cpu is not None else float("nan"))
        / max(r.accepted_per_s + r.bot_moves_per_s, 1e-9),
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="cardroom bench server")
    parser.add_argument("--game", choices=("shithead", "sheepshead"), default="sheepshead")
    parser.add_argument("--rooms", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--level", default="basic", help="level of the four bots per room")
    parser.add_argument(
        "--port",
        type=int,
        help="use a server already running here "
        "(started with --bot-delay 0 and raised limits) instead of starting one",
    )
    args = parser.parse_args(argv)
    options = ["--game", args.game, "--rooms", str(args.rooms), "--humans", "1"]
    options += ["--seconds", str(args.seconds), "--level", args.level, "--no-ceiling"]
    if args.port:
        options += ["--port", str(args.port)]
    full = prepare(loadtest_parser().parse_args(options))
    r, notes, _ = run(measure_rooms(full))
    print(
        f"server, {args.game}: {args.rooms} rooms x (1 scripted human + 4 {args.level} bots), "
        f"{r.seconds:.0f} s measured after {full.warmup:g} s, server in its own process"
    )
    for line in notes:
        print(line)
    print(
        f"  human actions {r.accepted_per_s:,.0f}/s accepted (acks); act -> own view "
        f"p50 {r.p50_ms:.2f} ms, p99 {r.p99_ms:.2f} ms, {r.within_5ms:.0%} within 5 ms\n"
        f"  bot moves {r.bot_moves_per_s:,.0f}/s; state naming the bot -> state with its move "
        f"p50 {r.bot_p50_ms:.2f} ms, p99 {r.bot_p99_ms:.2f} ms\n"
        f"  all game actions {r.accepted_per_s + r.bot_moves_per_s:,.0f}/s; server CPU "
        + (f"{r.server_cpu:.0%}" if r.server_cpu is not None else "unknown")
        + "; refusals "
        + (", ".join(f"{code} {n:,}" for code, n in sorted(r.refused.items())) or "none")
    )
    return 0
