"""A room's settings: its timings and the budgets of a public server, the same for every room
of a process (:class:`RoomSettings`)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from server.bots.base import DEFAULT_LEVEL
from server.rooms.seeds import Keys


@dataclass(frozen=True, slots=True)
class RoomSettings:
    """What every room of a process is set to: its timings, its stand-in bots and the
    budgets of a public server."""

    grace: float = 60.0  # seconds a disconnected player's seat is held before a bot steps in
    idle_timeout: float = 300.0  # seconds a room nobody is connected to stays open
    bot_delay: float = 0.8  # seconds a bot waits before moving, so people can follow
    stand_in_level: str = DEFAULT_LEVEL  # the bot that plays for an absent or slow player
    # expert bots a room may seat (each thinks ~1 s a move in the shared bot workers)
    max_expert_seats: int = 2
    # budgets of a public server (README, "Running a public server"; refused: too_many_rooms)
    lobby_timeout: float = 30.0  # seconds an empty lobby (nobody in it, no game yet) stays open
    rooms_per_minute: float = 10.0  # rooms one address may create a minute, on average...
    rooms_burst: float = 20.0  # ...and at once
    rooms_per_address: int = 20  # rooms open at once that one address created
    max_rooms: int = 10_000  # rooms open in this process
    # chat lines a room takes a minute from its spectators together, and at once (refused:
    # chat_busy): a rail of watchers never silences the table...
    chat_per_minute: float = 60.0
    chat_burst: float = 20.0
    # ...and from each sender (a seat, or the spectators of one address), so no one person
    # fills the room's share either
    chat_each_per_minute: float = 20.0
    chat_each_burst: float = 6.0
    max_spectators: int = 100  # spectators a room takes at once (refused: spectators_full)
    # seconds between two room frames to everyone that only spectators' comings and goings
    # send (the newcomer gets its own at once; the last count follows at the interval's end)
    spectator_frame_interval: float = 1.0
    # seconds the token a resume replaced still resumes the seat while nobody holds it (that
    # resume's answer, the new token, may have been lost with its connection)
    token_overlap: float = 15.0
    # Shithead swaps one seat may make in one game (SH-2.3 sets no limit; two clients swapping
    # for ever would grow the game's log, its record and its history without bound)
    max_swaps: int = 200
    # the server secret's keys, for every seed (None: this process's own; a server sets them)
    keys: Keys | None = None
    # games a room deals at most: then its series is over (bounds the history and the record)
    max_games: int = 100
    # seconds an event's table waits after a hand before it deals the next (people read the
    # result; no host deals there)
    next_hand_delay: float = 5.0
    # daily-board entries a day for the identities issued to one address (their origin)
    daily_entries_per_address: int = 6  # the free identities and those earned by work
    # a daily room is one person against fixed bots; off (for the fuzzer's rooms of scripted
    # people at the day's deals) lets people join and bots change, and ranks nobody there
    daily_alone: bool = True
    # seconds a player who left a rated game (or was gone past the grace) waits before they
    # may queue again
    wait_before_queue: float = 300.0


def one_address(settings: RoomSettings) -> RoomSettings:
    """``settings`` with the room budgets lifted: for load and soak tools and tests, whose
    many simulated people all come from one address (127.0.0.1)."""
    return replace(
        settings,
        rooms_per_minute=1e6,
        rooms_burst=1e6,
        rooms_per_address=100_000,
        max_rooms=100_000,
        chat_per_minute=1e6,
        chat_burst=1e6,
        chat_each_per_minute=1e6,
        chat_each_burst=1e6,
    )
