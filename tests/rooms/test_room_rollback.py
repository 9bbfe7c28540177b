"""What an input that does not stand leaves behind: nothing. A refused act, an act or a bot's
move that fails half-way, and an input undone because the store could not keep it leave the
whole room as it was: every field of the core, not only its stored record (the snapshot taken
before a move copies only what a move may change, so these pin that it is enough)."""

from __future__ import annotations

from typing import Any

import pytest

from server.rooms import frames
from server.rooms.inputs import BotMove
from server.rules.base import Action, IllegalAction
from tests.support.room_core import playing, whole
from tests.support.server import choose


@pytest.mark.parametrize(
    ("conn", "action", "version_offset", "code"),
    [
        (1, {"kind": "play", "cards": ["XX"]}, 0, "invalid_message"),
        (1, {"kind": "fly"}, 0, None),  # the rules' own refusal
        (2, {"kind": "pick_up"}, 0, None),  # not Bob's turn
        (1, {"kind": "ready"}, -1, "stale_version"),
        (3, {"kind": "pick_up"}, 0, "not_seated"),
    ],
)
def test_a_refused_act_leaves_the_whole_room_as_it_was(
    conn: int, action: dict[str, Any], version_offset: int, code: str | None
) -> None:
    h = playing()
    before = whole(h.room)
    persisted, bots = h.persisted, list(h.bots)
    version = h.room.version + version_offset
    if code == "invalid_message":  # refused by the protocol's schema: never reaches the room
        with pytest.raises(ValueError):
            h.send(conn, type="act", version=version, action=action)
    else:
        replies = h.send(conn, type="act", version=version, action=action)
        assert replies[0]["type"] == "error"
        if code is not None:
            assert replies[0]["code"] == code
    assert whole(h.room) == before
    assert h.persisted == persisted and h.bots == bots


def test_an_act_that_fails_half_way_is_put_back_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    h = playing()
    before = whole(h.room)
    monkeypatch.setattr(frames, "state_frames", lambda *a: (_ for _ in ()).throw(KeyError("view")))
    view = h.last(1, "state")["view"]
    reply = h.send(1, type="act", version=h.room.version, action=choose(view))
    assert reply[-1]["code"] == "internal_error"
    assert whole(h.room) == before


def test_an_undone_act_bot_move_or_join_leaves_nothing() -> None:
    h = playing()
    room = h.room
    # an accepted act the store could not keep (the actor then calls undo)
    before = whole(room)
    view = h.last(1, "state")["view"]
    assert h.send(1, type="act", version=room.version, action=choose(view))[0]["type"] == "ack"
    assert whole(room) != before
    room.undo()
    assert whole(room) == before
    # a bot's move, the same way: Ann and Bob play, then the bot in seat 2 is asked
    assert room.match is not None
    h.send(1, type="act", version=room.version, action=choose(view))
    bob = h.last(2, "state")["view"]
    h.send(2, type="act", version=room.version, action=choose(bob))
    assert room.match.current.to_act() == (2,) and room.state.pending == {2: room.version}
    job = h.bots.pop(0)
    before = whole(room)
    move = room.match.current.legal_actions(2)[0]
    assert h.feed(room.handle(BotMove(job.seat, job.version, move), h.now))
    assert whole(room) != before
    room.undo()
    assert whole(room) == before
    # a spectator joining, through the full snapshot
    before = whole(room)
    assert h.send(4, type="watch")[0]["type"] == "joined"
    room.undo()
    assert whole(room) == before


def test_the_rules_refuse_before_changing_anything() -> None:
    """The move snapshot relies on the rules cores refusing an illegal action before any
    change (their documented contract): an illegal action leaves the game's view as it was."""
    h = playing()
    assert h.room.match is not None
    game = h.room.match.current
    seen = [game.view(s) for s in (None, 0, 1, 2)]
    assert game.to_act() == (0,)
    elsewhere = next(c for c in range(52) if not game.is_legal(0, Action("play", (c,))))
    for action in (Action("fly"), Action("play", (elsewhere,)), Action("ready")):
        with pytest.raises(IllegalAction):
            game.apply(0, action)
    assert [game.view(s) for s in (None, 0, 1, 2)] == seen
