"""``cardroom bot``: one of the server's bots (:func:`server.bots.make_bot`) sitting at a table as
a remote client, exactly as a third-party bot would: it joins a room by code over the WebSocket
protocol with :class:`clients.CardroomClient` and decides from the views the protocol sends its
seat, nothing else. It plays until the room closes (or ``--games`` games are over), and takes its
seat back with its token by itself if the connection drops or the room moves (through ``--also``
URLs too: other processes of the same service, for a rolling restart).

With ``--ladder GAME`` instead of ``--room``, it says hello as a bot (a bot identity, kept in
``--identity FILE`` if given, so its ladder rating carries over to the next run) and plays
``--games`` rated games of the bots' ladder back to back
(:meth:`clients.CardroomClient.play_ladder`).

    cardroom bot --server ws://127.0.0.1:8765/ --room K7Q2M --level strong --seat-name Robin
    cardroom bot --server ws://127.0.0.1:8765/ --ladder shithead --games 20 --seat-name Robin
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from clients import CardroomClient, CardroomError, ConnectionLost
from protocol.errors import ErrorCode
from protocol.messages import GameName, State
from protocol.views import ActionWire, View
from server.bots import BOT_LEVELS, Bot, make_bot
from server.bots.pool import SLOW_LEVELS
from server.rules.registry import GAME_NAMES

log = logging.getLogger("cardroom.bot")

#: Levels whose decision may take a noticeable time: decided in a thread so pings keep flowing.
_SLOW = SLOW_LEVELS
#: Notices and refusals that mean the seat is gone for good: the bot leaves quietly.
_SEAT_GONE = frozenset(
    {ErrorCode.REMOVED, ErrorCode.REPLACED, ErrorCode.BAD_TOKEN, ErrorCode.ROOM_NOT_FOUND}
)


@dataclass(frozen=True)
class BotOptions:
    server: str
    room: str | None  # None: the ladder's line (``ladder``)
    level: str = "basic"
    name: str | None = None
    seat: int | None = None
    games: int | None = None  # stop after this many finished games (None: until the room ends)
    seed: int | None = None
    also: tuple[str, ...] = ()  # other processes of the same service, tried when coming back
    ladder: str | None = None  # the game whose bots' ladder to play (then ``room`` is None)
    identity: Path | None = None  # where the ladder's bot identity is kept between runs


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cardroom bot",
        description="Seat one of the server's bots at a room as a remote client.",
    )
    parser.add_argument("--server", required=True, help="the server's URL, e.g. ws://host:8765/")
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--room", help="the five-letter room code")
    where.add_argument(
        "--ladder",
        choices=GAME_NAMES,
        help="play this game's bots' ladder (rated, --games of them back to back) instead",
    )
    parser.add_argument("--level", choices=BOT_LEVELS, default="basic", help="default: basic")
    parser.add_argument("--seat-name", dest="name", help="the name to sit under")
    parser.add_argument("--seat", type=int, help="a particular seat (default: any free one)")
    parser.add_argument(
        "--games",
        type=int,
        help="leave after this many games (default: stay; on the ladder: 1)",
    )
    parser.add_argument(
        "--identity",
        type=Path,
        help="the ladder: a file that keeps the bot identity between runs (made if missing)",
    )
    parser.add_argument("--seed", type=int, help="seed of the bot's own random choices")
    parser.add_argument(
        "--also",
        action="append",
        default=[],
        metavar="URL",
        help="another process of the same service, to come back through (repeatable)",
    )
    parser.add_argument("--log-level", default="WARNING")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    logging.basicConfig(
        level=args.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    options = BotOptions(
        server=args.server,
        room=args.room,
        level=args.level,
        name=args.name,
        seat=args.seat,
        games=args.games,
        seed=args.seed,
        also=tuple(args.also),
        ladder=args.ladder,
        identity=args.identity,
    )
    try:
        finished = asyncio.run(run_ladder(options) if args.ladder else run_bot(options))
    except CardroomError as exc:
        print(f"cardroom bot: {exc}", file=sys.stderr)
        return 1
    except (ConnectionLost, OSError) as exc:
        print(f"cardroom bot: cannot reach {args.server}: {exc}", file=sys.stderr)
        return 1
    where = f"on the {args.ladder} ladder" if args.ladder else f"in room {args.room.upper()}"
    print(f"cardroom bot: {finished} game(s) played {where}")
    return 0


async def _take_seat(client: CardroomClient, options: BotOptions) -> None:
    """Join under the given name, or under ``Remote <level>`` with a number added until no one
    in the room has it (names are unique within a room)."""
    base = options.name or f"Remote {options.level}"
    assert options.room is not None
    for n in range(1, 10):
        name = base if n == 1 else f"{base} {n}"
        try:
            await client.join(options.room, name, options.seat)
            return
        except CardroomError as exc:
            if exc.code != ErrorCode.NAME_TAKEN or options.name is not None:
                raise
    raise CardroomError(ErrorCode.NAME_TAKEN, f"no free name like {base!r}")


async def _decide(bot: Bot, level: str, view: View) -> ActionWire:
    if level in _SLOW:
        action = await asyncio.to_thread(bot.choose, view)
    else:
        action = bot.choose(view)
    return action.to_json()


async def run_ladder(options: BotOptions) -> int:
    """Play ``options.games`` (default 1) rated games of the bots' ladder of
    ``options.ladder`` as a bot identity; return how many were played."""
    assert options.ladder is not None
    game = cast(GameName, options.ladder)
    kept = options.identity
    device = (kept.read_text().strip() or None) if kept is not None and kept.exists() else None
    async with CardroomClient.connect(
        options.server, hello="cardroom-bot", device=device, bot=True
    ) as client:
        if kept is not None and client.device is not None and client.device != device:
            kept.write_text(client.device + "\n")
        bot = make_bot(options.level, game, seed=options.seed)
        name = options.name or f"Remote {options.level}"
        log.info(
            "on the %s ladder as %s (player %s)",
            game,
            name,
            client.welcome.player if client.welcome else None,
        )

        async def choose(view: View) -> ActionWire:
            return await _decide(bot, options.level, view)

        return await client.play_ladder(game, name, choose, games=options.games or 1)


async def run_bot(options: BotOptions) -> int:
    """Sit at the room and play; return how many games this bot saw to the end."""
    finished = 0
    assert options.room is not None
    async with CardroomClient.connect(
        options.server,
        hello="cardroom-bot",
        room=options.room,
        auto_resume=True,
        urls=options.also,
    ) as client:
        await _take_seat(client, options)
        info = client.room_info or await client.wait_room()
        bot = make_bot(options.level, info.game, seed=options.seed)
        log.info("seat %s in room %s as a %s bot", client.seat, client.room, options.level)
        while options.games is None or finished < options.games:
            try:
                async for state in client.turns():
                    if state.view["phase"] == "over":
                        finished += 1
                        break
                    await _act(client, bot, options.level, state)
                if (
                    options.games is None or finished < options.games
                ) and not await client.next_deal():
                    break
            except CardroomError as exc:
                if exc.code not in _SEAT_GONE:
                    raise
                log.warning("the seat is gone: %s", exc)
                break
            except ConnectionLost:
                log.warning("connection lost; resuming seat %s", client.seat)
                await client.recovered()  # it comes back by itself (a restart, a handover)
                if client.closed:  # it could not: try harder
                    await client.reconnect(attempts=20)
    return finished


async def _act(client: CardroomClient, bot: Bot, level: str, state: State) -> None:
    action = await _decide(bot, level, state.view)
    try:
        await client.act(action, version=state.version)
    except CardroomError as exc:
        if exc.code != ErrorCode.STALE_VERSION:  # another seat moved first: the next turn follows
            log.warning("%s", exc)
