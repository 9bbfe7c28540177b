"""Ratings: one per game for every rated identity, by OpenSkill's Plackett-Luce model (the
``openskill`` package), kept in memory here or in Redis (:mod:`server.store.redis_ratings`).

An identity is a :func:`~server.store.leaderboard.player_id` (the digest of a device token the
server issued) or a house bot's :data:`BOT_IDS` entry, so "two strong bots" is a number. Only the
server writes here, from a finished rated game's own outcome (:mod:`server.runtime.finished`):
no message of the protocol carries a rank or a rating.

A rating is a belief: ``mu`` (the skill's estimate) and ``sigma`` (its uncertainty). What is
shown, and what the queue matches by, is the conservative ``mu - 3 sigma`` scaled by
:data:`SCALE` (:attr:`Rating.shown`): 0 for a newcomer, rising as games make the system sure.

The bots' ladder keeps its own pool per game (:func:`pool`: ``ladder:shithead``), apart from the
people's: a bot identity's ratings and the house levels' ladder ratings live there, and the
ladder's table (:meth:`Ratings.ladder`) lists that pool by rating with its last games.

A result is recorded once per :attr:`RatedGame.key` (its room, nonce and game): recording it
again, from this process or another, changes nothing and answers the changes of the first time.

>>> game = RatedGame("R:n:0", "shithead", (Place("a", "Ann", 1, 0), Place("b", "Bob", 2, 1)))
>>> changes = expected_changes(game, {})
>>> [c.player for c in changes], changes[0].after.mu > 25 > changes[1].after.mu
(['a', 'b'], True)
>>> Rating().shown, Rating().games
(0, 0)
"""

from __future__ import annotations

import re
import time
from abc import ABC, abstractmethod
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from openskill.models import PlackettLuce

from server.bots.base import BOT_LEVELS, rated_id
from server.store.leaderboard import GAMES, GameName

#: The house bots' identities, one per level.
BOT_IDS: dict[str, str] = {level: rated_id(level) for level in BOT_LEVELS}
#: The displayed number is the conservative estimate ``mu - 3 sigma`` times this.
SCALE = 40.0
#: A player's ratings after each rated game kept for the plot (newest first), per player.
MAX_HISTORY = 100
#: A player's recent rated games kept for their page, with replay links.
MAX_RECENT = 20
#: Players an in-memory store keeps (least recently rated forgotten first, as the leaderboards'
#: names of results are): a process that runs for months holds no more.
MAX_PLAYERS = 100_000
#: Results' keys kept to record a game once (a repeat follows its first try within seconds).
MAX_DONE = 200_000

#: Players one ladder pool lists at most (the lowest rated go first past it).
MAX_LADDER = 10_000
#: A ladder pool's last games kept for its page, with replay links.
MAX_LADDER_GAMES = 20
#: How a ladder pool's name begins (:func:`pool`).
LADDER = "ladder:"

MODEL = PlackettLuce()
#: What a player id looks like: a device digest (:func:`~server.store.leaderboard.player_id`)
#: or a house bot's identity (the player page's address, ``/p/ID``).
PLAYER_ID = r"[0-9a-f]{20}|bot:[a-z]+"


