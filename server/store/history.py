"""Hand history: a finished game or hand as plain data (its deal, every action, its result and
who sat where), stored with its room (:meth:`~server.store.base.RoomStore.add_history`), and
replayed through its rules core to show it step by step or to check it.

>>> from server.rules.shithead import Shithead
>>> from server.rules.base import Action
>>> game = Shithead.new(2, seed=3)
>>> while not game.is_over():
...     seat = game.to_act()[0]
...     _ = game.apply(seat, game.legal_actions(seat)[0])
>>> item = history_item(0, game, ["Ann", "Bot 2"])
>>> replay(item).outcome() == game.outcome()
True
>>> steps = replay_steps(item)
>>> len(steps) == len(item["log"]) + 1, steps[0]["action"], steps[-1]["view"]["phase"]
(True, None, 'over')
"""

from __future__ import annotations

import datetime
from collections.abc import Iterator, Sequence
from typing import Any

from protocol.cards import CODES
from server.rules.base import JSON, Action, Game
from server.rules.sheepshead import Sheepshead
from server.rules.shithead import Shithead

RULES: dict[str, type[Game]] = {"shithead": Shithead, "sheepshead": Sheepshead}

# Spectator-view fields a replay has no use for (they are empty for a spectator anyway).
_NOT_REPLAYED = ("legal", "play_sets", "bury_from", "hand")
# Secrets some seat's own view holds (the picker's blind, buried and unknown card): open in a
# replay, since the game is over.
_SEAT_SECRETS = ("blind", "buried", "unknown_card")


def history_item(
    index: int,
    game: Game,
    names: Sequence[str | None],
    *,
    proof: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The stored form of finished game ``index`` of a room (``names``: each seat's name;
    ``proof``: its fair deal revealed, :meth:`~server.rules.deal.DealProof.to_json` plus the
    ``daily`` date or ``None``, which ``cardroom verify`` checks)."""
    if not game.is_over():
        raise ValueError("only a finished game goes into the history")
    item = {
        "g": index,
        "game": game.name,
        "deal": game.deal_record(),
        "log": [[seat, action.to_str()] for seat, action in game.log],
        "result": game.outcome().to_json(),
        "names": list(names),
    }
    if proof is not None:
        item["proof"] = proof
    return item


def daily_hidden(games: list[dict[str, Any]], today: datetime.date, *, player: bool) -> bool:
    """Whether a room's history must not be served yet: it holds a hand of a daily match whose
    UTC day is not over (it would hand the day's deals to those who have not played), unless
    ``player`` (the room's own players, who get it without the day's seeds: :func:`revealed`)."""
    days = [day for day in map(_day, games) if day is not None]
    return not player and any(day >= today for day in days)


def revealed(games: list[dict[str, Any]], today: datetime.date) -> list[dict[str, Any]]:
    """The items as served on ``today``: a daily hand's seed only once its day is over."""
    out = []
    for item in games:
        day = _day(item)
        if day is not None and day >= today:
            item = {**item, "proof": {**item["proof"], "seed": None}}
        out.append(item)
    return out


def _day(item: dict[str, Any]) -> datetime.date | None:
    proof = item.get("proof")
    day = proof.get("daily") if isinstance(proof, dict) else None
    return datetime.date.fromisoformat(day) if isinstance(day, str) else None


def replay(item: dict[str, Any]) -> Game:
    """The finished game an item records, rebuilt move by move by its rules core.

    Raises:
        KeyError: the item names no known game.
        IllegalAction: the stored log does not replay (a corrupted item).
    """
    rules = RULES[item["game"]]
    log = [(int(seat), Action.from_str(text)) for seat, text in item["log"]]
    return rules.replay(item["deal"], log)


def open_view(game: Game) -> JSON:
    """The whole table at one moment of a finished game, every seat's cards face up.

    Built from the rules core's own views (the spectator's, plus each seat's ``hand`` as
    ``hands``, and what only a seat's view holds), so a client draws it without knowing a rule.
    Shithead's face-down cards, in no view while the game runs, are each seat's
    ``face_down_cards`` (``None`` for an empty slot).
    """
    view = {k: v for k, v in game.view(None).items() if k not in _NOT_REPLAYED}
    seat_views = [game.view(s) for s in range(game.num_players)]
    view["hands"] = [sv["hand"] for sv in seat_views]
    for key in _SEAT_SECRETS:
        if key in view and view[key] is None:
            view[key] = next((sv[key] for sv in seat_views if sv[key] is not None), None)
    if isinstance(game, Shithead):
        for seat, slots in zip(view["seats"], game.face_down, strict=True):
            seat["face_down_cards"] = [CODES[c] if c is not None else None for c in slots]
    return view


def replay_steps(item: dict[str, Any]) -> list[JSON]:
    """A finished game step by step, for a replay: the deal, then one step per action (who
    acted, the action, the events it made) with the :func:`open_view` after it.

    Raises:
        KeyError: the item names no known game.
        IllegalAction: the stored log does not replay (a corrupted item).
    """
    return list(iter_steps(item))


def iter_steps(item: dict[str, Any]) -> Iterator[JSON]:
    """:func:`replay_steps` one step at a time (so a caller can pause between them)."""
    game = RULES[item["game"]].from_deal_record(item["deal"])
    yield {"seat": None, "action": None, "events": [], "view": open_view(game)}
    for seat, text in item["log"]:
        action = Action.from_str(text)
        events = game.apply(int(seat), action)
        yield {
            "seat": int(seat),
            "action": action.to_json(),
            "events": [e.to_json() for e in events],
            "view": open_view(game),
        }
