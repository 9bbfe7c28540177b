"""``cardroom verify --event``: a duplicate event played at three tables (rooms that are its
tables, their games played out by bots) checks from its revealed seed; a table that is not the
event's, a seed that is not the committed one, a round 1 that is not the draw, or an event not
over, does not (docs/events.md, "Checking an event")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from server.bots.base import make_bot
from server.rooms.core import RoomCore
from server.rooms.event_core import EventCore
from server.rooms.event_io import EventOp, HandPlayed, HostCommand, Join, TableOpened
from server.rooms.event_settings import EventSettings
from server.rooms.event_table import EventTable
from server.rooms.seeds import Keys
from server.rooms.settings import RoomSettings
from server.store.history import history_item
from server.tools import verify

KEYS = Keys(bytes(range(32)))
SETTINGS = RoomSettings(keys=KEYS)
CODE, NONCE = "K7QPX", "event-nonce"


def play_event(duplicate: bool = True) -> tuple[EventCore, list[dict[str, Any]]]:
    """Twelve people, one round of two hands at three tables; the tables' histories."""
    event = EventCore(
        CODE,
        NONCE,
        EventSettings("sheepshead", 5, 1, 2, duplicate=duplicate),
        seed=KEYS.event(CODE, NONCE),
        host="id0",
    )
    for i in range(12):
        event.handle(Join(f"id{i}", f"Name{i}"), 0.0)
    event.handle(HostCommand("id0", EventOp.START), 0.0)
    histories = []
    bot = make_bot("random", "sheepshead", seed=3)
    for t in range(3):
        code = f"TAB{t}X"
        room = RoomCore(
            code, "sheepshead", 5, settings=SETTINGS,
            table=EventTable(CODE, NONCE, 0, t, hands=2, duplicate=duplicate),
        )  # fmt: skip
        room.fill_empty("random")
        room.start_match(0.0)
        event.handle(TableOpened(0, t, code), 0.0)
        games = []
        match = room.match
        assert match is not None
        for hand in range(2):
            if hand:
                room.deal_next()
            before = match.totals()
            while not match.current.is_over():
                seat = match.current.to_act()[0]
                match.apply(seat, bot.choose(match.current.view(seat)))
            units = tuple(a - b for a, b in zip(match.totals(), before, strict=True))
            event.handle(HandPlayed(0, t, hand, units), 0.0)
            proof = match.proof(hand)
            assert proof is not None
            names = [s.name for s in room.seats]
            games.append(history_item(hand, match.current, names, proof=proof.to_json()))
        histories.append({"room": code, "open": False, "games": games})
    return event, histories


def run(tmp: Path, event: dict[str, Any], histories: list[dict[str, Any]]) -> int:
    files = []
    for i, history in enumerate(histories):
        files.append(tmp / f"h{i}.json")
        files[-1].write_text(json.dumps(history))
    (tmp / "event.json").write_text(json.dumps(event))
    return verify.main(["--event", str(tmp / "event.json"), *map(str, files)])


def test_a_duplicate_event_verifies_from_its_seed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    event, histories = play_event()
    info = event.info().model_dump(mode="json")
    assert info["phase"] == "over"
    assert run(tmp_path, info, histories) == 0
    out = capsys.readouterr().out
    assert "event commitment: the event's, verified" in out
    assert "round 1 seats: the event's, verified" in out
    assert out.count("the event's, verified") == 2 + 6  # and 3 tables x 2 games
    assert out.count("deal verified") == 6


def test_what_is_not_the_events_does_not_verify(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    event, histories = play_event()
    info = event.info().model_dump(mode="json")
    _, own_deals = play_event(duplicate=False)  # same tables, their own deals
    assert run(tmp_path, info, [histories[0], {**own_deals[1], "room": "TAB1X"}]) == 1
    assert "room TAB1X game 0: WRONG: not the event's deal of round 1, hand 1" in (
        capsys.readouterr().out
    )
    other = bytes([9]) * 32
    assert run(tmp_path, {**info, "seed": other.hex()}, histories) == 1
    assert "event commitment: WRONG" in capsys.readouterr().out
    first = info["seatings"][0]["tables"]
    swapped = [{**first[0], "seats": first[1]["seats"]}, {**first[1], "seats": first[0]["seats"]}]
    moved = {**info, "seatings": [{"tables": [*swapped, first[2]]}]}
    assert run(tmp_path, moved, histories) == 1
    assert "round 1 seats: WRONG: not the draw of the seed" in capsys.readouterr().out
    assert run(tmp_path, {**info, "seed": None}, histories) == 1
    assert "not revealed yet" in capsys.readouterr().out
    (tmp_path / "bad.json").write_text("{}")
    assert verify.main(["--event", str(tmp_path / "bad.json"), str(tmp_path / "h0.json")]) == 2
