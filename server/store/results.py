"""From a finished game, as the rules core scored it, to leaderboard entries. The only road onto
a board: its inputs are the core's own results, never a client's claim.

Bots and players without a device token (an older client) are not ranked.

>>> ann = Player("device-1", "Ann")
>>> [(b.key, p.name, s) for b, p, s in game_results("shithead", (0, 1, 0), [ann, None, None])]
[('shithead', 'Ann', 1)]
>>> [(b.key, s) for b, _, s in match_results(datetime.date(2026, 11, 30), (5, -2, -1, -1, -1),
...                                           [ann, None, None, None, None])]
[('daily:2026-11-30', 5)]
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence

from server.store.leaderboard import GAMES, Board, GameName, Leaderboards, Player

Result = tuple[Board, Player, int]


def game_results(
    game: str, scores: Sequence[int], players: Sequence[Player | None]
) -> list[Result]:
    """All-time entries for one finished game or hand.

    ``scores`` is the core's per-seat result: Sheepshead, the units the hand adds (SS-9.1);
    Shithead, the losses it adds (SH-6.5: 1 for the shithead, 0 for everyone else), which the
    table counts the other way round, as games got out of.
    """
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}")
    name: GameName = "sheepshead" if game == "sheepshead" else "shithead"
    board = Board.alltime(name)
    out: list[Result] = []
    for player, score in zip(players, scores, strict=True):
        if player is not None:
            out.append((board, player, score if name == "sheepshead" else 1 - score))
    return out


def match_results(
    day: datetime.date | None, totals: Sequence[int], players: Sequence[Player | None]
) -> list[Result]:
    """The daily table's entries for a finished Sheepshead match (``day``: the deals' date;
    ``None``: not a daily match, nothing to record)."""
    if day is None:
        return []
    board = Board.daily(day)
    return [(board, p, total) for p, total in zip(players, totals, strict=True) if p is not None]


async def record_results(
    boards: Leaderboards, results: Sequence[Result], event: str | None = None
) -> None:
    """Record each result, once per ``event`` (raises
    :class:`~server.store.base.StoreUnavailable` on the first that cannot be stored; the ones
    before it stay recorded, and recording them all again later adds only the rest)."""
    for board, player, score in results:
        await boards.record(board, player, score, event=event)
