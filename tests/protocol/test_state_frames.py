"""The server's fast paths write exactly what the models would: ``dump_state`` as
``dump(State(...))`` for real views of both games in every phase, seated and spectating, and
``dump_ack`` as ``dump(Ack(...))``."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import cast

import pytest

from protocol import messages as m
from protocol.views import EventWire, View
from server.rules.base import Game
from server.rules.sheepshead import Sheepshead
from server.rules.shithead import Shithead


def games(seed: int) -> list[Game]:
    return [Shithead.new(3, 0, seed=seed), Shithead.new(5, 1, seed=seed),
            Sheepshead.new(5, 2, seed=seed)]  # fmt: skip


def states(seed: int) -> Iterator[tuple[Game, int, list[EventWire]]]:
    """Every state of random games of both games (the last, game-over one included, or the
    400th), with its version and the events that led to it."""
    rng = random.Random(seed)
    for game in games(seed):
        version = 0
        events: list[EventWire] = []
        while True:
            yield game, version, events
            if game.is_over() or version >= 400:
                break
            seat = game.to_act()[0]
            legal = game.legal_actions(seat)
            events = [e.to_json() for e in game.apply(seat, legal[rng.randrange(len(legal))])]
            version += 1
        assert version >= 400 or game.outcome() is not None


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2])
def test_dump_state_matches_the_model_for_every_view_of_random_games(seed: int) -> None:
    for game, version, events in states(seed):
        for seat in [None, *range(game.num_players)]:
            view = game.view(seat)
            deadline = None if version % 2 else 1_700_000_000.25 + version
            fast = m.dump_state("ABCDE", version, seat, view, events, deadline)
            model = m.State(room="ABCDE", version=version, seat=seat, view=view,
                            events=events, deadline=deadline)  # fmt: skip
            assert fast == m.dump(model)
            assert m.parse_server(fast) == model


@pytest.mark.parametrize("ref", ["a1", "c-17", 0, 42, "ü"])
@pytest.mark.parametrize("version", [None, 0, 12345])
def test_dump_ack_matches_the_model(ref: str | int, version: int | None) -> None:
    fast = m.dump_ack(ref, version)
    assert fast == m.dump(m.Ack(ref=ref, version=version))
    assert m.parse_server(fast) == m.Ack(ref=ref, version=version)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [3, 4, 5])
def test_state_frames_from_a_shared_part_serialised_once_equal_whole_views(seed: int) -> None:
    """The room builds a state's common part once and serialises it once for all recipients,
    then each recipient's own fields, and splices each frame from the bytes all of them share
    (``StateWriter``): every frame is byte for byte the frame of the view built whole and the
    model's own text, in every state (the last, game-over one included), for every seat and the
    spectators, deadline, commitment and events set or not; and a view is its shared fields
    followed by its own, in that order."""
    for game, version, events in states(seed):
        shared = game.shared_view()
        part = m.json_bytes(shared)
        ev = m.serialised(events)
        deadline = None if version % 2 else 1_700_000_000.25 + version
        commitment = None if version % 3 else f"{version:064x}"
        writer = m.StateWriter("ABCDE", version, part, ev, deadline, commitment)
        for seat in [None, *range(game.num_players)]:
            whole = game.view(seat)
            own = game.own_view(seat)
            assert game.view(seat, shared) == whole
            assert list(whole) == [*shared, *own] and whole == {**shared, **own}
            plain = m.dump_state("ABCDE", version, seat, whole, events, deadline, commitment)
            view = m.serialised_view(part, own)
            assert m.dump_state("ABCDE", version, seat, view, ev, deadline, commitment) == plain
            spliced = writer.text(seat, own)
            assert spliced == plain
            model = m.State(room="ABCDE", version=version, seat=seat, view=whole, events=events,
                            deadline=deadline, commitment=commitment)  # fmt: skip
            assert spliced == m.dump(model)


@pytest.mark.parametrize(
    ("shared", "own"), [({"a": [1]}, {"b": None}), ({}, {"b": 2}), ({"a": 1}, {}), ({}, {})]
)
def test_a_view_serialised_in_two_parts_is_the_whole_object(
    shared: dict[str, object], own: dict[str, object]
) -> None:
    whole = cast(View, {**shared, **own})  # the frame writer never looks inside a view
    assert m.dump_state("ABCDE", 1, 0, m.serialised_view(m.json_bytes(shared), own), [], None) == (
        m.dump_state("ABCDE", 1, 0, whole, [], None)
    )


@pytest.mark.parametrize(
    ("shared", "own"), [({"a": [1]}, {"b": None}), ({}, {"b": 2}), ({"a": 1}, {}), ({}, {})]
)
@pytest.mark.parametrize("seat", [None, 0, 4, 12])
def test_state_writer_with_an_empty_part(
    shared: dict[str, object], own: dict[str, object], seat: int | None
) -> None:
    whole = cast(View, {**shared, **own})
    writer = m.StateWriter("ABCDE", 1, m.json_bytes(shared), [], 2.5, "c0ffee")
    assert writer.text(seat, own) == m.dump_state("ABCDE", 1, seat, whole, [], 2.5, "c0ffee")
