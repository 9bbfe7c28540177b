"""The state frames a room sends, as sent: each is the pydantic model's own serialisation, byte
for byte, and its view is the one the rules build whole for its recipient (a seat's own hand,
never another's hidden card), over whole random games of both games with every seat a person
and a spectator watching. The room writes them straight, spliced from parts serialised once
per state (``protocol.messages.StateWriter``); this is the check that the splice is exact."""

from __future__ import annotations

import random

import pytest

from protocol import messages as m
from server.rooms.outputs import Output, Send
from server.rules.base import Game
from tests.support.room_core import Harness

pytestmark = pytest.mark.slow

SPECTATOR = 99


class Recorder(Harness):
    """The harness, checking every state frame the moment the room hands it out."""

    def __init__(self, game: m.GameName, players: int) -> None:
        super().__init__(game, players)
        self.checked = 0
        self.seat_of: dict[int, int | None] = {SPECTATOR: None}

    def feed(self, outputs: list[Output]) -> list[Output]:
        match = self.room.match
        for o in outputs:
            if isinstance(o, Send) and o.text.startswith('{"type":"state"'):
                frame = m.parse_server(o.text)
                assert isinstance(frame, m.State)
                assert o.text == m.dump(frame)  # the model writes the very same bytes
                assert frame.seat == self.seat_of[o.conn]
                if match is not None and frame.version == self.room.version:
                    game: Game = match.current  # the state it was written from
                    assert frame.view == game.view(frame.seat)  # rule: views hide others' cards
                    self.checked += 1
        return super().feed(outputs)


@pytest.mark.parametrize(("game", "players"), [("sheepshead", 5), ("shithead", 4)])
@pytest.mark.parametrize("seed", [1, 2])
def test_every_state_frame_sent_is_the_models_text_and_its_seats_whole_view(
    game: m.GameName, players: int, seed: int
) -> None:
    h = Recorder(game, players)
    h.send(1, type="create", game=game, seats=players, name="P1")
    h.seat_of[1] = 0
    for conn in range(2, players + 1):
        h.send(conn, type="join", name=f"P{conn}")
        h.seat_of[conn] = conn - 1
    h.send(SPECTATOR, type="watch")
    h.send(1, type="host", op="start")
    rng = random.Random(seed)
    for _ in range(1500):
        match = h.room.match
        assert match is not None
        current = match.current
        if current.is_over():
            break
        seat = current.to_act()[0]
        legal = h.last(seat + 1, "state")["view"]["legal"]
        h.send(seat + 1, type="act", version=h.room.version, action=rng.choice(legal))
    else:
        pytest.fail("the game did not end")
    assert h.checked > 100  # every seat and the spectator, in every state of a whole game
