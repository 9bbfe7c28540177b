"""The daily board ranks a match played blind, over real WebSockets on loopback: every daily
room of a day deals the same ten hands (rule SS-9.2), and their seeds are published when the day
is over, so a match still unfinished at midnight ranks nobody; one identity's first daily match
of the day is the only one that ranks (a second room would be played knowing the hands), and
says so before its first card; and no daily room's history is served before the day is over,
to its own player neither."""

from __future__ import annotations

import asyncio
import datetime
import time

import pytest

from clients import CardroomClient
from protocol.messages import Room, ServerMessage, State
from server.net.server import CardroomServer
from server.store.leaderboard import Board
from tests.support.results_api import client, get
from tests.support.server import make_config, play_until_over

DAY = datetime.date(2026, 12, 1)
MIDNIGHT = datetime.datetime(2026, 12, 2, tzinfo=datetime.UTC).timestamp()  # DAY is over


class Clock:
    """The server's wall clock, set by the test."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def opening(msg: ServerMessage) -> bool:
    """The first frame that says the match started: its room frame, or a state."""
    return isinstance(msg, State) or (isinstance(msg, Room) and msg.room.daily is not None)


async def start_daily(me: CardroomClient, name: str) -> bool | None:
    """Create a daily room and start it; what the room said of its ranking before any card."""
    await me.create("sheepshead", seats=5, name=name, daily=True)
    await me.host("start")
    first = await me.wait_for(opening)
    assert isinstance(first, Room), "the first card came before the room said it ranks"
    return first.room.daily_ranked


async def play_hands(me: CardroomClient, hands: range) -> None:
    for hand in hands:
        await play_until_over(me)
        if hand < 9:
            await me.host("next_game")


async def stored(server: CardroomServer, code: str, games: int) -> None:
    """Wait until ``games`` games of room ``code`` are stored (their results with them)."""
    deadline = time.monotonic() + 10
    while len(await server.store.history(code)) < games:
        assert time.monotonic() < deadline
        await asyncio.sleep(0.05)


@pytest.mark.slow
async def test_a_daily_match_unfinished_at_midnight_ranks_nobody() -> None:
    # rule SS-9.2: at midnight the day's seeds are published, so the last hands of a match
    # started before could be played knowing them
    clock = Clock(MIDNIGHT - 120)
    async with CardroomServer(make_config(), clock=clock) as server:
        bob = await client(server, "bob")  # within the day: ranked
        assert await start_daily(bob, "Bob") is True
        await play_hands(bob, range(10))
        ann = await client(server, "ann")
        assert await start_daily(ann, "Ann") is True
        await play_hands(ann, range(9))
        clock.now = MIDNIGHT + 60  # the day is over: its seeds are public
        status, body = await get(server, f"/api/daily?date={DAY.isoformat()}")
        assert status == 200 and body["seeds"] is not None
        await play_until_over(ann)
        assert ann.room is not None and bob.room is not None
        await stored(server, bob.room, 10)
        await stored(server, ann.room, 10)
        entries = await server.stores.boards.top(Board.daily(DAY))
        assert [e.name for e in entries] == ["Bob"]
        await ann.close()
        await bob.close()


@pytest.mark.slow
async def test_only_the_first_daily_match_started_ranks() -> None:
    # rule SS-9.2: a second room of the day deals the hands its player has seen; it ranks
    # nobody, and says so before its first card
    clock = Clock(MIDNIGHT - 3600)
    async with CardroomServer(make_config(grace=0.1), clock=clock) as server:
        first = await client(server, "ann")
        assert await start_daily(first, "Ann") is True
        await play_until_over(first)  # one hand seen, then left unfinished
        device = first.device
        await first.close()
        again = await CardroomClient.connect(server.url, hello=False)
        await again.hello(device=device)
        assert await start_daily(again, "Ann") is False
        await play_hands(again, range(10))
        assert again.room is not None
        await stored(server, again.room, 10)
        assert await server.stores.boards.top(Board.daily(DAY)) == []
        # the hand played blind in the first room is the only one on the all-time board
        alltime = await server.stores.boards.top(Board.alltime("sheepshead"))
        assert [(e.name, e.games) for e in alltime] == [("Ann", 1)]
        await again.close()


async def test_an_open_daily_rooms_history_waits_for_the_days_end() -> None:
    # rule SS-9.2: a finished hand's record is its whole deal, the same in every room of the day
    clock = Clock(MIDNIGHT - 3600)
    async with CardroomServer(make_config(), clock=clock) as server:
        me = await client(server, "ann")
        await start_daily(me, "Ann")
        await play_until_over(me)
        code, token = me.room or "", me.token or ""
        await stored(server, code, 1)
        for path in (f"/api/rooms/{code}/history", f"/api/rooms/{code}/history?game=0&steps=1"):
            status, body = await get(server, path, token)  # its own player's
            assert status == 403 and body["error"] == "daily_not_over"
        clock.now = MIDNIGHT
        status, body = await get(server, f"/api/rooms/{code}/history", token)
        assert status == 200 and body["games"][0]["proof"]["seed"] is not None
        await me.close()
