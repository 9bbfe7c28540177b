"""The room core's parts: its state is one value that rollback copies whole (a field added to it
cannot be forgotten), a seat's record is written and read from one field list, the host's
commands go through public methods, and every handler returns its outputs."""

from __future__ import annotations

import ast
import copy
import dataclasses
import datetime
import json
from pathlib import Path
from typing import Any

import pytest

from protocol import messages as m
from protocol.records import ActionEntry, MatchMeta, MatchRecord, RoomMeta, RoomRecord, SeatRecord
from server.rooms import record as records
from server.rooms import rollback
from server.rooms.clock import TurnClock
from server.rooms.core import RoomCore
from server.rooms.inputs import Request, RoomInput
from server.rooms.matches import Match
from server.rooms.outputs import Output, PersistAction
from server.rooms.seats import Seat, SeatTable, token_digest
from server.rooms.state import CONTAINERS, COPIED, FIELDS, RoomState
from tests.support.room_core import Harness, create_shithead, playing, whole
from tests.support.server import choose

ROOMS = Path(__file__).resolve().parents[2] / "server" / "rooms"


class _Mark:
    """A value no field of a room ever holds."""

    def __repr__(self) -> str:
        return "MARK"


MARK = _Mark()


def crowded() -> Harness:
    """A room in play where every kind of field holds something: a spectator muted, a device
    banned, a bot asked, a hint awaited, the turn timer armed."""
    h = playing()  # Ann (1) and Bob (2), a bot, a spectator (3), Ann to act, timer on
    room = h.room
    room.state.banned.append("kicked-device")
    room.state.muted_devices.append("muted-device")
    room.state.muted_seats.add(1)
    room.state.muted_watchers.add(3)
    room.state.watch_devices[3] = "watcher-device"
    room.state.hints[0] = room.version
    room.state.contributed[1] = b"\x01" * 32
    room.state.daily_date = datetime.date(2026, 1, 2)
    assert room.deadline is not None and room.state.where and room.state.spectators
    return h


def disturb(state: RoomState) -> None:
    """Change every field of ``state``: each container in place (the snapshot must not share
    it), then every field rebound, whatever it holds."""
    for name in FIELDS:
        value = getattr(state, name)
        if isinstance(value, set):
            value.add(MARK)
        elif isinstance(value, dict):
            value[MARK] = MARK
        elif isinstance(value, list):
            value.append(MARK)
        elif isinstance(value, SeatTable):
            for i in range(len(value)):
                value.empty(i)
        elif isinstance(value, Match):
            seat = value.current.to_act()[0]
            value.apply(seat, value.current.legal_actions(seat)[0])
    for name in FIELDS:
        setattr(state, name, MARK)


def _ann_acts(h: Harness) -> RoomInput:
    view = h.last(1, "state")["view"]
    action = m.ActionModel.model_validate(choose(view))
    return Request(1, m.Act(id=99, room="ABCDE", version=h.room.version, action=action))


