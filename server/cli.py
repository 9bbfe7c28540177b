"""The ``cardroom`` command: ``serve`` runs the server, ``sim`` plays simulated games, ``bench``
measures the rules cores, ``bot`` seats a bot at a room over the protocol, ``play`` is the
terminal client, ``fuzz`` and ``soak`` try the server with hostile input and churn, ``verify``
checks the deals of a hand history."""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from server.rules.registry import GAME_NAMES

#: One simulation module per game of the registry, named for it.
SIMS = {name: f"server.tools.sim.{name}" for name in GAME_NAMES}
BENCHES = {
    "rules": "server.tools.bench.rules",
    "server": "server.tools.bench.server",
    "frames": "server.tools.bench.frames",
    "room": "server.tools.bench.room",
    "redis": "server.tools.bench.redis",
    "takeover": "server.tools.bench.takeover",
    "handover": "server.tools.bench.handover",
    "bots": "server.tools.bench.bots",
    "churn": "server.tools.bench.churn",
    "queue": "server.tools.bench.queue",
    "faults": "server.tools.bench.faults",
    "durability": "server.tools.bench.durability",
}

#: The room budgets of a public server: ``cardroom serve`` flags for fields of RoomSettings.
BUDGET_FLAGS: tuple[tuple[str, type, str], ...] = (
    ("--lobby-timeout", float, "seconds before an empty lobby (nobody in it, no game) closes"),
    ("--rooms-per-minute", float, "rooms one address may create a minute, on average"),
    ("--rooms-burst", float, "rooms one address may create at once"),
    ("--rooms-per-address", int, "rooms open at once that one address created"),
    ("--max-rooms", int, "rooms open in this process"),
    ("--chat-per-minute", float, "chat lines a room takes a minute from its spectators together"),
    ("--chat-burst", float, "chat lines a room takes at once from its spectators together"),
    ("--chat-each-per-minute", float, "chat lines one sender may send a minute"),
    ("--chat-each-burst", float, "chat lines one sender may send at once"),
    ("--max-spectators", int, "spectators a room takes at once (then spectators_full)"),
    (
        "--spectator-frame-interval",
        float,
        "seconds between two room frames to a room's members that spectators coming and "
        "going send (the last count follows at the interval's end)",
    ),
)


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
    sub.add_parser("verify", help="check every deal of a room's hand history", add_help=False)
    args, rest = parser.parse_known_args(argv)
    if args.command == "serve":
        return serve(rest)
    if args.command == "bot":
        module = importlib.import_module("server.tools.remote_bot")
    elif args.command == "play":
        module = importlib.import_module("clients.terminal.app")
    elif args.command == "sim":
        module = importlib.import_module(SIMS[args.game])
    elif args.command == "arena":
        module = importlib.import_module("server.tools.arena")
    elif args.command in ("fuzz", "soak"):
        module = importlib.import_module(f"server.tools.fuzz.{args.command}")
    elif args.command == "loadtest":
        module = importlib.import_module("server.tools.bench.loadtest")
    elif args.command == "verify":
        module = importlib.import_module("server.tools.verify")
    else:
        module = importlib.import_module(BENCHES[args.what])
    result: int = module.main(rest)
    return result


