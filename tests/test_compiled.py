"""The shipped build runs the rules core compiled by mypyc (server/compiled.py names the modules;
setup.py builds them), and a pure install runs it from source: ``CARDROOM_PURE=1`` at install
time, and in the environment of the tests of that install."""

from __future__ import annotations

import copy
import importlib.util
import os
import pickle
import random
import subprocess
import sys

import pytest

from server import compiled
from server.rules import sheepshead, shithead
from server.rules.base import Game
from server.rules.sheepshead import Sheepshead
from server.rules.shithead import Shithead

PURE = os.environ.get("CARDROOM_PURE") == "1"


def test_every_listed_module_runs_compiled_unless_the_install_is_pure() -> None:
    running = compiled.running_compiled()
    assert {"server.rules", "server.rules.base", "server.rules.shithead"} <= set(running)
    assert running == dict.fromkeys(running, not PURE)
    assert shithead.__file__ is not None and shithead.__file__.endswith(".py") == PURE


def test_the_compiled_code_is_newer_than_every_source() -> None:
    # an installed extension shadows its .py: an edit not compiled yet would go untested
    if PURE:
        return
    compiled.running_compiled()  # loads mypyc's library, where the compiled code is
    library = sys.modules[compiled.GROUP + "__mypyc"].__file__
    assert library is not None
    for name in compiled.modules():
        source = importlib.util.find_spec(name)
        assert source is not None and source.origin is not None
        py = os.path.join(os.path.dirname(source.origin), name.rsplit(".", 1)[-1] + ".py")
        if name in compiled.PACKAGES:
            py = os.path.join(os.path.dirname(source.origin), "__init__.py")
        assert os.path.getmtime(library) >= os.path.getmtime(py), (
            f"{py} changed since it was compiled: pip install -e . (or make) again"
        )


@pytest.mark.slow
def test_the_command_line_says_which_modules_run_compiled() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "server.compiled"], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    state = "pure" if PURE else "compiled"
    assert out == [f"{name}: {state}" for name in compiled.modules()]
    assert compiled.is_compiled(sheepshead) != PURE


def played(game: Game, seed: int) -> Game:
    rng = random.Random(seed)
    while not game.is_over():
        seat = game.to_act()[0]
        legal = game.legal_actions(seat)
        game.apply(seat, legal[rng.randrange(len(legal))])
    return game


@pytest.mark.slow
def test_finished_games_copy_and_pickle_whole_on_either_build() -> None:
    # the bots' worker pool pickles what it is asked and its bots; copies must stay equal
    games: list[Game] = [
        played(Sheepshead.new(5, seed=4), 4),
        played(Shithead.new(4, seed=4), 4),
        Shithead.new(3, seed=5),
    ]
    for game in games:
        for again in (copy.deepcopy(game), pickle.loads(pickle.dumps(game)), game.clone()):
            assert type(again) is type(game) and again is not game
            assert again.outcome() == game.outcome() and again.log == game.log
            assert [again.view(s) for s in (None, 0, 1)] == [game.view(s) for s in (None, 0, 1)]
