"""Room codes are not to be found by guessing: a request for a room that does not exist is a
miss, each address has a budget of misses, and over it every request of that address for a
room it is not in is refused the same way whether the room exists or not (its members' go on);
a miss is answered no sooner than ``miss_floor`` after it arrived."""

from __future__ import annotations

import dataclasses
import time
from typing import Any

from clients import CardroomClient
from server.net.server import CardroomServer
from tests.support.raw_ws import answer, greeted
from tests.support.server import make_config

FLOOR = 0.05


def guarded(burst: float) -> CardroomServer:
    config = dataclasses.replace(make_config(), miss_rate=0.01, miss_burst=burst, miss_floor=FLOOR)
    return CardroomServer(config)


async def test_guesses_past_the_budget_are_refused_hit_or_miss() -> None:
    async with guarded(burst=4) as srv:
        host = await CardroomClient.connect(srv.url, local_addr=("127.0.0.3", 0))
        await host.create("shithead", seats=3, name="Ann")
        real = host.room
        ws = await greeted(srv.url)
        began = time.perf_counter()
        codes = []
        guesses: list[dict[str, Any]] = [
            {"type": "watch"},
            {"type": "join", "name": "Eve"},
            {"type": "watch"},
            {"type": "act", "version": 0, "action": {"kind": "ready"}},  # any room request
        ]
        for i, guess in enumerate(guesses):
            msg = {**guess, "id": i + 1, "room": "ZZZZ9"}
            codes.append((await answer(ws, msg))["code"])
        assert codes == ["room_not_found"] * 4
        assert time.perf_counter() - began >= 4 * FLOOR  # none answered sooner than the floor
        # over the budget: a wrong code and the real one get the same answer
        wrong = await answer(ws, {"type": "watch", "id": 10, "room": "ZZZZ8"})
        right = await answer(ws, {"type": "watch", "id": 11, "room": real})
        assert wrong["code"] == right["code"] == "too_many_misses"
        assert {k: v for k, v in wrong.items() if k != "ref"} == {
            k: v for k, v in right.items() if k != "ref"
        }
        # another connection of the same address shares the budget; another address does not
        other = await greeted(srv.url)
        assert (await answer(other, {"type": "watch", "id": 1, "room": real}))["code"] == (
            "too_many_misses"
        )
        elsewhere = await greeted(srv.url, source="127.0.0.2")
        assert (await answer(elsewhere, {"type": "watch", "id": 1, "room": real}))["type"] == (
            "joined"
        )
        refused = srv.metrics.refusals.labels("too_many_misses")._value.get()
        assert refused == 3
        for conn in (ws, other, elsewhere):
            await conn.close()
        await host.close()


async def test_hits_spend_nothing() -> None:
    async with guarded(burst=2) as srv:
        host = await CardroomClient.connect(srv.url)
        await host.create("shithead", seats=3, name="Ann")
        ws = await greeted(srv.url)
        for i in range(6):
            assert (await answer(ws, {"type": "watch", "id": 2 * i, "room": host.room}))[
                "type"
            ] == "joined"
            assert (await answer(ws, {"type": "leave", "id": 2 * i + 1, "room": host.room}))[
                "type"
            ] == "ack"
        await ws.close()
        await host.close()


async def test_a_member_is_not_held_back_by_its_address_guesses() -> None:
    # a school's NAT: one pupil guessing codes must not stop the others' games
    async with guarded(burst=2) as srv:
        ann = await CardroomClient.connect(srv.url)
        await ann.create("shithead", seats=2, name="Ann")
        assert ann.room is not None
        ws = await greeted(srv.url)
        for i in range(3):
            await answer(ws, {"type": "watch", "id": i, "room": "ZZZZ9"})
        over = await answer(ws, {"type": "watch", "id": 9, "room": ann.room})
        assert over["code"] == "too_many_misses"
        await ann.chat("still here")  # a room request of a member: the room is known to it
        await ann.host("lock")
        await ann.leave()
        await ws.close()
        await ann.close()
