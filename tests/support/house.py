"""House-rules deals for the client tests: the rules core and the basic bots are the
oracle that finds a deal, the clients under test know nothing of it."""

from __future__ import annotations

from protocol.messages import SheepsheadOptions
from server.bots import make_bot
from server.rooms.matches import Match
from server.rules.base import Action
from tests.support.server import choose

#: A Sheepshead room with the jack of diamonds, the doubler and cracking (SS-10.2 … SS-10.4).
HOUSE_SS = {"partner": "jack_of_diamonds", "no_pick": "doubler", "crack": True}
#: A Shithead room with all three house rules (SH-7.2 … SH-7.4).
HOUSE_SH = {"seven_lower": True, "eight_skips": True, "three_invisible": True}


def crack_deal(options: dict[str, object] = HOUSE_SS, seat: int = 0) -> int:
    """A seed whose first hand, ``seat`` passing and every other seat played by a basic bot
    (as a room's bots are), asks ``seat`` to crack (rule SS-10.4)."""
    rules = SheepsheadOptions.model_validate(options)
    for seed in range(4, 3000):
        game = Match("sheepshead", 5, seed=seed, options=rules).current
        bots = {s: make_bot("basic", "sheepshead", seed=s) for s in range(5) if s != seat}
        while not game.is_over():
            turn = game.to_act()[0]
            view = game.view(turn)
            if turn != seat:
                game.apply(turn, bots[turn].choose(view))
                continue
            kinds = {a["kind"] for a in view["legal"]}
            if "crack" in kinds:
                return seed
            if "pass" not in kinds:
                break  # ``seat`` is no defender in this hand: another seed
            game.apply(seat, Action.from_str("pass"))
    raise AssertionError("no crack deal found")


def remote_crack_deal(seat: int = 1, options: dict[str, object] = HOUSE_SS) -> int:
    """A seed whose first hand asks ``seat`` (a basic bot, as ``cardroom bot --level basic``
    plays) for a crack decision (SS-10.4), seat 0 playing the tests' own policy
    (:func:`tests.support.server.choose`) and the other seats basic bots."""
    rules = SheepsheadOptions.model_validate(options)
    for seed in range(3000):
        game = Match("sheepshead", 5, seed=seed, options=rules).current
        bots = {s: make_bot("basic", "sheepshead", seed=s) for s in range(1, 5)}
        while game.phase in ("pick", "bury", "call", "crack"):
            turn = game.to_act()[0]
            view = game.view(turn)
            if turn == seat and view["phase"] == "crack":
                return seed
            action = bots[turn].choose(view) if turn else Action.from_json(choose(view))
            game.apply(turn, action)
    raise AssertionError("no crack deal for a remote seat found")


def thrown_in_deal(options: dict[str, object] = HOUSE_SS, seat: int = 0) -> int:
    """A seed whose first hand is thrown in (SS-10.3 doubler: all five pass), ``seat`` passing
    and the others basic bots."""
    rules = SheepsheadOptions.model_validate(options)
    for seed in range(3000):
        game = Match("sheepshead", 5, seed=seed, options=rules).current
        bots = {s: make_bot("basic", "sheepshead", seed=s) for s in range(5) if s != seat}
        while game.phase == "pick":
            turn = game.to_act()[0]
            action = Action("pass") if turn == seat else bots[turn].choose(game.view(turn))
            game.apply(turn, action)
        if game.is_over():
            return seed
    raise AssertionError("no thrown-in deal found")