def test_a_failed_input_puts_back_every_field_of_the_state(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every field of RoomState, those it will gain too (they are read from the dataclass), is
    put back after an input that changed all of them and then failed."""
    h = crowded()
    room = h.room
    before = whole(room)

    def broken(self: RoomCore, item: RoomInput, now: float) -> list[Output]:
        disturb(self.state)
        raise RuntimeError("a bug half-way through an input")

    monkeypatch.setattr(RoomCore, "_dispatch", broken)
    replies = h.feed(room.handle(_ann_acts(h), h.now))
    assert [json.loads(r.text)["code"] for r in replies if hasattr(r, "text")] == ["internal_error"]
    after = whole(room)
    for name in FIELDS:
        assert after[name] == before[name], name
    assert after == before


def test_an_undone_input_puts_back_every_field_of_the_state(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The same for an input that went through but could not be stored (the actor undoes
    it), and a second undo of the same input changes nothing more."""
    h = crowded()
    room = h.room
    before = whole(room)

    def changes_all(self: RoomCore, item: RoomInput, now: float) -> list[Output]:
        disturb(self.state)
        return []

    monkeypatch.setattr(RoomCore, "_dispatch", changes_all)
    room.handle(_ann_acts(h), h.now)
    assert room.state.version is MARK  # type: ignore[comparison-overlap]
    room.undo()
    assert whole(room) == before
    disturb(room.state)
    room.undo()
    assert whole(room) == before


def immutable(value: object) -> bool:
    """Whether ``value`` can be shared by a snapshot and the room (never changed in place)."""
    if value is None or isinstance(value, int | float | str | bytes | datetime.date):
        return True
    if isinstance(value, tuple | frozenset):
        return all(immutable(v) for v in value)
    params = getattr(type(value), "__dataclass_params__", None)
    return params is not None and params.frozen


@pytest.mark.parametrize("situation", ["lobby", "crowded"])
def test_every_field_of_the_state_is_a_value_or_a_container_of_values(situation: str) -> None:
    """What makes the copy whole: each field holds an immutable value (the turn clock is a
    named tuple), or a set, dict, list or seat table (copied) of immutable values; the match
    is rebuilt from its log. A field of another mutable kind would be shared, so it fails
    here."""
    h = Harness()
    if situation == "lobby":
        create_shithead(h)
        h.send(2, type="watch")
    else:
        h = crowded()
    state = h.room.state
    for name in FIELDS:
        value = getattr(state, name)
        if name == "match":
            assert value is None or isinstance(value, Match)
        elif type(value) in CONTAINERS:
            items = value.items() if isinstance(value, dict) else value
            assert all(immutable(v) for v in items), name
        else:
            assert immutable(value), (name, value)
        # the copy copies the fields declared as containers: each holds one, no other does
        assert (name in COPIED) == (type(value) in CONTAINERS), name
    assert isinstance(state.clock, TurnClock) and immutable(tuple(state.clock))
    copied = state.copy()
    assert copied == state and type(copied) is RoomState
    for name in FIELDS:  # every container its own, every value the same
        mine, its = getattr(state, name), getattr(copied, name)
        assert (mine is not its) if name in COPIED else (mine is its), name


def test_a_seat_record_is_written_and_read_from_one_field_list() -> None:
    """Every field of a seat is either stored (in STORED_SEAT, the record's keys) or live; a
    seat with every stored field set comes back from its record (through JSON) as it was."""
    seat_fields = {f.name for f in dataclasses.fields(Seat)}
    assert set(records.STORED_SEAT) | set(records.LIVE_SEAT) == seat_fields
    assert not set(records.STORED_SEAT) & set(records.LIVE_SEAT)
    legacy = {"token"}  # read from records written before digests, never written
    assert set(SeatRecord.__annotations__) - legacy == set(records.STORED_SEAT)
    seat = Seat(
        kind="human",
        name="Ann",
        token_sha256=token_digest("t"),
        level="strong",
        conn=7,
        away=True,
        device="device-digest",
        since=3,
        previous=(token_digest("old"), 1234.5),
    )
    stored = json.loads(json.dumps(records.seat_record(seat)))
    assert list(stored) == list(records.STORED_SEAT)
    assert records.seat_from_record(stored, 1) == dataclasses.replace(seat, conn=None, away=False)


def test_a_seat_record_from_an_older_server_is_read_as_before() -> None:
    old: SeatRecord = {"kind": "human", "name": "Ann", "token": "secret", "level": None}
    seat = records.seat_from_record(old, 2)
    assert seat.token_sha256 == token_digest("secret")  # a record from before digests
    assert seat.since == 2 and seat.device is None and seat.previous is None


def test_seats_are_values_changed_only_through_the_table() -> None:
    h = Harness()
    create_shithead(h)
    seat = h.room.seats[0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        seat.conn = None  # type: ignore[misc]
    snapshot = h.room.seats.copy()
    h.disconnect(1)
    assert h.room.seats[0].conn is None and snapshot[0].conn == 1


def _functions(tree: ast.AST) -> list[ast.FunctionDef]:
    return [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]


def test_host_commands_use_only_public_members_and_never_bump_the_version() -> None:
    tree = ast.parse((ROOMS / "host.py").read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            assert not node.attr.startswith("_"), (
                f"host.py reaches {node.attr} (line {node.lineno})"
            )
        if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                assert not isinstance(target, ast.Attribute), (
                    f"host.py sets a room's field ({node.lineno})"
                )
    read = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    assert "version" not in read and "state" not in read  # the room's methods change it


def test_every_room_handler_returns_its_outputs() -> None:
    """One convention: no function of the room core takes an ``out`` list to fill."""
    for path in sorted(ROOMS.glob("*.py")):
        for fn in _functions(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.arg for a in fn.args.args + fn.args.kwonlyargs]
            assert "out" not in names, f"{path.name}: {fn.name} takes out"


def test_a_host_command_bumps_the_version_through_the_room() -> None:
    h = Harness()
    create_shithead(h)
    version = h.room.version
    assert h.send(1, type="host", op="lock")[0]["version"] == version  # no new version
    ack = h.send(1, type="host", op="start")[0]
    assert ack["version"] == version + 1 == h.room.version


def test_the_record_round_trips_the_state_but_its_live_parts() -> None:
    """A record rebuilds every stored field of the state; the live ones (connections,
    spectators, bots asked, hints awaited, timers armed) start empty."""
    h = crowded()
    room = h.room
    again = RoomCore.from_record(json.loads(json.dumps(room.record())), room.settings)
    live = {"where", "spectators", "pending", "stand_in", "hints", "muted_watchers", "watchers",
            "watch_devices", "next_watcher", "idle_armed", "frame_quiet_until",
            "frame_due"}  # fmt: skip
    for name in set(FIELDS) - live - {"match", "seats", "clock"}:
        assert getattr(again.state, name) == getattr(room.state, name), name
    assert [dataclasses.replace(s, conn=None, away=False) for s in room.seats] == list(again.seats)
    assert again.state.clock.due == room.state.clock.due and again.state.clock.shown is None
    assert room.match is not None and again.match is not None
    assert again.match.record() == room.match.record()
    for name in live:
        value: Any = getattr(again.state, name)
        assert not value, name
    assert copy.copy(again.state) == again.state


def test_the_room_reads_its_state_but_never_writes_it_past_its_inputs() -> None:
    """RoomCore's fields that live in its state are read-only views of it: a write (as
    host.py's ``room.version += 1`` was) is refused instead of shadowing the state."""
    h = Harness()
    create_shithead(h)
    room = h.room
    assert room.version == room.state.version and room.where is room.state.where
    assert room.deadline is room.state.clock.shown
    with pytest.raises(AttributeError):
        room.version = room.version + 1
    with pytest.raises(AttributeError):
        room.locked = True
    assert room.state.version == 0 and not room.state.locked


def _keys(typed: Any) -> set[str]:
    return set(typed.__required_keys__) | set(typed.__optional_keys__)


def test_the_stored_record_is_what_its_typed_dicts_say() -> None:
    """A playing room's record, read back from JSON, has exactly the keys of RoomRecord (its
    seats SeatRecord's but the legacy token, its match MatchRecord's), and each stored action
    entry those of ActionEntry."""
    h = crowded()
    stored = json.loads(json.dumps(h.room.record()))
    assert set(stored) == _keys(RoomRecord) == _keys(RoomMeta)
    assert all(set(s) == _keys(SeatRecord) - {"token"} for s in stored["seats"])
    assert set(stored["match"]) == _keys(MatchRecord)
    assert set(h.room.meta()["match"] or {}) == _keys(MatchMeta)
    entries = [o.entry for o in h.room.handle(_ann_acts(h), h.now) if isinstance(o, PersistAction)]
    assert entries and all(set(e) <= _keys(ActionEntry) for e in entries)
    assert {"v", "g", "s", "a", "d"} == set(entries[0])  # a person acts next: a deadline


READS = [
    "seats",
    "match",
    "version",
    "host",
    "locked",
    "closed",
    "daily_date",
    "spectators",
    "where",
    "watchers",
    "banned",
    "muted_seats",
    "muted_devices",
    "muted_watchers",
]


def test_reads_follow_the_state_and_cannot_be_written() -> None:
    """Each of the room's reads gives its state's field (the deadline: the clock's), the current
    state's after it is replaced (as undo does), and none can be assigned."""
    h = crowded()
    room = h.room
    for name in READS:
        assert getattr(room, name) is getattr(room.state, name), name
    assert room.deadline == room.state.clock.shown
    state = room.state.copy()
    state.version += 7
    room.state = state
    assert room.version == state.version
    assert room.seats is state.seats
    for name in [*READS, "deadline"]:
        with pytest.raises(AttributeError):
            setattr(room, name, getattr(room, name))


def test_reads_run_no_python_code() -> None:
    """A read of the room's state is C only (an ``attrgetter``): the actor and the core read it
    some ten times an input, and each Python frame (a descriptor's ``__get__``, a ``cast``)
    cost time on every one."""
    import sys

    room = crowded().room
    calls: list[str] = []

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event == "call":
            calls.append(frame.f_code.co_name)

    sys.setprofile(profile)
    try:
        for name in [*READS, "deadline"]:
            getattr(room, name)
    finally:
        sys.setprofile(None)
    assert calls == []


def emptied() -> Harness:
    """A room in play whose containers are all empty but its seats (no spectator, nobody
    connected, no bot asked)."""
    h = playing()
    state = h.room.state
    for name in COPIED:
        if name != "seats":
            getattr(state, name).clear()
    return h


def test_a_snapshot_copies_no_empty_container() -> None:
    state = emptied().room.state
    saved = rollback.save(state)
    kept = dict(zip(FIELDS, saved.state, strict=True))
    assert kept["seats"] is not state.seats and kept["seats"] == state.seats
    assert {name for name in COPIED if kept[name] is None} == set(COPIED) - {"seats"}


@pytest.mark.parametrize("how", ["undone", "failed"])
def test_containers_filled_by_an_input_are_empty_again_after_it(
    how: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    h = emptied()
    room = h.room
    act = _ann_acts(h)
    before = whole(room)

    def changes_all(self: RoomCore, item: RoomInput, now: float) -> list[Output]:
        disturb(self.state)  # every container filled in place, then every field rebound
        if how == "failed":
            raise RuntimeError("a bug half-way through an input")
        return []

    monkeypatch.setattr(RoomCore, "_dispatch", changes_all)
    room.handle(act, h.now)
    if how == "undone":  # its outputs could not be stored: the actor undoes it
        room.undo()
    assert whole(room) == before
    first = room.state
    room.undo()  # the same snapshot again: a fresh state, sharing no container
    assert whole(room) == before
    for name in COPIED:
        assert getattr(room.state, name) is not getattr(first, name), name
