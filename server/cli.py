"""The ``cardroom`` command: ``sim`` plays simulated games, ``bench`` measures the rules core."""

from __future__ import annotations

import argparse
import importlib
import sys

SIMS = {"shithead": "server.sim.shithead", "sheepshead": "server.sim.sheepshead"}
BENCHES = {"rules": "server.bench.rules"}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(prog="cardroom", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    sim = sub.add_parser("sim", help="play simulated games and print a summary", add_help=False)
    sim.add_argument("game", choices=sorted(SIMS))
    bench = sub.add_parser("bench", help="run a benchmark and print its figures", add_help=False)
    bench.add_argument("what", choices=sorted(BENCHES))
    args, rest = parser.parse_known_args(argv)
    if args.command == "sim":
        module = importlib.import_module(SIMS[args.game])
    else:
        module = importlib.import_module(BENCHES[args.what])
    result: int = module.main(rest)
    return result


if __name__ == "__main__":
    sys.exit(main())
