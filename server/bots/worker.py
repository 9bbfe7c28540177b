"""One bot worker process (``python -m server.bots.worker``): decisions in, decisions out.

It reads requests from stdin and writes replies to stdout, each a frame of a 4-byte big-endian
length and a pickle (both ends are this program: nothing from a client is unpickled here). It
holds no bot between requests: a decision's bot arrives as the state the last decision left
(or is made from its seed), decides, and goes back as its new state, so a room's bots live in
the room and leave with it, and any worker can serve any room. ``--factory LEVEL=module:name``
makes ``name(seed)`` the bot of ``LEVEL`` for every game (tests inject slow or failing bots so).

Requests and replies (tuples):

- ``("choose", level, game, seed, view, state)`` -> ``("done", action, state)``
- ``("advise", game, seed, view)`` -> ``("done", action, advice)``: a fresh ``strong`` bot's
  hint and what its search found (:class:`~server.bots.advice.Advice`, or ``None``)
- ``("census",)`` -> ``("census", {"pid", "bots", "decisions", "levels", "rss", "nice"})``: the
  bots alive in this process (none between decisions), decisions made (and by level), resident
  memory in bytes, CPU niceness
- a failure -> ``("failed", text)``
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import pickle
import struct
import sys
import weakref
from typing import Any, BinaryIO, cast

from protocol.views import View

HEADER = struct.Struct(">I")
#: The level a hint asks (the pool's HINT_LEVEL; repeated here so the worker imports no pool).
HINT_LEVEL = "strong"

_alive: weakref.WeakSet[Any] = weakref.WeakSet()  # every bot this process made or loaded
_decisions: dict[str, int] = {}  # level -> decisions made here (a hint counts as its level)


def write_frame(out: BinaryIO, value: object) -> None:
    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    out.write(HEADER.pack(len(data)) + data)
    out.flush()


def read_frame(inp: BinaryIO) -> Any:
    """The next frame's value, or ``None`` at the end of the input."""
    head = inp.read(HEADER.size)
    if len(head) < HEADER.size:
        return None
    (size,) = HEADER.unpack(head)
    return pickle.loads(inp.read(size))


def _rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _register(specs: list[str]) -> None:
    from server.bots.base import register
    from server.rules.registry import GAME_NAMES

    for spec in specs:
        level, _, target = spec.partition("=")
        module, _, name = target.partition(":")
        factory = getattr(importlib.import_module(module), name)
        for game in GAME_NAMES:
            register(level, game, factory)


def _count(level: str) -> None:
    _decisions[level] = _decisions.get(level, 0) + 1


def handle(request: tuple[Any, ...]) -> tuple[Any, ...]:
    """One request's reply (see the module docstring)."""
    from server.bots.base import Advisor, make_bot

    match request:
        case ("choose", str(level), str(game), int(seed), dict(view), state):
            bot = make_bot(level, game, seed=seed) if state is None else pickle.loads(state)
            _alive.add(bot)
            action = bot.choose(cast(View, view))  # the pool sent a view the rules built
            _count(level)
            return ("done", action, pickle.dumps(bot, protocol=pickle.HIGHEST_PROTOCOL))
        case ("advise", str(game), int(seed), dict(view)):
            bot = make_bot(HINT_LEVEL, game, seed=seed)
            _alive.add(bot)
            _count(HINT_LEVEL)
            if isinstance(bot, Advisor):
                return ("done", *bot.advise(cast(View, view)))
            return ("done", bot.choose(cast(View, view)), None)
        case ("census",):
            gc.collect()  # a bot in a reference cycle counts until collected
            census = {"pid": os.getpid(), "bots": len(_alive), "rss": _rss(), "nice": os.nice(0)}
            census["decisions"] = sum(_decisions.values())
            return ("census", {**census, "levels": dict(_decisions)})
    return ("failed", f"unknown request {request[:1]!r}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m server.bots.worker")
    parser.add_argument("--factory", action="append", default=[], metavar="LEVEL=module:name")
    parser.add_argument("--nice", type=int, default=0, help="lower this process's CPU priority")
    args = parser.parse_args(argv)
    if args.nice:
        os.nice(args.nice)
    # replies own stdout: anything else printed goes to stderr
    out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    inp = sys.stdin.buffer
    import server.bots  # noqa: F401 - registers every level before the first request

    _register(args.factory)
    write_frame(out, ("ready", os.getpid()))
    while (request := read_frame(inp)) is not None:
        try:
            reply = handle(request)
        except Exception as exc:  # a bot's bug: the pool falls back, this worker goes on
            reply = ("failed", f"{type(exc).__name__}: {exc}")
        write_frame(out, reply)
    return 0


if __name__ == "__main__":
    sys.exit(main())
