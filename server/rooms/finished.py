"""What a room keeps when one of its games ends: the game's history (deal, actions, result,
names) in the room store, and its results on the leaderboards (the all-time table of its game;
the daily table when a daily Sheepshead match ends).

Results come from the rules core's own outcome, never from a client. A seat is ranked when a
person took it (created, joined or resumed) from a connection with a device token
(``hello.device``): the seat keeps the token's digest, so the result counts even if the person is
disconnected when the game ends, or the room was rebuilt from the store. Bots are not ranked,
and a room opened with hints ranks nobody (its history is still kept).

Both records are safe to repeat (history by game index, results by the game's name), so a room
reloaded after a crash records its last finished game again without counting it twice.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from server.store.base import StoreError, StoreUnavailable
from server.store.history import history_item
from server.store.leaderboard import Player
from server.store.results import Result, game_results, match_results, record_results

if TYPE_CHECKING:
    from server.rooms.actor import RoomActor

log = logging.getLogger(__name__)

#: Where a room's match stood: (game index, that game over, the whole match over).
Progress = tuple[int, bool, bool] | None


class FinishedGames:
    """Records a room's games as they end (one per actor)."""

    def __init__(self, actor: RoomActor) -> None:
        self.actor = actor
        self._pending: set[asyncio.Task[None]] = set()  # records waiting for the store

    def progress(self) -> Progress:
        match = self.actor.core.match
        if match is None:
            return None
        over = match.current.is_over()  # (the match is over only once its last game is)
        return (match.game_index, over, over and match.is_over())

    def players(self) -> list[Player | None]:
        """Each seat's ranked player: a person who took it with a device token, else ``None``."""
        return [
            Player.known(seat.device, seat.name or "?")
            if seat.kind == "human" and seat.device
            else None
            for seat in self.actor.core.seats
        ]

    async def record(self, before: Progress) -> None:
        """Record the current game if it has ended since ``before`` was taken."""
        now = self.progress()
        if now is None or not now[1] or now == before:
            return
        core = self.actor.core
        match = core.match
        assert match is not None
        game = match.current
        index = match.game_index
        outcome = game.outcome()
        players = self.players()
        results = game_results(core.game, outcome.scores, players)
        if match.is_over():
            results += match_results(core.daily_date, match.totals(), players)
        if core.hints:  # the strong bot helped: not a result for the leaderboards
            results = []
        proof = match.proof(index)  # the deal revealed, now that the game is over
        day = match.daily.isoformat() if match.daily else None
        revealed = None if proof is None else {**proof.to_json(), "daily": day}
        item = history_item(index, game, [s.name for s in core.seats], proof=revealed)
        await self._store(item, results, f"{core.code}:{core.nonce}:{index}")

    async def _store(self, item: dict[str, Any], results: list[Result], event: str) -> None:
        """Store a finished game's history and results; while the store is away, once more
        when it is back (both are safe to repeat)."""
        actor = self.actor
        try:
            await actor.store.add_history(actor.code, item, fence=actor.fence)
            await record_results(actor.manager.boards, results, event)
        except StoreUnavailable as exc:
            log.warning("room %s: game %d not recorded yet: %s", actor.code, item["g"], exc)
            actor.manager.health.down()
            task = asyncio.create_task(self._later(item, results, event))
            self._pending.add(task)
            task.add_done_callback(self._pending.discard)
        except StoreError as exc:  # the room moved or expired: its new owner records it
            log.warning("room %s: game %d not recorded: %s", actor.code, item["g"], exc)

    async def _later(self, item: dict[str, Any], results: list[Result], event: str) -> None:
        await self.actor.manager.health.wait_up()
        await self._store(item, results, event)
