"""What a room keeps when one of its games ends: the game's history (deal, actions, result,
names) in the room store, and its results on the leaderboards (the all-time table of its game;
the daily table when a daily Sheepshead match ends).

Results come from the rules core's own outcome, never from a client. A seat is ranked when a
person took it (created, joined or resumed) from a connection with a device identity the
server issued (``hello.device``, see :mod:`server.net.devices`): the seat keeps its digest, so
the result counts even if the person is disconnected when the game ends, or the room was
rebuilt from the store. Bots are not ranked; a room with house rules (SH-7, SS-10: the boards
rank the book's game) and a room opened with hints rank nobody (their history is still kept).

A result also needs a minimum of play, so that a board entry cannot be farmed from games
nobody played: on the all-time boards, a game in
which the person made at least :data:`MIN_OWN_ACTIONS` moves themselves (a stand-in's moves
are not theirs); on the daily board, the whole match played, with a move of their own in each
of its hands. Moves are counted by the process that saw them: a match taken over from another
process (or reloaded after a crash) counts only what it saw, and so may rank no one. A daily
entry also takes one of the ``daily_entries_per_address`` a day of the address its player's
identity was issued to (its origin): identities hoarded from one address over days earn that
address no more than those few entries a day. A daily room ranks only its player's first
daily match of the day (the first started: every room of a day deals the same hands), and only
the games that end within its UTC day (after it, the day's seeds are public).

A rated room's game (Shithead) or match (Sheepshead) also goes to the ratings
(:mod:`server.store.ratings`): each seat's identity when it was dealt (a person's device
digest, a house bot's level) is ranked by the outcome, a seat whose person left during it
last (they also wait ``wait_before_queue`` before queueing again); a seat whose person changed
otherwise (the host removed them) is not rated. The room then shows everyone's change.

Every record is safe to repeat (history by game index, results by the game's name, ratings by
the same name), so a room reloaded after a crash records its last finished game again without
counting it twice.
"""

from __future__ import annotations

import asyncio
import datetime
import logging
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Protocol

from protocol import messages as m
from server.bots.base import rated_id
from server.rooms.event_table import EventTable
from server.rooms.inputs import Request, RoomInput
from server.rooms.matches import Match
from server.rooms.outputs import ConnId
from server.rooms.seats import Seat
from server.rooms.settings import RoomSettings
from server.store.base import RoomStore, StoreError, StoreUnavailable
from server.store.health import StoreHealth
from server.store.history import history_item
from server.store.leaderboard import Leaderboards, Player, device_origin
from server.store.ratings import (
    MemoryRatings,
    Place,
    RatedGame,
    RatingChange,
    Ratings,
    checked_game,
    ranks_by_order,
    ranks_by_score,
)
from server.store.results import Result, game_results, match_results, record_results

log = logging.getLogger(__name__)

#: Where a room's match stood: (game index, that game over, the whole match over).
Progress = tuple[int, bool, bool] | None
#: Moves a person makes in a game themselves for its result to reach an all-time board.
MIN_OWN_ACTIONS = 3
#: Each ranked player's device origin (:func:`~server.store.leaderboard.device_origin`).
Origins = dict[str, str | None]


class Room(Protocol):
    """What is read of a room (its :class:`~server.rooms.core.RoomCore`) when a game ends."""

    @property
    def code(self) -> str: ...
    @property
    def nonce(self) -> str: ...
    @property
    def game(self) -> m.GameName: ...
    @property
    def players(self) -> int: ...
    @property
    def settings(self) -> RoomSettings: ...
    @property
    def hints(self) -> bool: ...
    @property
    def ladder(self) -> bool: ...
    @property
    def daily(self) -> bool: ...
    @property
    def daily_date(self) -> datetime.date | None: ...
    @property
    def daily_ranked(self) -> bool | None: ...
    @property
    def match(self) -> Match | None: ...
    @property
    def table(self) -> EventTable | None: ...
    @property
    def seats(self) -> Iterable[Seat]: ...
    @property
    def where(self) -> Mapping[ConnId, int | None]: ...
    @property
    def rated(self) -> bool: ...
    @property
    def rated_per_match(self) -> bool: ...
    @property
    def rated_seats(self) -> list[str | None]: ...
    @property
    def deserted(self) -> Mapping[int, str]: ...
    def match_done(self) -> bool: ...