@dataclass(frozen=True, slots=True)
class Rating:
    """One identity's rating in one game: the model's belief and the games it rests on."""

    mu: float = MODEL.mu
    sigma: float = MODEL.sigma
    games: int = 0

    @property
    def conservative(self) -> float:
        """``mu - 3 sigma`` on the displayed scale: what the queue matches by."""
        return SCALE * (self.mu - 3 * self.sigma)

    @property
    def shown(self) -> int:
        """The number shown (:attr:`conservative`, rounded)."""
        return round(self.conservative)

    def to_json(self) -> dict[str, Any]:
        return {
            "mu": self.mu,
            "sigma": self.sigma,
            "rating": self.shown,
            "games": self.games,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Rating:
        return cls(float(data["mu"]), float(data["sigma"]), int(data["games"]))


@dataclass(frozen=True, slots=True)
class Place:
    """One seat's identity in a rated game and its place (1: best; equal places tie)."""

    player: str
    name: str
    rank: int
    seat: int
    left: bool = False  # left the game (or was gone past the grace): ranked last, waits


def pool(game: str, ladder: bool) -> str:
    """The ratings pool of ``game``: the people's (its name) or the bots' ladder's.

    >>> pool("shithead", False), pool("shithead", True)
    ('shithead', 'ladder:shithead')
    """
    return f"{LADDER}{game}" if ladder else game


#: Every pool a player may have a rating in: each game's people's, then each game's ladder's.
POOLS: tuple[str, ...] = (*GAMES, *(pool(g, True) for g in GAMES))


@dataclass(frozen=True, slots=True)
class RatedGame:
    """A finished rated game (Shithead) or match (Sheepshead), as its room ranked it."""

    key: str  # once per key: the room's code, nonce and game index
    game: GameName
    places: tuple[Place, ...]
    room: str = ""  # the room's code (its replay: /api/rooms/CODE/history?game=INDEX)
    index: int = 0  # the last game of it in the room's history
    at: float = 0.0  # unix time it ended
    ladder: bool = False  # a game of the bots' ladder: it moves the ladder pool's ratings

    @property
    def pool(self) -> str:
        """The ratings pool it moves (:func:`pool`)."""
        return pool(self.game, self.ladder)


@dataclass(frozen=True, slots=True)
class LadderRow:
    """One identity on a ladder: its player id, the name it last played under, its rating."""

    player: str
    name: str
    rating: Rating


@dataclass(frozen=True, slots=True)
class LadderTable:
    """A ladder pool's page: its best identities (highest shown rating first), how many it
    holds, and its last games (newest first, :func:`ladder_game`)."""

    rows: list[LadderRow]
    players: int
    games: list[dict[str, Any]]


@dataclass(frozen=True, slots=True)
class RatingChange:
    """One seat's rating before and after a rated game."""

    seat: int
    player: str
    name: str
    before: Rating
    after: Rating

    @property
    def delta(self) -> int:
        return self.after.shown - self.before.shown

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "player": self.player,
            "name": self.name,
            "before": self.before.to_json(),
            "after": self.after.to_json(),
            "delta": self.delta,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RatingChange:
        return cls(
            int(data["seat"]),
            str(data["player"]),
            str(data["name"]),
            Rating.from_json(data["before"]),
            Rating.from_json(data["after"]),
        )


@dataclass(frozen=True, slots=True)
class PlayerPage:
    """What a player's page shows: ratings per game, their history, recent games."""

    player: str
    name: str | None
    ratings: dict[str, Rating] = field(default_factory=dict)
    history: list[dict[str, Any]] = field(default_factory=list)  # newest first
    recent: list[dict[str, Any]] = field(default_factory=list)  # newest first


def ranks_by_order(out_order: Sequence[int], loser: int, players: int) -> list[int]:
    """Shithead's places: by the order the seats went out, the loser last; seats still
    holding cards when a game was stopped (SH-6.6) share the place before the loser's.

    >>> ranks_by_order([2, 0], 1, 4)
    [2, 4, 1, 3]
    """
    ranks = [0] * players
    for place, seat in enumerate(out_order):
        ranks[seat] = place + 1
    for seat in range(players):
        if seat != loser and seat not in out_order:
            ranks[seat] = len(out_order) + 1
    ranks[loser] = players
    return ranks


def ranks_by_score(scores: Sequence[int]) -> list[int]:
    """Places by score, higher better, equal scores tied (competition ranks).

    >>> ranks_by_score([3, -6, 3, 0, 0])
    [1, 5, 1, 3, 3]
    """
    return [1 + sum(1 for other in scores if other > s) for s in scores]


def final_places(game: RatedGame) -> list[int]:
    """Each seat's place once leavers are put last (tied among themselves), the others in
    their order (competition ranks).

    >>> final_places(RatedGame("k", "shithead", (Place("a", "A", 1, 0, left=True),
    ...     Place("b", "B", 2, 1), Place("c", "C", 3, 2))))
    [3, 1, 2]
    """
    keys = [(p.left, p.rank) for p in game.places]
    return [1 + sum(1 for other in keys if other < key) for key in keys]


def expected_changes(game: RatedGame, current: dict[str, Rating]) -> list[RatingChange]:
    """What ``game`` does to the ratings ``current`` holds (a newcomer's: :class:`Rating`):
    one Plackett-Luce update, every seat a team of one. Leavers take the last place, tied.

    An identity seated twice (two strong bots at one table) is updated from both seats as two
    observations of one prior: its ``mu`` moves by both seats' moves, its ``sigma`` shrinks by
    both seats' factors.
    """
    places = list(game.places)
    ranks = [float(r) for r in final_places(game)]
    before = [current.get(p.player, Rating()) for p in places]
    teams = [[MODEL.rating(mu=r.mu, sigma=r.sigma)] for r in before]
    rated = MODEL.rate(teams, ranks=ranks)
    moved: dict[str, tuple[float, float]] = {}
    for place, old, team in zip(places, before, rated, strict=True):
        d_mu, factor = moved.get(place.player, (0.0, 1.0))
        moved[place.player] = (d_mu + team[0].mu - old.mu, factor * team[0].sigma / old.sigma)
    out = []
    for place, old in zip(places, before, strict=True):
        d_mu, factor = moved[place.player]
        after = Rating(old.mu + d_mu, old.sigma * factor, old.games + 1)
        out.append(RatingChange(place.seat, place.player, place.name, old, after))
    return out


def history_entry(game: RatedGame, change: RatingChange) -> dict[str, Any]:
    """A player's plot point after ``game`` (``game``: its pool)."""
    return {"game": game.pool, "at": round(game.at), **change.after.to_json()}


def ladder_game(game: RatedGame, changes: Sequence[RatingChange]) -> dict[str, Any]:
    """A ladder game's line on the ladder's page: where (its replay), when, and each seat's
    identity, name, place and change."""
    places = final_places(game)
    at = {p.seat: i for i, p in enumerate(game.places)}
    return {
        "at": round(game.at),
        "room": game.room,
        "index": game.index,
        "seats": [
            {
                "player": c.player,
                "name": c.name,
                "place": places[at[c.seat]],
                "rating": c.after.shown,
                "delta": c.delta,
            }
            for c in changes
        ],
    }


def recent_entry(game: RatedGame, change: RatingChange) -> dict[str, Any]:
    """A player's line of recent games: where it was played, their place, the change."""
    at = next(i for i, p in enumerate(game.places) if p.seat == change.seat)
    place = game.places[at]
    return {
        "game": game.pool,
        "at": round(game.at),
        "room": game.room,
        "index": game.index,
        "place": final_places(game)[at],
        "of": len(game.places),
        "left": place.left,
        "rating": change.after.shown,
        "delta": change.delta,
    }


class Ratings(ABC):
    """Where rated results are recorded and ratings read; also the queue's two numbers
    (``skill``, ``wait_before_queue``: the queue's ``QueueRatings``)."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.clock = clock

    @abstractmethod
    async def record(self, game: RatedGame, leaver_wait: float = 0.0) -> list[RatingChange]:
        """Apply ``game`` once (by its key) and answer each seat's change; a repeat changes
        nothing and answers the first time's changes. Its leavers wait ``leaver_wait``
        seconds from now before they may queue again.

        Raises:
            StoreUnavailable: the store cannot be reached.
        """

    @abstractmethod
    async def rating(self, game: str, player: str) -> Rating:
        """``player``'s rating in ``game`` (a newcomer's if none)."""

    @abstractmethod
    async def page(self, player: str) -> PlayerPage:
        """Everything a player's page shows."""

    @abstractmethod
    async def ladder(self, game: GameName, limit: int) -> LadderTable:
        """``game``'s ladder pool: its ``limit`` best identities, its size, its last games.

        Raises:
            StoreUnavailable: the store cannot be reached.
        """

    @abstractmethod
    async def wait_before_queue(self, player: str) -> float:
        """Seconds ``player`` must still wait before queueing (a leaver's); 0.0 if none."""

    async def skill(self, game: str, player: str) -> float:
        """``player``'s conservative rating in ``game`` on the displayed scale (0.0 new)."""
        return (await self.rating(game, player)).conservative

    async def close(self) -> None:  # noqa: B027 - optional hook
        """Release connections."""


