"""The two numbers Play now needs of a player's rating, as a ``Protocol`` the ratings store
implements (duck-typed): a skill to group by, and the wait a player who left a rated game
must still sit out. :class:`Unrated` is the server without ratings: everyone equal, nobody
waits.

>>> import asyncio
>>> asyncio.run(Unrated().skill("shithead", "p1")), asyncio.run(Unrated().wait_before_queue("p1"))
(0.0, 0.0)
"""

from __future__ import annotations

from typing import Protocol


class QueueRatings(Protocol):
    async def skill(self, game: str, player: str) -> float:
        """A conservative rating (OpenSkill ordinal, mu - 3*sigma, on the displayed scale);
        new players 0.0."""
        ...

    async def wait_before_queue(self, player: str) -> float:
        """Seconds this player must still wait (a leaver's penalty); 0.0 if none."""
        ...


class Unrated:
    """Everyone 0.0, no wait: the queue of a server that keeps no ratings."""

    async def skill(self, game: str, player: str) -> float:
        return 0.0

    async def wait_before_queue(self, player: str) -> float:
        return 0.0
