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
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from server.rules.base import Action, Game
from server.rules.sheepshead import Sheepshead
from server.rules.shithead import Shithead

RULES: dict[str, type[Game]] = {"shithead": Shithead, "sheepshead": Sheepshead}


def history_item(index: int, game: Game, names: Sequence[str | None]) -> dict[str, Any]:
    """The stored form of finished game ``index`` of a room (``names``: each seat's name)."""
    if not game.is_over():
        raise ValueError("only a finished game goes into the history")
    return {
        "g": index,
        "game": game.name,
        "deal": game.deal_record(),
        "log": [[seat, action.to_str()] for seat, action in game.log],
        "result": game.outcome().to_json(),
        "names": list(names),
    }


def replay(item: dict[str, Any]) -> Game:
    """The finished game an item records, rebuilt move by move by its rules core.

    Raises:
        KeyError: the item names no known game.
        IllegalAction: the stored log does not replay (a corrupted item).
    """
    rules = RULES[item["game"]]
    log = [(int(seat), Action.from_str(text)) for seat, text in item["log"]]
    return rules.replay(item["deal"], log)
