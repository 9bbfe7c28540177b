"""The ``cardroom`` command: ``serve`` runs the server, ``sim`` plays simulated games, ``bench``
measures the rules cores, ``bot`` seats a bot at a room over the protocol, ``play`` is the
terminal client, ``fuzz`` and ``soak`` try the server with hostile input and churn."""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from server.rules.registry import GAME_NAMES

#: One simulation module per game of the registry, named for it.
SIMS = {name: f"server.sim.{name}" for name in GAME_NAMES}
BENCHES = {
    "rules": "server.bench.rules",
    "server": "server.bench.server",
    "frames": "server.bench.frames",
    "room": "server.bench.room",
    "redis": "server.bench.redis",
    "takeover": "server.bench.takeover",
}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(prog="cardroom", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("serve", help="run the game server", add_help=False)
    sim = sub.add_parser("sim", help="play simulated games and print a summary", add_help=False)
    sim.add_argument("game", choices=GAME_NAMES)
    bench = sub.add_parser("bench", help="run a benchmark and print its figures", add_help=False)
    bench.add_argument("what", choices=sorted(BENCHES))
    sub.add_parser("arena", help="bots play each other; per-level results", add_help=False)
    sub.add_parser("bot", help="seat a bot at a room as a remote client", add_help=False)
    sub.add_parser("play", help="play in the terminal (Textual)", add_help=False)
    sub.add_parser("fuzz", help="hostile frames against a loopback server", add_help=False)
    sub.add_parser("soak", help="rooms and people churning for --minutes", add_help=False)
    sub.add_parser(
        "loadtest", help="rooms of scripted clients against one server process", add_help=False
    )
    args, rest = parser.parse_known_args(argv)
    if args.command == "serve":
        return serve(rest)
    if args.command == "bot":
        module = importlib.import_module("server.remote_bot")
    elif args.command == "play":
        module = importlib.import_module("clients.terminal.app")
    elif args.command == "sim":
        module = importlib.import_module(SIMS[args.game])
    elif args.command == "arena":
        module = importlib.import_module("server.arena")
    elif args.command in ("fuzz", "soak"):
        module = importlib.import_module(f"server.fuzz.{args.command}")
    elif args.command == "loadtest":
        module = importlib.import_module("server.bench.loadtest")
    else:
        module = importlib.import_module(BENCHES[args.what])
    result: int = module.main(rest)
    return result


def serve(argv: list[str]) -> int:
    import asyncio
    import logging

    from server.net.server import CardroomServer, ServerConfig
    from server.rooms.seats import RoomSettings

    parser = argparse.ArgumentParser(prog="cardroom serve")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument(
        "--grace", type=float, default=60.0, help="seconds a disconnected player's seat is held"
    )
    parser.add_argument(
        "--idle-timeout",
        type=float,
        default=300.0,
        help="seconds before a room nobody is connected to closes",
    )
    parser.add_argument(
        "--bot-delay", type=float, default=0.8, help="seconds a bot waits before it moves"
    )
    parser.add_argument(
        "--origin",
        action="append",
        dest="origins",
        help="allowed browser Origin (repeat; default: any)",
    )
    parser.add_argument(
        "--rate",
        type=float,
        default=20.0,
        help="messages a second a connection may send on average",
    )
    parser.add_argument("--burst", type=float, default=40.0, help="burst above --rate")
    parser.add_argument(
        "--hello-timeout",
        type=float,
        default=10.0,
        help="seconds a new connection has to send hello before it is closed",
    )
    parser.add_argument(
        "--max-connections", type=int, default=10_000, help="open WebSockets in this process"
    )
    parser.add_argument(
        "--max-per-address", type=int, default=50, help="open WebSockets from one IP address"
    )
    parser.add_argument(
        "--no-trim-memory",
        dest="trim_memory",
        action="store_false",
        help="do not hand freed memory back to the system after bursts of closed connections",
    )
    parser.add_argument(
        "--compression",
        choices=("off", "deflate"),
        default="off",
        help="permessage-deflate for clients that offer it (off: frames go uncompressed; "
        "docs/benchmarks.md has the measured cost of each)",
    )
    parser.add_argument(
        "--redis",
        default=os.environ.get("REDIS_URL") or None,
        metavar="URL",
        help="keep rooms, history and leaderboards in Redis at this redis:// URL, so games "
        "survive a restart or crash (default: $REDIS_URL; unset: in memory)",
    )
    parser.add_argument(
        "--history-rate",
        type=float,
        default=2.0,
        help="history API requests a second one address may make on average (then HTTP 429)",
    )
    parser.add_argument(
        "--history-burst", type=float, default=20.0, help="burst above --history-rate"
    )
    parser.add_argument(
        "--replay-cache-mb",
        type=float,
        default=64.0,
        help="MB of replayed games' steps the history API keeps (least recently used dropped)",
    )
    parser.add_argument(
        "--max-games",
        type=int,
        default=100,
        help="games a room deals at most (its series then ends: the history a room keeps)",
    )
    parser.add_argument(
        "--daily-entries-per-address",
        type=int,
        default=3,
        help="daily-board entries a day for the device identities issued to one address",
    )
    parser.add_argument(
        "--daily-alone",
        choices=("on", "off"),
        default="on",
        help="a daily room is one person against fixed bots (off: for the fuzzer only; such "
        "rooms then rank nobody)",
    )
    parser.add_argument(
        "--devices-per-address",
        type=int,
        default=3,
        help="device identities (the only ones ranked) issued to one address a UTC day",
    )
    parser.add_argument(
        "--device-secret",
        default=os.environ.get("CARDROOM_DEVICE_SECRET") or None,
        help="signs device identities; the same for every process (default: "
        "$CARDROOM_DEVICE_SECRET; unset: one kept in Redis, else one per process)",
    )
    parser.add_argument("--log-level", default="INFO")
    args = parser.parse_args(argv)
    logging.getLogger("websockets").setLevel(logging.WARNING)
    logging.basicConfig(
        level=args.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    origins = None
    if args.origins:
        origins = (*args.origins, None)  # non-browser clients send no Origin
    config = ServerConfig(
        host=args.host,
        port=args.port,
        origins=origins,
        rate=args.rate,
        burst=args.burst,
        hello_timeout=args.hello_timeout,
        max_connections=args.max_connections,
        max_per_address=args.max_per_address,
        trim_memory=args.trim_memory,
        compression=args.compression,
        redis_url=args.redis,
        history_rate=args.history_rate,
        history_burst=args.history_burst,
        replay_cache_bytes=int(args.replay_cache_mb * 1024 * 1024),
        devices_per_address=args.devices_per_address,
        device_secret=args.device_secret,
        rooms=RoomSettings(
            grace=args.grace,
            idle_timeout=args.idle_timeout,
            bot_delay=args.bot_delay,
            max_games=args.max_games,
            daily_entries_per_address=args.daily_entries_per_address,
            daily_alone=args.daily_alone == "on",
        ),
    )
    server = CardroomServer(config)
    try:
        import uvloop  # declared for Linux in pyproject.toml; optional elsewhere
    except ImportError:
        logging.getLogger("cardroom").info("uvloop is not installed: using asyncio's own loop")
        asyncio.run(server.serve_forever())
    else:
        uvloop.run(server.serve_forever())  # the listening line names the loop
    return 0


if __name__ == "__main__":
    sys.exit(main())
