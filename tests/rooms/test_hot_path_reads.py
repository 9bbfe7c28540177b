"""What a room reads some twenty times an action stays cheap and stays right: the match's
current game and its index are plain attributes that follow every deal, and a seat's view is
one Python call without a generator per card."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from server import compiled
from server.rooms.matches import Match
from server.rules import sheepshead_view
from server.rules.base import Game, IllegalAction
from server.rules.sheepshead import Sheepshead
from server.rules.sheepshead_view import Hand

#: The rules core's source files, by the name a Python frame of theirs shows.
RULES_FILES = {name.rsplit(".", 1)[-1] + ".py" for name in compiled.modules()}


def python_calls(run: Callable[[], object]) -> tuple[list[str], object]:
    """The Python functions ``run`` calls (``file:function``, in order; ``run`` itself not
    counted), and what it returned."""
    calls: list[str] = []

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event == "call" and frame.f_code is not run.__code__:
            calls.append(f"{frame.f_code.co_filename.rsplit('/', 1)[-1]}:{frame.f_code.co_name}")

    sys.setprofile(profile)
    try:
        result = run()
    finally:
        sys.setprofile(None)
    return calls, result


def play_out(game: Game) -> None:
    """Play ``game`` to its end, each seat to act taking its first legal action."""
    while not game.is_over():
        seat = game.to_act()[0]
        game.apply(seat, game.legal_actions(seat)[0])


def test_the_current_game_and_its_index_follow_every_deal() -> None:
    match = Match("sheepshead", 5, seed=3)
    seen = []
    for index in range(3):
        assert match.current is match.series.current
        assert match.game_index == match.series.game_index == index
        try:  # SS-9.1: the next hand is dealt only once this one is over
            match.next_game()
        except IllegalAction:
            pass
        else:
            raise AssertionError("a hand in play was followed by another")
        assert match.current is match.series.current and match.game_index == index
        seen.append(match.current)
        play_out(match.current)
        match.next_game()
    assert match.current is match.series.current and match.game_index == 3
    assert len({id(g) for g in seen}) == 3
    rebuilt = Match.from_record(match.record())
    assert rebuilt.game_index == 3 and rebuilt.current is rebuilt.series.current
    assert rebuilt.current.view(0) == match.current.view(0)


def test_the_current_game_and_its_index_are_read_without_python_code() -> None:
    match = Match("sheepshead", 5, seed=3)

    def read() -> object:
        return match.current, match.game_index, match.current.is_over, match.game_index

    calls, _ = python_calls(read)
    assert calls == []


def test_a_seats_view_is_one_python_call_and_no_generator() -> None:
    game = Sheepshead.new(5, dealer=4, seed=1)
    own: Callable[[int | None], object] = game.own_view
    # the game's method is the view module's own, no method wrapping it (on both builds)
    assert Sheepshead.own_view is Hand.own_view and "own_view" not in vars(Sheepshead)
    calls, view = python_calls(lambda: own(0))
    if compiled.is_compiled(sheepshead_view):
        # compiled code makes no Python calls: only helpers outside the rules core show
        assert not [c for c in calls if c.split(":")[0] in RULES_FILES], calls
    else:
        assert calls[0] == "sheepshead_view.py:own_view"  # the one Python call of a view
    assert not [c for c in calls if c.endswith("<genexpr>")]
    # the view is still the seat's own: its hand sorted as wire codes, its legal actions
    full = game.view(0)
    assert isinstance(view, dict) and view == {key: full[key] for key in view}  # type: ignore[literal-required]
    assert set(view) == {"seat", "legal", "bury_from", "hand", "you_are_partner", "buried"} | {
        "blind",
        "unknown_card",
    }
    hand = full["hand"]
    assert hand is not None and hand == sorted(hand) and len(hand) == 6
    assert full["legal"] == [a.to_json() for a in game.legal_actions(0)]