#: Where an event's table reports each hand it finishes: the table, its room's code, the game's
#: index, the units each seat won (Shithead: -1 for the loser) and the game's result as its
#: history records it.
HandSink = Callable[[EventTable, str, int, tuple[int, ...], dict[str, Any]], None]


class Devices(Protocol):
    """Who a connection is (:class:`~server.runtime.connected.Connected`)."""

    def device_of(self, conn: int) -> str | None: ...


class FinishedGames:
    """Records a room's games as they end (one per actor), in its store (with the room's
    fencing token) and on the boards."""

    def __init__(
        self,
        room: Room,
        store: RoomStore,
        *,
        boards: Leaderboards,
        health: StoreHealth,
        devices: Devices,
        fence: int = 0,
        clock: Callable[[], float] = time.time,
        ratings: Ratings | None = None,
        shown: Callable[[tuple[m.RatingShift, ...]], None] | None = None,
        hands: HandSink | None = None,
    ) -> None:
        self.room = room
        self.ratings = ratings or MemoryRatings(clock)
        self.shown = shown  # the room shows the changes (an input of its own)
        self.hands = hands
        self.clock = clock
        self.store = store
        self.boards = boards
        self.health = health
        self.devices = devices
        self.fence = fence
        self._pending: set[asyncio.Task[None]] = set()  # records waiting for the store
        self._own: dict[int, list[int]] = {}  # game index -> each seat's own moves in it
        self._origins: dict[int, str] = {}  # seat -> origin of the identity it moved with

    def acted(self, item: RoomInput) -> None:
        """Count an accepted input if it was a seated person's own move."""
        core = self.room
        if core.match is None or not isinstance(item, Request) or not isinstance(item.msg, m.Act):
            return
        seat = core.where.get(item.conn)
        if seat is not None:
            own = self._own.setdefault(core.match.game_index, [0] * core.players)
            own[seat] += 1
            device = self.devices.device_of(item.conn)
            if device is not None:
                self._origins[seat] = device_origin(device)

    def _played(self, index: int, seat: int) -> int:
        return self._own.get(index, [0] * (seat + 1))[seat]

    def progress(self) -> Progress:
        match = self.room.match
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
            for seat in self.room.seats
        ]

    def ended(self, before: Progress) -> bool:
        """Whether the current game has ended since ``before`` was taken."""
        now = self.progress()
        return now is not None and now[1] and now != before

    async def record(self, before: Progress) -> None:
        """Record the current game if it has ended since ``before`` was taken."""
        if not self.ended(before):
            return
        core = self.room
        match = core.match
        assert match is not None
        game = match.current
        index = match.game_index
        outcome = game.outcome()
        players = self.players()
        enough = [
            p if p and self._played(index, s) >= MIN_OWN_ACTIONS else None
            for s, p in enumerate(players)
        ]
        results = game_results(core.game, outcome.scores, enough)
        if match.is_over():
            whole = [
                p if p and all(self._played(g, s) for g in range(index + 1)) else None
                for s, p in enumerate(players)
            ]
            results += match_results(core.daily_date, match.totals(), whole)
        # the strong bot helped, or a daily room open to several people, or house rules (the
        # boards rank the book's game, docs/rules.md), or the bots' ladder (the boards are
        # people's; the ladder ranks its bots on its own page): no result to rank
        house = match.options != type(match.options)()
        if core.hints or house or core.ladder or (core.daily and not core.settings.daily_alone):
            results = []
        if core.daily and not self._daily_ranks():
            results = []
        proof = match.proof(index)  # the deal revealed, now that the game is over
        day = match.daily.isoformat() if match.daily else None
        revealed = None if proof is None else {**proof.to_json(), "daily": day}
        item = history_item(index, game, [s.name for s in core.seats], proof=revealed)
        origins = {p.id: self._origins.get(s) for s, p in enumerate(players) if p}
        event = f"{core.code}:{core.nonce}:{index}"
        await self._store(item, results, event, origins, self.rated_game(event))
        if core.table is not None and self.hands is not None:  # once its history is stored
            sign = 1 if core.game == "sheepshead" else -1  # a Shithead game's loss is -1
            units = tuple(sign * s for s in outcome.scores)
            self.hands(core.table, core.code, index, units, item["result"])

    def rated_game(self, key: str) -> RatedGame | None:
        """The rated game that just ended, as the ratings take it (``None``: nothing to rate:
        the room is not rated, a Sheepshead match is not over, or fewer than two identities
        and no person among them)."""
        core = self.room
        match = core.match
        if not core.rated or match is None or (core.rated_per_match and not core.match_done()):
            return None
        if core.hints or core.daily or match.options != type(match.options)():
            return None  # (a rated room is none of these: refused when it was made rated)
        if core.rated_per_match:  # SS-9.1: the match by its units
            ranks = ranks_by_score(match.totals())
        else:  # SH-6.4: by the order the players went out, the shithead last
            outcome = match.current.outcome()
            result = outcome.to_json()
            out = result.get("out_order")
            loser = result.get("loser")
            if not isinstance(out, list) or not isinstance(loser, int):
                return None
            ranks = ranks_by_order(out, loser, core.players)
        places = []
        seats = list(core.seats)
        for index, who in enumerate(core.rated_seats):
            seat = seats[index]
            now = seat.device if seat.kind == "human" else None
            if seat.kind == "bot" and seat.level is not None:
                now = rated_id(seat.level)
            if who is None:
                continue
            player = who if who.startswith("bot:") else Player.known(who, "").id
            if index in core.deserted:
                name = core.deserted[index]
                places.append(Place(player, name, ranks[index], index, left=True))
            elif now == who:
                name = (seat.name or "?") if seat.kind == "human" else f"bot ({seat.level})"
                places.append(Place(player, name, ranks[index], index))
        people = [p for p in places if not p.player.startswith("bot:")]
        if len(places) < 2 or not people:
            return None
        return RatedGame(
            key,
            checked_game(core.game),
            tuple(places),
            core.code,
            match.game_index,
            self.clock(),
            ladder=core.ladder,
        )

    def _daily_ranks(self) -> bool:
        """Whether a daily room's game ranks: its player's first daily match of the day
        (decided when it started), ended within its UTC day. The day's seeds are published
        when the day is over (``/api/daily``), so a hand still played after midnight is
        played knowing the deals, and a match finished after midnight is not ranked."""
        core = self.room
        today = datetime.datetime.fromtimestamp(self.clock(), datetime.UTC).date()
        return core.daily_ranked is True and core.daily_date == today

    async def _claimed(self, results: list[Result], origins: Origins) -> list[Result]:
        """The results whose daily entries fit their identities' origin's budget (an entry
        whose origin this process did not see is not ranked)."""
        boards = self.boards
        limit = self.room.settings.daily_entries_per_address
        kept = []
        for board, player, score in results:
            origin = origins.get(player.id)
            if board.once_per_player and (
                origin is None or not await boards.claim(board, origin, player.id, limit)
            ):
                continue
            kept.append((board, player, score))
        return kept

    async def _store(
        self,
        item: dict[str, Any],
        results: list[Result],
        event: str,
        origins: Origins,
        rated: RatedGame | None = None,
    ) -> None:
        """Store a finished game's history, results and ratings; while the store is away, once
        more when it is back (all are safe to repeat)."""
        code = self.room.code
        try:
            await self.store.add_history(code, item, fence=self.fence)
            results = await self._claimed(results, origins)
            await record_results(self.boards, results, event)
            if rated is not None:
                wait = self.room.settings.wait_before_queue
                self._show(await self.ratings.record(rated, wait))
        except StoreUnavailable as exc:
            log.warning("room %s: game %d not recorded yet: %s", code, item["g"], exc)
            self.health.down()
            task = asyncio.create_task(self._later(item, results, event, origins, rated))
            self._pending.add(task)
            task.add_done_callback(self._pending.discard)
        except StoreError as exc:  # the room moved or expired: its new owner records it
            log.warning("room %s: game %d not recorded: %s", code, item["g"], exc)

    def _show(self, changes: list[RatingChange]) -> None:
        if self.shown is None:
            return
        shifts = tuple(
            m.RatingShift(
                seat=c.seat,
                player=c.player,
                before=c.before.shown,
                after=c.after.shown,
                delta=c.delta,
                mu=c.after.mu,
                sigma=c.after.sigma,
            )
            for c in changes
        )
        self.shown(shifts)

    async def _later(
        self,
        item: dict[str, Any],
        results: list[Result],
        event: str,
        origins: Origins,
        rated: RatedGame | None,
    ) -> None:
        await self.health.wait_up()
        await self._store(item, results, event, origins, rated)