def serve(argv: list[str]) -> int:
    import asyncio
    import logging

    from server.net.address import Proxies, ProxyHeader
    from server.net.server import CardroomServer, ServerConfig
    from server.rooms.event_settings import MAX_TABLES, EventLimits
    from server.rooms.secret import SecretMismatch, parse_secret
    from server.rooms.seeds import Keys
    from server.rooms.settings import RoomSettings
    from server.runtime.queue_service import QueueSettings
    from server.store.budgets import SITE_MULTIPLE
    from server.store.redis_sentinel import Durability

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
    budgets = RoomSettings()  # the defaults of the room budgets (README: "Running a public server")
    budget_names = [flag[2:].replace("-", "_") for flag, _, _ in BUDGET_FLAGS]  # as in settings
    for (flag, kind, what), name in zip(BUDGET_FLAGS, budget_names, strict=True):
        parser.add_argument(flag, type=kind, default=getattr(budgets, name), help=what)
    parser.add_argument(
        "--origin",
        action="append",
        dest="origins",
        help="a browser Origin allowed besides the server's own (repeat; '*': any; default: "
        "only pages this server's host served; clients that send no Origin are always let in)",
    )
    parser.add_argument(
        "--trusted-proxy",
        action="append",
        dest="trusted_proxies",
        metavar="CIDR",
        default=None,
        help="a proxy (address or network) whose forwarded client address is believed "
        "(repeat; default: $CARDROOM_TRUSTED_PROXIES, comma-separated; unset: none)",
    )
    parser.add_argument(
        "--proxy-header",
        choices=[h.value for h in ProxyHeader],
        default=ProxyHeader.X_FORWARDED_FOR.value,
        help="the header the trusted proxy writes the client's address into",
    )
    parser.add_argument(
        "--forwarded-host",
        action="store_true",
        help="the trusted proxy writes X-Forwarded-Host (or Forwarded host=) itself, over any "
        "a client sent: the origin check reads it instead of Host (default: off, Host)",
    )
    parser.add_argument(
        "--allowed-host",
        action="append",
        dest="allowed_hosts",
        metavar="NAME",
        default=[],
        help="a host name this server answers to (repeat; default: any); a request naming "
        "another gets 421 (/healthz and /metrics excepted), so a page of a site pointed at "
        "this server's address (DNS rebinding) cannot pass as same-origin",
    )
    parser.add_argument(
        "--open-timeout",
        type=float,
        default=10.0,
        help="seconds a new connection has to finish its HTTP request and handshake",
    )
    parser.add_argument(
        "--max-handshakes",
        type=int,
        default=1000,
        help="connections still sending their request, in all (at most a quarter of the "
        "file descriptor limit)",
    )
    parser.add_argument(
        "--max-handshakes-per-address",
        type=int,
        default=64,
        help="connections still sending their request from one address (not a trusted proxy)",
    )
    parser.add_argument(
        "--backlog",
        type=int,
        default=1024,
        help="connections the kernel queues before the server accepts them (at most "
        "net.core.somaxconn); past it a connection's SYN is dropped and retried a second later",
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
        "--max-connections",
        type=int,
        default=10_000,
        help="open WebSockets in this process (at most what its file descriptor limit holds)",
    )
    parser.add_argument(
        "--max-per-address",
        type=int,
        default=50,
        help="open WebSockets from one client address (IPv6: one /64)",
    )
    parser.add_argument(
        "--no-trim-memory",
        dest="trim_memory",
        action="store_false",
        help="do not hand freed memory back to the system after bursts of closed connections",
    )
    parser.add_argument(
        "--gc-freeze-every",
        type=int,
        default=500,
        help="every this many new connections, freeze what is alive out of the collector's "
        "sight (gc.freeze; 0: never)",
    )
    parser.add_argument(
        "--loop-lag-interval",
        type=float,
        default=0.01,
        help="seconds between two probes of the event loop's lateness "
        "(cardroom_loop_lag_seconds in /metrics; 0: none)",
    )
    parser.add_argument(
        "--compression",
        choices=("off", "deflate"),
        default="off",
        help="permessage-deflate for clients that offer it (off: frames go uncompressed; "
        "deflate costs CPU per action and memory per connection for fewer bytes)",
    )
    parser.add_argument(
        "--redis",
        default=os.environ.get("REDIS_URL") or None,
        metavar="URL",
        help="keep rooms, history and leaderboards in Redis at this redis:// URL (a Redis "
        "Cluster: redis+cluster://host:port[,host:port...], its seed nodes; a primary watched "
        "by Sentinel: redis+sentinel://host:port[,host:port...]/MASTER, followed through a "
        "failover), so games survive a restart or crash (default: $REDIS_URL; unset: in memory)",
    )
    parser.add_argument(
        "--durability",
        choices=("local", "replicated"),
        default="local",
        help="with --redis: when an action counts as stored: local, once the primary has it; "
        "replicated, once a replica has it too (WAIT; refused as store_unavailable if none "
        "confirms within a second), so a failover loses nothing acknowledged",
    )
    parser.add_argument(
        "--no-place-rooms",
        dest="place_rooms",
        action="store_false",
        help="with --redis: keep a room where it was created, rather than letting it go at "
        "once for the process a proxy routes its /ws/CODE to (deploy/nginx.conf)",
    )
    parser.add_argument(
        "--bot-workers",
        type=int,
        default=None,
        help="processes the strong and expert bots think in (default: one a core, up to 4)",
    )
    parser.add_argument(
        "--bot-queue-per-address",
        type=int,
        default=64,
        help="bot decisions and hints the rooms of one address may have waiting for a worker "
        "(more are made by the basic bot at once)",
    )
    parser.add_argument(
        "--bot-queue",
        type=int,
        default=4096,
        help="bot decisions and hints waiting for a worker in all (more: the basic bot at once)",
    )
    parser.add_argument(
        "--max-expert-seats",
        type=int,
        default=2,
        help="expert bots one room may seat (more are refused: expert_limit)",
    )
    parser.add_argument(
        "--secret",
        default=os.environ.get("CARDROOM_SECRET") or None,
        metavar="HEX",
        help="the server secret every deal and device identity is derived from, 64+ hex digits "
        "(default: $CARDROOM_SECRET, preferred: a command line is visible to other users). "
        "Never stored: required with --redis, the same in every process; unset without Redis: "
        "made at random for this process",
    )
    parser.add_argument(
        "--history-rate",
        type=float,
        default=2.0,
        help="HTTP API requests (history, leaderboards, daily) a second one address may make on "
        "average (then HTTP 429)",
    )
    parser.add_argument(
        "--history-burst", type=float, default=20.0, help="burst above --history-rate"
    )
    parser.add_argument(
        "--miss-rate",
        type=float,
        default=0.2,
        help="requests for rooms that do not exist a second one address may make on average; "
        "past them its room requests are too_many_misses, hit or miss (codes are not guessed)",
    )
    parser.add_argument("--miss-burst", type=float, default=10.0, help="burst above --miss-rate")
    parser.add_argument(
        "--miss-floor",
        type=float,
        default=0.05,
        help="seconds a room_not_found is answered after its request, at the soonest",
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
        "--next-hand-delay",
        type=float,
        default=5.0,
        help="seconds an event's table waits after a hand before it deals the next",
    )
    parser.add_argument(
        "--events-per-minute",
        type=float,
        default=2.0,
        help="events one address may create a minute, on average (then too_many_events)",
    )
    parser.add_argument(
        "--events-burst", type=float, default=5.0, help="events one address may create at once"
    )
    parser.add_argument(
        "--max-events", type=int, default=100, help="events open at once that this process made"
    )
    parser.add_argument(
        "--max-event-tables",
        type=int,
        default=10,
        help="tables an event seats at most (10 at most)",
    )
    parser.add_argument(
        "--daily-entries-per-address",
        type=int,
        default=6,
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
        "--worked-devices-per-address",
        type=int,
        default=3,
        help="more identities an address earns a UTC day by a proof of work, past its free ones",
    )
    parser.add_argument(
        "--identity-work-bits",
        type=int,
        default=16,
        help="the difficulty of that work: leading zero bits of a SHA-256",
    )
    parser.add_argument(
        "--wait-before-queue",
        type=float,
        default=300.0,
        help="seconds a player who left a rated game (or was gone past the grace) waits before "
        "they may queue again",
    )
    parser.add_argument(
        "--move-rate",
        type=float,
        default=1 / 60,
        help="identity move codes asked for or tried a second per address (one a minute)",
    )
    parser.add_argument(
        "--move-burst",
        type=float,
        default=5.0,
        help="... and at once",
    )
    parser.add_argument(
        "--ipv6-site-multiple",
        type=float,
        default=SITE_MULTIPLE,
        help="an IPv6 client counts by its /64 and by its /48, which gets this many times every "
        "per-address budget (a subscriber holds a /56 or a /48)",
    )
    parser.add_argument(
        "--queue-shithead-table",
        type=int,
        default=4,
        choices=range(2, 6),
        metavar="N",
        help="Play now: the size of a Shithead table, 2-5 (Sheepshead's is 5)",
    )
    parser.add_argument(
        "--queue-fill-wait",
        type=float,
        default=20.0,
        help="Play now: seconds before a table starts with bots in the seats nobody took",
    )
    parser.add_argument(
        "--queue-take-window",
        type=float,
        default=15.0,
        help="Play now: seconds a table started with bots gives its bots' seats to arrivals "
        "(each before its bot's first move)",
    )
    parser.add_argument(
        "--queue-max",
        type=int,
        default=1000,
        help="Play now: people one game's line holds (then queue_full)",
    )
    parser.add_argument(
        "--queue-per-minute",
        type=float,
        default=6.0,
        help="Play now: queue joins one address may make a minute, on average",
    )
    parser.add_argument(
        "--queue-burst",
        type=float,
        default=10.0,
        help="Play now: queue joins one address may make at once",
    )
    parser.add_argument(
        "--ladder-fill-wait",
        type=float,
        default=5.0,
        help="the bots' ladder: seconds before a table starts with house anchors in the seats "
        "nobody took",
    )
    parser.add_argument(
        "--ladder-turn-timer",
        type=int,
        default=10,
        help="the bots' ladder: seconds a bot has for a turn (then the stand-in plays it)",
    )
    parser.add_argument("--log-level", default="INFO")
    args = parser.parse_args(argv)
    try:
        keys = Keys(parse_secret(args.secret)) if args.secret else None
    except ValueError as exc:
        parser.error(str(exc))
    if args.redis and keys is None:
        # the secret is never kept in Redis (whoever reads it would compute every deal and
        # sign identities), so every process must be given it
        parser.error(
            "--redis needs the server secret: set CARDROOM_SECRET (or --secret) to 64+ hex "
            "digits, the same in every process (e.g. python3 -c 'import secrets; "
            "print(secrets.token_hex(32))')"
        )
    logging.getLogger("websockets").setLevel(logging.WARNING)
    logging.basicConfig(
        level=args.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    origins = None
    if args.origins:
        origins = (*args.origins, None)  # non-browser clients send no Origin
    proxies = args.trusted_proxies
    if proxies is None:
        proxies = os.environ.get("CARDROOM_TRUSTED_PROXIES", "").replace(",", " ").split()
    try:
        Proxies.parse(proxies)
    except ValueError as exc:
        parser.error(f"--trusted-proxy: {exc}")
    if not 1 <= args.max_event_tables <= MAX_TABLES:
        parser.error(f"--max-event-tables: 1 to {MAX_TABLES}")
    config = ServerConfig(
        host=args.host,
        port=args.port,
        origins=origins,
        rate=args.rate,
        burst=args.burst,
        hello_timeout=args.hello_timeout,
        max_connections=args.max_connections,
        max_per_address=args.max_per_address,
        trusted_proxies=tuple(proxies),
        proxy_header=ProxyHeader(args.proxy_header),
        forwarded_host=args.forwarded_host,
        allowed_hosts=tuple(args.allowed_hosts),
        open_timeout=args.open_timeout,
        max_handshakes=args.max_handshakes,
        max_handshakes_per_address=args.max_handshakes_per_address,
        backlog=args.backlog,
        trim_memory=args.trim_memory,
        gc_freeze_every=args.gc_freeze_every,
        loop_lag_interval=args.loop_lag_interval,
        compression=args.compression,
        redis_url=args.redis,
        durability=Durability(args.durability),
        place_rooms=args.place_rooms,
        history_rate=args.history_rate,
        history_burst=args.history_burst,
        miss_rate=args.miss_rate,
        miss_burst=args.miss_burst,
        miss_floor=args.miss_floor,
        replay_cache_bytes=int(args.replay_cache_mb * 1024 * 1024),
        devices_per_address=args.devices_per_address,
        worked_devices_per_address=args.worked_devices_per_address,
        identity_work_bits=args.identity_work_bits,
        move_rate=args.move_rate,
        move_burst=args.move_burst,
        queue=QueueSettings(
            shithead_table=args.queue_shithead_table,
            fill_wait=args.queue_fill_wait,
            take_window=args.queue_take_window,
            per_game=args.queue_max,
            joins_per_minute=args.queue_per_minute,
            joins_burst=args.queue_burst,
            ladder_fill_wait=args.ladder_fill_wait,
            ladder_turn_timer=args.ladder_turn_timer,
        ),
        ipv6_site_multiple=args.ipv6_site_multiple,
        rooms=RoomSettings(
            grace=args.grace,
            idle_timeout=args.idle_timeout,
            bot_delay=args.bot_delay,
            max_expert_seats=args.max_expert_seats,
            **{name: getattr(args, name) for name in budget_names},
            keys=keys,
            max_games=args.max_games,
            next_hand_delay=args.next_hand_delay,
            daily_entries_per_address=args.daily_entries_per_address,
            daily_alone=args.daily_alone == "on",
            wait_before_queue=args.wait_before_queue,
        ),
        events=EventLimits(
            events_per_minute=args.events_per_minute,
            events_burst=args.events_burst,
            max_events=args.max_events,
            max_tables=args.max_event_tables,
        ),
        bot_queue_per_address=args.bot_queue_per_address,
        bot_queue=args.bot_queue,
        bot_workers=args.bot_workers,
    )
    server = CardroomServer(config)
    try:
        try:
            import uvloop  # declared for Linux in pyproject.toml; optional elsewhere
        except ImportError:
            logging.getLogger("cardroom").info("uvloop is not installed: using asyncio's own loop")
            asyncio.run(server.serve_forever())
        else:
            uvloop.run(server.serve_forever())  # the listening line names the loop
    except SecretMismatch as exc:
        print(f"cardroom serve: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
