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
from typing import Any, TypedDict

from protocol.cards import CODES
from protocol.views import ActionWire, EventWire, ReplayView, ShitheadReplaySeat
from server.rules.base import Action, Game
from server.rules.registry import game_spec
from server.rules.sheepshead import Sheepshead
from server.rules.shithead import Shithead


class ReplayStep(TypedDict):
    """One step of a replay: who acted and how (``None`` for the deal), the events, and the
    whole table after it (:func:`open_view`)."""

    seat: int | None
    action: ActionWire | None
    events: list[EventWire]
    view: ReplayView


def _rules(item: dict[str, Any]) -> type[Game]:
    """The rules core of the game an item records, from the one game registry
    (``ValueError`` for a game the server does not have)."""
    return game_spec(item["game"]).game


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


def daily_hidden(games: list[dict[str, Any]], today: datetime.date) -> bool:
    """Whether a room's history must not be served yet: it holds a hand of a daily match whose
    UTC day is not over. To anyone, the room's own player too: a finished hand's record is its
    whole deal, and every daily room of the day deals the same hands, so a player who read it
    could play a second room of the day knowing them (and others who have not played yet)."""
    days = [day for day in map(_day, games) if day is not None]
    return any(day >= today for day in days)


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
        ValueError: the item names no known game.
        KeyError: the item has no game.
        IllegalAction: the stored log does not replay (a corrupted item).
    """
    rules = _rules(item)
    log = [(int(seat), Action.from_str(text)) for seat, text in item["log"]]
    return rules.replay(item["deal"], log)


def open_view(game: Game) -> ReplayView:
    """The whole table at one moment of a finished game, every seat's cards face up.

    Built from the rules core's own views (the spectator's, plus each seat's ``hand`` as
    ``hands``, and what only a seat's view holds), so a client draws it without knowing a rule.
    Shithead's face-down cards, in no view while the game runs, are each seat's
    ``face_down_cards`` (``None`` for an empty slot).
    """
    players = range(game.num_players)
    if isinstance(game, Shithead):
        table = game.shared_view()
        seats: list[ShitheadReplaySeat] = [
            {**entry, "face_down_cards": [CODES[c] if c is not None else None for c in slots]}
            for entry, slots in zip(table["seats"], game.face_down, strict=True)
        ]
        hands = [game.own_view(s)["hand"] or [] for s in players]
        return {**table, "seats": seats, "seat": None, "hands": hands}
    if isinstance(game, Sheepshead):
        spectator, own = game.own_view(None), [game.own_view(s) for s in players]
        # the picker's secrets, from the picker's own view (everyone's once the hand is over)
        buried = spectator["buried"]
        if buried is None:
            buried = next((v["buried"] for v in own if v["buried"] is not None), None)
        blind = spectator["blind"]
        if blind is None:
            blind = next((v["blind"] for v in own if v["blind"] is not None), None)
        unknown = spectator["unknown_card"]
        if unknown is None:
            unknown = next((v["unknown_card"] for v in own if v["unknown_card"] is not None), None)
        return {
            **game.shared_view(),
            "seat": None,
            "you_are_partner": spectator["you_are_partner"],
            "buried": buried,
            "blind": blind,
            "unknown_card": unknown,
            "hands": [v["hand"] or [] for v in own],
        }
    raise ValueError(f"no replay of {game.name}")


def replay_steps(item: dict[str, Any]) -> list[ReplayStep]:
    """A finished game step by step, for a replay: the deal, then one step per action (who
    acted, the action, the events it made) with the :func:`open_view` after it.

    Raises:
        ValueError: the item names no known game.
        KeyError: the item has no game.
        IllegalAction: the stored log does not replay (a corrupted item).
    """
    return list(iter_steps(item))


def iter_steps(item: dict[str, Any]) -> Iterator[ReplayStep]:
    """:func:`replay_steps` one step at a time (so a caller can pause between them)."""
    game = _rules(item).from_deal_record(item["deal"])
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
