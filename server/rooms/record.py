"""A room's stored record (:class:`protocol.records.RoomMeta`), to and from the room.

The record holds everything a room needs to be rebuilt anywhere, everyone disconnected: its
fixed facts, its :class:`~server.rooms.state.RoomState` but the live parts (connections,
spectators, bots asked, hints awaited), and the match as how it was dealt plus its actions,
which are stored one entry each (:class:`protocol.records.ActionEntry`).
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, cast

from protocol import messages as m
from protocol.records import ActionEntry, MatchRecord, RoomMeta, RoomRecord, SeatRecord
from server.rooms.clock import TurnClock
from server.rooms.event_table import EventTable
from server.rooms.matches import DealSource, Match
from server.rooms.seats import Seat, SeatTable, stored_digest
from server.rooms.state import RoomFacts, RoomState

#: What a seat's record keeps of it, in order: the one list both directions use (a seat's other
#: fields, its connection and whether it is away, live only in the process that holds it).
STORED_SEAT = ("kind", "name", "token_sha256", "level", "device", "origin", "since", "previous")
LIVE_SEAT = ("conn", "away", "held_until")


def seat_record(seat: Seat) -> SeatRecord:
    entry = {name: getattr(seat, name) for name in STORED_SEAT}
    entry["previous"] = list(seat.previous) if seat.previous else None
    return cast(SeatRecord, entry)


def seat_from_record(entry: SeatRecord, index: int) -> Seat:
    stored = cast(Mapping[str, Any], entry)
    values = {name: stored[name] for name in STORED_SEAT if name in stored}
    values["token_sha256"] = stored_digest(stored)
    values.setdefault("since", index)  # records from before host passing: seat order
    previous = values.get("previous")
    values["previous"] = tuple(previous) if previous else None
    return Seat(**values)


def meta(room: RoomFacts) -> RoomMeta:
    """The room's record without the actions (those are stored one by one)."""
    state = room.state
    return {
        "code": room.code,
        "game": room.game,
        "players": room.players,
        "seed": room.seed,  # None: dealt fairly (from the server's keys and the nonce)
        "nonce": room.nonce,
        # each seat's value for the next deal, until it is dealt (then in the match's record)
        "contributed": {str(seat): value.hex() for seat, value in state.contributed.items()},
        "options": room.options.model_dump(),
        "turn_timer": room.turn_timer,
        "time_bank": room.time_bank,
        "daily": room.daily,
        "hints": room.hints,
        "ladder": room.ladder,
        "rated": state.rated,
        "rated_seats": list(state.rated_seats),
        "deserted": {str(seat): name for seat, name in state.deserted.items()},
        "opener": room.opener,
        "daily_date": state.daily_date.isoformat() if state.daily_date else None,
        "daily_ranked": state.daily_ranked,
        "locked": state.locked,
        "host": state.host,
        "again": list(state.again) if state.again else None,
        "banned": state.banned,
        "muted_seats": sorted(state.muted_seats),
        "muted_devices": state.muted_devices,
        "banned_origins": {o: list(spared) for o, spared in state.banned_origins.items()},
        "muted_origins": {o: list(spared) for o, spared in state.muted_origins.items()},
        "version": state.version,
        # the current version's turn deadline, [version, unix time] (actions carry later ones)
        "deadline": state.clock.stored(),
        "seats": [seat_record(s) for s in state.seats],
        "match": state.match.meta() if state.match else None,
        "table": room.table.to_record() if room.table else None,
    }


def record(room: RoomFacts) -> RoomRecord:
    """The room as plain data, every action included: enough to rebuild it anywhere."""
    match = room.state.match
    return {**meta(room), "match": match.record() if match else None}


def with_actions(stored: RoomMeta, actions: list[ActionEntry]) -> RoomRecord:
    """A store's record and action entries as one record (the latest action's version and
    deadline are the room's)."""
    room = cast(RoomRecord, dict(stored))
    match = stored["match"]
    if match is not None:
        logs: list[list[list[int | str]]] = [[] for _ in range(match["games"])]
        last = stored["version"]
        for entry in sorted(actions, key=lambda e: e["v"]):
            while entry["g"] >= len(logs):
                logs.append([])
            logs[entry["g"]].append([entry["s"], entry["a"]])
            if entry["v"] >= last:
                last = entry["v"]
                if entry["v"] > stored["version"]:  # the action's deadline is the latest
                    room["deadline"] = [last, entry["d"]] if "d" in entry else None
        room["match"] = cast(MatchRecord, {**match, "logs": logs})
        room["version"] = last
    return room


def _again_from(stored: list[str | int] | None) -> tuple[str, int, str] | None:
    if not stored:
        return None
    code, seat, name = stored
    return str(code), int(seat), str(name)


def options_from(record: RoomRecord) -> m.GameOptions:
    """The room's house rules, read as its own game's (``{}`` or none: the defaults)."""
    return m.OPTIONS_OF[record["game"]].model_validate(record["options"] or {})


def table_from(record: RoomRecord) -> EventTable | None:
    """The event table a room is (``None``: not one; records from before events have none)."""
    table = record.get("table")
    return EventTable.from_record(table) if table else None


def state_from(record: RoomRecord, source: DealSource) -> RoomState:
    """The state a record leaves a room in (everyone disconnected; players resume with their
    tokens)."""
    seats = SeatTable(seats=[seat_from_record(s, i) for i, s in enumerate(record["seats"])])
    version = record["version"]
    daily_date = record["daily_date"]
    match = record["match"]
    return RoomState(
        seats=seats,
        match=Match.from_record(match, source) if match is not None else None,
        version=version,
        host=record["host"],
        again=_again_from(record.get("again")),
        locked=record["locked"],
        clock=TurnClock.from_stored(record.get("deadline"), version),
        daily_date=datetime.date.fromisoformat(daily_date) if daily_date else None,
        daily_ranked=record.get("daily_ranked"),
        contributed={
            int(seat): bytes.fromhex(value) for seat, value in record.get("contributed", {}).items()
        },
        banned=list(record.get("banned", [])),
        muted_seats=set(record.get("muted_seats", [])),
        muted_devices=list(record.get("muted_devices", [])),
        banned_origins={o: tuple(d) for o, d in record.get("banned_origins", {}).items()},
        muted_origins={o: tuple(d) for o, d in record.get("muted_origins", {}).items()},
        seatings=max((s.since for s in seats), default=0),
        rated=record.get("rated", False),
        rated_seats=list(record.get("rated_seats", [])),
        deserted={int(seat): name for seat, name in record.get("deserted", {}).items()},
    )