class MemoryRatings(Ratings):
    """The in-memory default, bounded: :data:`MAX_PLAYERS` players (least recently rated
    forgotten first) and :data:`MAX_DONE` results' keys."""

    def __init__(
        self,
        clock: Callable[[], float] = time.time,
        *,
        max_players: int = MAX_PLAYERS,
        max_done: int = MAX_DONE,
    ) -> None:
        super().__init__(clock)
        self._players: OrderedDict[str, _Held] = OrderedDict()
        self._done: OrderedDict[str, list[RatingChange]] = OrderedDict()
        self._waits: dict[str, float] = {}
        # each ladder pool's identities (least recently rated first) and last games
        self._ladder: dict[str, OrderedDict[str, None]] = {}
        self._ladder_games: dict[str, list[dict[str, Any]]] = {}
        self._max_players = max_players
        self._max_done = max_done

    async def record(self, game: RatedGame, leaver_wait: float = 0.0) -> list[RatingChange]:
        if game.key in self._done:
            return self._done[game.key]
        current = {p.player: await self.rating(game.pool, p.player) for p in game.places}
        changes = expected_changes(game, current)
        if game.ladder:
            self._on_ladder(game, changes)
        for change in changes:
            held = self._players.pop(change.player, None) or _Held()
            held.name = change.name or held.name  # (a leaver's seat no longer names them)
            held.ratings[game.pool] = change.after
            held.history.insert(0, history_entry(game, change))
            del held.history[MAX_HISTORY:]
            held.recent.insert(0, recent_entry(game, change))
            del held.recent[MAX_RECENT:]
            self._players[change.player] = held
        while len(self._players) > self._max_players:
            self._players.popitem(last=False)
        self._done[game.key] = changes
        while len(self._done) > self._max_done:
            self._done.popitem(last=False)
        now = self.clock()
        for place in game.places:
            if place.left and leaver_wait > 0:
                self._waits[place.player] = now + leaver_wait
        self._waits = {p: t for p, t in self._waits.items() if t > now}  # only those waiting
        return changes

    async def rating(self, game: str, player: str) -> Rating:
        held = self._players.get(player)
        return held.ratings.get(game, Rating()) if held else Rating()

    async def page(self, player: str) -> PlayerPage:
        held = self._players.get(player)
        if held is None:
            return PlayerPage(player, None)
        return PlayerPage(
            player, held.name, dict(held.ratings), list(held.history), list(held.recent)
        )

    def _on_ladder(self, game: RatedGame, changes: list[RatingChange]) -> None:
        members = self._ladder.setdefault(game.pool, OrderedDict())
        for change in changes:
            members.pop(change.player, None)
            members[change.player] = None
        while len(members) > MAX_LADDER:
            members.popitem(last=False)
        games = self._ladder_games.setdefault(game.pool, [])
        games.insert(0, ladder_game(game, changes))
        del games[MAX_LADDER_GAMES:]

    async def ladder(self, game: GameName, limit: int) -> LadderTable:
        key = pool(game, True)
        members = self._ladder.get(key, OrderedDict())
        rows = []
        for player in members:
            held = self._players.get(player)
            if held is not None and key in held.ratings:
                rows.append(LadderRow(player, held.name, held.ratings[key]))
        rows.sort(key=lambda r: (-r.rating.conservative, r.player))
        return LadderTable(rows[:limit], len(rows), list(self._ladder_games.get(key, [])))

    async def wait_before_queue(self, player: str) -> float:
        return max(0.0, self._waits.get(player, 0.0) - self.clock())

    def tracked(self) -> int:
        """Entries held (a leak check)."""
        ladder = sum(len(m) for m in self._ladder.values())
        return len(self._players) + len(self._done) + len(self._waits) + ladder


@dataclass(slots=True)
class _Held:
    name: str = ""
    ratings: dict[str, Rating] = field(default_factory=dict)
    history: list[dict[str, Any]] = field(default_factory=list)
    recent: list[dict[str, Any]] = field(default_factory=list)


def is_player_id(text: str) -> bool:
    """Whether ``text`` is a player id (:data:`PLAYER_ID`).

    >>> is_player_id("0123456789abcdef0123"), is_player_id("bot:strong"), is_player_id("x")
    (True, True, False)
    """
    return re.fullmatch(PLAYER_ID, text) is not None


def checked_game(game: str) -> GameName:
    """``game`` as a game name (``ValueError`` for none)."""
    for name in GAMES:
        if name == game:
            return name
    raise ValueError(f"unknown game {game!r}")
