"""The room's log from the server: whoever joins, watches or resumes is sent the match's recent
events (``log``) before their first state, the same public events every seat was sent (never a
hidden card), and a move the server made for a person out of time is marked ``timed_out``."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable

import pytest

from clients import CardroomClient, CardroomError
from protocol.cards import card_codes
from protocol.messages import Log, State
from server.net.server import CardroomServer
from server.rooms.matches import RECENT_EVENTS
from server.rules.sheepshead import Sheepshead
from server.store.memory import MemoryStore
from tests.support.server import choose, make_config


async def play_while(client: CardroomClient, keep: Callable[[State], bool]) -> None:
    """Play this client's turns while ``keep`` says so of the state it is to act in."""
    turns = itertools.count()
    while True:
        state = await client.wait_turn(timeout=20)
        if state.view["phase"] == "over" or not keep(state):
            return
        try:
            await client.act(choose(state.view, next(turns)), version=state.version)
        except CardroomError as exc:
            assert exc.code == "stale_version", exc


async def first_log(client: CardroomClient) -> Log:
    """The ``log`` message this client was sent (it comes before the first state)."""
    async for msg in client.messages(start=0):
        if isinstance(msg, Log):
            return msg
        assert not isinstance(msg, State), "a state came before the log"
    raise AssertionError("no log message")


def events_sent(client: CardroomClient) -> list[dict[str, object]]:
    """Every event of every state this client was sent, in order."""
    return [dict(e) for msg in client.history if isinstance(msg, State) for e in msg.events]


async def test_a_resumed_seat_and_a_spectator_get_the_same_log_and_no_hidden_card(
    server: CardroomServer,
) -> None:
    async with (
        CardroomClient.connect(server.url) as ann,
        CardroomClient.connect(server.url) as bob,
    ):
        await ann.create("sheepshead", seats=5, name="Ann")
        await bob.join(ann.room or "", name="Bob")
        await ann.host("fill_bots", level="basic")
        await ann.host("start")
        code, token = ann.room or "", bob.token or ""
        # both play until a few tricks are down, then stop (the bots wait for them)
        mid_hand: Callable[[State], bool] = lambda s: s.version < 20  # noqa: E731
        players = [asyncio.create_task(play_while(c, mid_hand)) for c in (ann, bob)]
        await asyncio.wait(players, return_when=asyncio.FIRST_COMPLETED)
        for task in players:  # the other waits for a turn that does not come: stopped
            task.cancel()
        await asyncio.gather(*players, return_exceptions=True)
        room = server.manager.rooms[code].core
        game = room.state.match.current if room.state.match else None
        assert isinstance(game, Sheepshead)
        async with (
            CardroomClient.connect(server.url) as bob2,  # Bob's phone: the same seat
            CardroomClient.connect(server.url) as eve,
        ):
            await bob2.resume(code, token)
            await eve.watch(code)
            phone, watched = await first_log(bob2), await first_log(eve)
            sent = events_sent(bob)
            hidden = set(card_codes(game.buried)).union(
                *(card_codes(game.hand(s)) for s in range(5))
            )
    assert phone.version == room.state.version
    assert [e.event for e in phone.entries] == sent[-RECENT_EVENTS:]  # what Bob's seat was sent
    assert all(e.game == 0 for e in phone.entries)
    assert watched.entries == phone.entries  # a spectator's log is the same public events
    # rule SS-4.1: the called card is named to everyone (its holder is the secret)
    called = {
        c for e in phone.entries if e.event["kind"] == "called" for c in e.event.get("cards", [])
    }
    shown = {c for e in phone.entries for c in e.event.get("cards", [])} - called
    assert len(shown) >= 5  # cards were played...
    assert not shown & hidden  # ...and none still hidden (a hand, the buried pair) is named


@pytest.mark.slow
async def test_a_move_made_for_a_player_out_of_time_is_marked_in_states_and_the_log() -> None:
    async with (
        CardroomServer(make_config(), store=MemoryStore()) as server,
        CardroomClient.connect(server.url) as ann,
    ):
        await ann.create("shithead", seats=2, name="Ann", turn_timer=1)
        await ann.host("fill_bots", level="basic")
        await ann.host("start")
        # Ann never moves: her swap phase ends with "ready" (SH-2.3) and then a stand-in plays
        played = None
        while played is None:
            state = await ann.wait_state(timeout=10)
            played = next((e for e in state.events if e["kind"] == "played"), None)
            played = played if played and played.get("seat") == 0 else None
        sent = events_sent(ann)
        async with CardroomClient.connect(server.url) as phone:
            await phone.resume(ann.room or "", ann.token or "")
            log = await first_log(phone)
    assert played.get("timed_out") is True
    mine = [e for e in sent if e.get("seat") == 0 and e["kind"] in ("ready", "played")]
    assert mine and all(e.get("timed_out") is True for e in mine)
    bots = [e for e in sent if e.get("seat") == 1 and e["kind"] in ("ready", "played")]
    assert bots and not any("timed_out" in e for e in bots)  # a bot's own move is not marked
    marked = [e.event for e in log.entries if e.event.get("timed_out")]
    assert marked == [e for e in sent if e.get("timed_out")][-len(marked) :] and marked
