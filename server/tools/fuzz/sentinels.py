"""Quiet rooms the fuzz aims at, whose record must be the same before and after it.

Each sentinel is locked and waits on its host (seat 0), so nothing changes it unless a frame
does. Before the fuzz, a hostile *insider* resumes the host's seat with its token and from
then on sends only frames the room must refuse (plus harmless ones: chat, ping); hostile
outsiders aim at the same codes. Before and after, a fresh spectator looks at the room: the
room info (spectator count aside) and the spectator's view must not have changed.
"""

from __future__ import annotations

import asyncio
import json
import random
from dataclasses import dataclass
from typing import Any, TypedDict

from pydantic import ValidationError

from clients import CardroomClient
from protocol import messages as m
from protocol.messages import GameName
from protocol.views import View
from server.tools.fuzz.games import choose


class Snapshot(TypedDict):
    """What a new spectator sees of a room (:func:`snapshot`)."""

    info: dict[str, Any]  # RoomInfo's fields but ``spectators``
    version: int | None
    view: View | None


KINDS = ("lobby", "swap", "turn", "between")


@dataclass
class Sentinel:
    kind: str  # lobby | swap | turn (Sheepshead, seat 0 to act) | between
    code: str
    token: str
    host: CardroomClient
    version: int = 0
    before: Snapshot | None = None
    guest: CardroomClient | None = None  # a second human (the lobby), whose token the host's
    # seat must not be able to take over


async def snapshot(url: str, code: str) -> Snapshot:
    """What a new spectator sees of the room: its info (spectators aside) and its view."""
    async with CardroomClient.connect(url, timeout=30) as eye:
        await eye.watch(code)
        info = await eye.wait_room()
        state: m.State | None = None
        if info.status != "lobby":
            state = await eye.wait_state()
    data = info.model_dump()
    data.pop("spectators")
    return {
        "info": data,
        "version": None if state is None else state.version,
        "view": None if state is None else state.view,
    }


async def open_sentinel(url: str, kind: str, rng: random.Random) -> Sentinel:
    host = await CardroomClient.connect(url, timeout=30, history=5000)
    game: GameName = "sheepshead" if kind == "turn" else "shithead"
    seats = 5 if game == "sheepshead" else (3 if kind == "lobby" else 2)
    await host.create(game, seats=seats, name=f"Sentinel {kind}")
    code = host.room or ""
    guest = None
    if kind == "lobby":
        await host.host("add_bot", seat=1, level="random")
        guest = await CardroomClient.connect(url, timeout=30, history=5000)
        await guest.join(code, name="Sentinel guest", seat=2)
    else:
        await host.host("fill_bots", level="random")
    await host.host("lock")
    if kind != "lobby":
        await host.host("start")
        # settled: the bots have moved and only the host may act
        await host.wait_state(lambda s: s.view["to_act"] == [0] and bool(s.view["legal"]))
    if kind == "between":
        while True:
            state = await host.wait_turn(timeout=30)
            if state.view["phase"] == "over":
                break
            await host.act(choose(state.view, rng), version=state.version)
        await host.wait_room(lambda r: r.status == "between")
    return Sentinel(kind, code, host.token or "", host, host.version or 0, guest=guest)


def refused_inside(text: str | bytes, sentinel: Sentinel) -> bool:
    """Whether the sentinel's own seated host may send ``text`` without changing the room:
    anything the server cannot parse, and parsed messages that must be refused or are
    harmless. Acting at the current version, host commands that would work, and leaving are
    kept for outsiders."""
    try:
        msg = m.parse_client(text)
    except (ValidationError, ValueError):
        return True
    same = getattr(msg, "room", None) == sentinel.code
    match msg:
        case m.Act():
            return not same or msg.version != sentinel.version or sentinel.kind == "lobby"
        case m.Host():
            if not same:
                return True
            return (msg.op == "start" and sentinel.kind != "lobby") or (
                msg.op == "next_game" and sentinel.kind != "between"
            )
        case m.Leave():
            return not same
        case _:
            return True  # join/watch/create (already in a room), resume, chat, hello, ping


def diff(before: Snapshot, after: Snapshot) -> list[str]:
    """The top-level fields of a snapshot that changed."""
    out = []
    if before["version"] != after["version"]:
        out.append("version")
    if before["view"] != after["view"]:
        out.append("view")
    for key, value in before["info"].items():
        if after["info"].get(key) != value:
            out.append(
                f"info.{key}: {json.dumps(value)[:80]} -> {json.dumps(after['info'].get(key))[:80]}"
            )
    return out


async def open_victim(url: str) -> CardroomClient:
    """An unlocked lobby (Shithead, three seats) whose host watches for ghost seats."""
    host = await CardroomClient.connect(url, timeout=30, history=5000)
    await host.create("shithead", seats=3, name="Victim")
    return host


async def ghosts(victim: CardroomClient, settle: float) -> int:
    """Seats other than the host's shown as a connected human ``settle`` seconds after the
    prober left: each one a ghost (a seat the server still thinks is held)."""
    await asyncio.sleep(settle)
    await victim.ping()
    info = victim.room_info
    if info is None:
        return 0
    return sum(1 for s in info.seats if s.seat != 0 and s.kind == "human" and s.connected)
