"""What a room keeps in its store beyond its actions, without sockets: the turn deadline of the
current version (so a restart or a takeover neither gives a fresh full turn nor forgets one
that ran out) and the device digest of each person's seat (so results are recorded for them
even when they are away at the end)."""

from __future__ import annotations

from typing import Any, cast

from protocol import messages as m
from protocol.records import ActionEntry, RoomMeta
from server.rooms.core import RoomCore
from server.rooms.inputs import CreateHost, Request
from server.rooms.outputs import Output, Persist, PersistAction, SetTimer, TurnTimer
from tests.support.room_core import SETTINGS, Harness


class Stored(Harness):
    """A harness that also keeps what the core asked to persist, as a store would."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.meta: RoomMeta = cast(RoomMeta, {})  # the first Persist writes it
        self.entries: list[ActionEntry] = []

    def feed(self, outputs: list[Output]) -> list[Output]:
        for o in outputs:
            if isinstance(o, Persist):
                self.meta = o.record
            elif isinstance(o, PersistAction):
                self.entries.append(o.entry)
        return super().feed(outputs)

    def reload(self, now: float) -> list[Output]:
        """The room rebuilt from the store (after a crash, or by another process) at ``now``."""
        self.room = RoomCore.from_stored(self.meta, self.entries, SETTINGS)
        self.now = now
        self.timers.clear()
        return self.feed(self.room.restored(now))


def started(turn_timer: int = 20) -> tuple[Stored, str]:
    h = Stored(turn_timer=turn_timer)
    h.send(1, type="create", game="shithead", seats=3, name="Ann")
    token = h.last(1, "joined")["token"]
    h.send(1, type="host", op="start")  # a bot in each other seat
    h.run_bots()
    return h, token


def turn_timers(outputs: list[Output]) -> list[SetTimer]:
    return [o for o in outputs if isinstance(o, SetTimer) and isinstance(o.key, TurnTimer)]


def test_a_rebuilt_room_keeps_the_running_deadline() -> None:
    h, token = started()
    deadline = h.room.deadline
    assert deadline == h.now + 20 and h.last(1, "state")["deadline"] == deadline
    version = h.room.version

    restored = h.reload(h.now + 8)  # 8 s later, elsewhere: nobody is connected yet
    assert turn_timers(restored) == []  # paused: no timer runs, no bot moves
    assert h.room.version == version
    h.send(7, type="resume", token=token)  # Ann comes back: 12 s left, not a fresh 20
    assert h.last(7, "state")["deadline"] == deadline
    assert h.timers[TurnTimer(version)] == deadline


def test_a_deadline_that_passed_meanwhile_fires_as_soon_as_a_person_is_back() -> None:
    h, token = started()
    deadline, version = h.room.deadline, h.room.version
    assert deadline is not None
    h.reload(deadline + 30)
    h.send(7, type="resume", token=token)
    assert h.timers[TurnTimer(version)] == deadline  # already past: the actor fires it at once
    h.fire(TurnTimer(version))
    # rule SH-2.3: a human still swapping when the timer runs out is declared ready
    assert h.room.version == version + 1
    assert h.entries[-1]["s"] == 0 and h.entries[-1]["a"] == "ready"


def test_a_later_versions_deadline_comes_from_its_action() -> None:
    h, token = started()
    ready = h.send(1, type="act", version=h.room.version, action={"kind": "ready"})
    assert ready[0]["type"] == "ack"
    h.run_bots()  # the bots get ready, then play until Ann must act
    assert h.last(1, "state")["view"]["to_act"] == [0]
    deadline, version = h.room.deadline, h.room.version
    assert deadline is not None
    assert h.entries[-1]["v"] == version and h.entries[-1]["d"] == deadline
    h.reload(h.now + 3)
    h.send(7, type="resume", token=token)
    assert h.last(7, "state")["deadline"] == deadline


def test_a_pause_does_not_move_the_deadline() -> None:
    h, token = started()
    deadline, version = h.room.deadline, h.room.version
    h.disconnect(1)  # nobody is connected: paused
    assert h.room.deadline is None  # no person must act now: no deadline shown
    h.now += 5
    h.send(2, type="resume", token=token)
    assert h.last(2, "state")["deadline"] == deadline
    assert h.timers[TurnTimer(version)] == deadline


def test_seats_keep_their_players_device_digest() -> None:
    h = Stored()
    create = m.CLIENT_ADAPTER.validate_python(
        {"type": "create", "id": 1, "game": "shithead", "seats": 3, "name": "Ann"}
    )
    assert isinstance(create, m.Create)
    h.feed(h.room.handle(CreateHost(1, create, device="ann-digest"), h.now))
    join = m.Join(id=2, room="ABCDE", name="Bob")
    h.feed(h.room.handle(Request(2, join, device="bob-digest"), h.now))
    h.send(3, type="join", name="Cy")  # a client without a device token
    assert [s["device"] for s in h.meta["seats"]] == ["ann-digest", "bob-digest", None]
    token = h.last(2, "joined")["token"]

    h.reload(h.now + 1)
    assert [s.device for s in h.room.seats] == ["ann-digest", "bob-digest", None]
    # Bob comes back from another device: the seat records for that one from now on (every
    # resume is stored: it rotates the seat's token)
    persisted = h.persisted
    h.feed(h.room.handle(Request(9, m.Resume(id=3, room="ABCDE", token=token)), h.now))
    assert h.persisted == persisted + 1 and h.room.seats[1].device == "bob-digest"
    token = h.last(9, "joined")["token"]
    again = m.Resume(id=4, room="ABCDE", token=token)
    h.feed(h.room.handle(Request(10, again, device="bob-phone"), h.now))
    assert h.persisted == persisted + 2 and h.meta["seats"][1]["device"] == "bob-phone"
