"""The room frame is written straight from plain data (``dump_room``), as state frames are:
every one a room sends, in every kind of room and status, is exactly the text the protocol's
``Room`` model writes for it (parsed by the model and written again: same bytes)."""

from __future__ import annotations

from typing import Any

from protocol import messages as m
from server.rooms.core import RoomCore
from server.rooms.outputs import GraceTimer, Output, Send
from tests.support.room_core import SETTINGS, Harness
from tests.support.server import choose


class Checked(Harness):
    """A harness that checks every room frame against the model as it goes by."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.rooms: list[dict[str, Any]] = []

    def feed(self, outputs: list[Output]) -> list[Output]:
        for o in outputs:
            if isinstance(o, Send) and o.text.startswith('{"type":"room"'):
                model = m.Room.model_validate_json(o.text)
                assert m.dump(model) == o.text
                self.rooms.append(model.room.model_dump())
        return super().feed(outputs)


def play(h: Checked, games: int) -> None:
    """Humans act by ``choose``, bots by the harness, the host deals again, ``games`` times."""
    for _ in range(3000):
        room = h.room
        assert room.match is not None
        if h.bots:
            h.run_bots()
            continue
        game = room.match.current
        if game.is_over():
            games -= 1
            if games == 0 or room.match.is_over():
                return
            h.send(1, type="host", op="next_game")
            continue
        seat = game.to_act()[0]
        view = game.view(seat)
        h.send(seat + 1, type="act", version=room.version, action=choose(view))
    raise AssertionError("the games did not end")


def test_room_frames_of_a_shithead_room_through_its_life() -> None:
    h = Checked(turn_timer=20)
    h.send(1, type="create", game="shithead", seats=3, name="Ann")
    h.send(2, type="join", name="Jos\u00e9")
    h.send(3, type="watch")
    h.send(1, type="host", op="add_bot", seat=2, level="strong")
    h.send(1, type="host", op="lock")
    h.send(1, type="host", op="unlock")
    h.send(1, type="host", op="start")
    h.disconnect(2)
    h.fire(GraceTimer(1))  # away: a stand-in plays José's turns (playing_for)
    play(h, games=2)
    statuses = {r["status"] for r in h.rooms}
    assert {"lobby", "playing", "between"} <= statuses
    assert any(s["playing_for"] for r in h.rooms for s in r["seats"])
    assert any(s["bot_level"] == "strong" for r in h.rooms for s in r["seats"])
    assert any(r["locked"] for r in h.rooms) and h.rooms[-1]["turn_timer"] == 20


def sheepshead(**flags: Any) -> Checked:
    h = Checked(game="sheepshead", players=5)
    h.room = RoomCore(
        "ABCDE", "sheepshead", 5, settings=SETTINGS, seed=7, options=m.SheepsheadOptions(), **flags
    )
    h.send(1, type="create", game="sheepshead", seats=5, name="Ann")
    h.send(1, type="host", op="start")
    return h


def test_room_frames_of_sheepshead_rooms_with_options_hints_and_a_daily_match() -> None:
    h = sheepshead(hints=True)
    play(h, games=10)
    last = h.rooms[-1]
    assert last["status"] == "over" and last["hints"] is True and last["games_played"] == 10
    assert last["match_length"] == 10 and last["options"] == m.SheepsheadOptions().model_dump()
    daily = sheepshead(daily=True)
    play(daily, games=1)
    assert daily.rooms[-1]["daily"] is not None and daily.rooms[-1]["status"] == "between"
