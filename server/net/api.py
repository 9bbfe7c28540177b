"""The read-only JSON API beside the WebSocket: leaderboards and hand history.

- ``GET /api/leaderboard?board=daily`` (or ``daily:YYYY-MM-DD``, ``sheepshead``, ``shithead``;
  ``&limit=N`` up to 100; ``&player=ID`` adds that player's own entry and rank as ``you``).
- ``GET /api/daily``: the daily match's commitments, and its seeds once its day is over.
- ``GET /api/players/ID``: a player's page (:func:`player`): their name, rating per game with
  its uncertainty, its history for a plot, and their recent rated games with replay links.
- ``GET /api/ladder?game=shithead``: the bots' ladder of a game (:func:`ladder`): its best
  identities with their ratings and uncertainty and games played, the house levels (its anchors)
  always among them, and its last games with replay links; cached for seconds.
- ``GET /api/rooms/CODE/history``: the room's finished games (deal, actions, result, names).
  While the room is open, only its players see it (their seat token in an
  ``Authorization: Bearer`` header; a token in the URL is never read, since proxies log URLs);
  once it has closed, anyone with the code does, until it expires. A daily match's hands are
  served to nobody, its own player included, until their UTC day is over. An open room asked without
  a valid token answers exactly as a code with no room does (:data:`NOT_FOUND`, after the same
  :data:`REFUSAL_FLOOR`), so codes cannot be enumerated. ``&game=N`` (or ``&g=N``): game ``N``
  only. ``&game=N&steps=1`` adds that game's ``steps``: the whole table after the deal and
  after each action, replayed by its rules core (:mod:`server.net.replays`, cached), so a
  client shows it without knowing a rule. Steps come one game per request.

Each handler answers ``(status, JSON body)``; the server turns that into an HTTP response
(and applies the per-address request budget before calling them).
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime
import time
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import parse_qs, unquote

import orjson

from protocol.records import RoomMeta
from server.net.replays import ReplayCache
from server.rooms.seats import stored_digest, token_matches
from server.rooms.seeds import Keys
from server.rules.base import IllegalAction
from server.rules.deal import commitment
from server.rules.sheepshead_match import HANDS, daily_dealer
from server.runtime.queue_service import ANCHORS
from server.store.base import RoomStore, StoreUnavailable
from server.store.history import daily_hidden, revealed
from server.store.leaderboard import BadBoard, Board, Leaderboards
from server.store.ratings import (
    BOT_IDS,
    LADDER,
    LadderRow,
    Ratings,
    checked_game,
    is_player_id,
    pool,
)

MAX_LIMIT = 100
#: Steps a replay makes for the cost of one read (about 15 ms of CPU): a longer game not yet
#: replayed costs its asker that many more reads of their budget.
STEPS_A_READ = 100
Answer = tuple[int, bytes]


def _json(status: int, data: Any) -> Answer:
    return status, orjson.dumps(data)


def _error(status: int, code: str, message: str) -> Answer:
    return _json(status, {"error": code, "message": message})


def _query(query: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(query, keep_blank_values=True).items()}


async def leaderboard(boards: Leaderboards, query: str) -> Answer:
    """``/api/leaderboard``: one board's best entries, and a player's own if asked."""
    params = _query(query)
    try:
        board = Board.parse(params.get("board", "daily"))
    except BadBoard as exc:
        return _error(400, "bad_board", str(exc))
    try:
        limit = min(MAX_LIMIT, max(1, int(params.get("limit", "20"))))
    except ValueError:
        return _error(400, "bad_limit", "limit is a whole number")
    try:
        entries = await boards.top(board, limit)
        player = params.get("player")
        you = await boards.entry(board, player) if player else None
        players = await boards.size(board)
    except StoreUnavailable:
        return _error(503, "store_unavailable", "leaderboards cannot be read now; try again")
    return _json(
        200,
        {
            "board": board.key,
            "entries": [dataclasses.asdict(e) for e in entries],
            "you": dataclasses.asdict(you) if you else None,
            "players": players,
        },
    )


async def player(ratings: Ratings, player_id: str) -> Answer:
    """``/api/players/ID``: what a player's page shows. ``ratings``: per game, ``mu`` and
    ``sigma`` (the model's belief and its uncertainty), ``rating`` (the conservative
    ``mu - 3 sigma`` as shown) and ``games``; ``history``: the rating after each rated game,
    newest first; ``recent``: the last rated games, each with its replay's address."""
    player_id = unquote(player_id)
    if not is_player_id(player_id):
        return _error(400, "bad_player", "a player id is 20 hex digits, or bot:LEVEL")
    try:
        page = await ratings.page(player_id)
    except StoreUnavailable:
        return _error(503, "store_unavailable", "ratings cannot be read now; try again")
    if page.name is None and not page.ratings:
        return _error(404, "player_not_found", "no rated game of this player yet")
    return _json(
        200,
        {
            "player": page.player,
            "name": page.name,
            # a house level, or a bot identity (only those are rated on a ladder)
            "bot": player_id.startswith("bot:") or any(k.startswith(LADDER) for k in page.ratings),
            "ratings": {game: r.to_json() for game, r in page.ratings.items()},
            "history": page.history,
            "recent": [{**g, "replay": f"/r/{g['room']}/history"} for g in page.recent],
        },
    )


#: Identities the ladder's page lists at most (the anchors come on top of these).
LADDER_ROWS = 50
#: Seconds a ladder's answer is served from memory (the page costs a store read per interval).
LADDER_TTL = 2.0


class LadderCache:
    """Each game's last ``/api/ladder`` answer, kept :data:`LADDER_TTL` seconds: a crowd
    reading the page costs one read of the store per game and interval."""

    def __init__(self, ttl: float = LADDER_TTL) -> None:
        self.ttl = ttl
        self._held: dict[str, tuple[float, Answer]] = {}
        self.reads = 0  # answers read from the store (the rest came from here)

    async def get(self, ratings: Ratings, query: str) -> Answer:
        """The answer to ``/api/ladder?QUERY``, from memory while it is fresh."""
        try:
            game = checked_game(_query(query).get("game", "shithead"))
        except ValueError:
            return _error(400, "bad_game", "game is shithead or sheepshead")
        now = time.monotonic()
        held = self._held.get(game)
        if held is not None and held[0] > now:
            return held[1]
        answer = await ladder(ratings, game)
        self.reads += 1
        if answer[0] == 200:
            self._held[game] = (now + self.ttl, answer)
        return answer


async def ladder(ratings: Ratings, game: str) -> Answer:
    """``/api/ladder?game=GAME``: ``ladder``, the best identities of the game's bots' ladder by
    their shown rating (``mu - 3 sigma``, as the queue matches by), each with ``mu`` and
    ``sigma``, ``games`` played and ``anchor`` (a house level, always listed); ``players``:
    how many it holds; ``games``: its last games, each seat's place and change, with the
    replay's address."""
    name = checked_game(game)
    try:
        table = await ratings.ladder(name, LADDER_ROWS)
        rows = list(table.rows)
        listed = {r.player for r in rows}
        for level in ANCHORS:  # the anchors are on the page before they have played
            if BOT_IDS[level] not in listed:
                rating = await ratings.rating(pool(name, True), BOT_IDS[level])
                rows.append(LadderRow(BOT_IDS[level], f"bot ({level})", rating))
    except StoreUnavailable:
        return _error(503, "store_unavailable", "the ladder cannot be read now; try again")
    rows.sort(key=lambda r: (-r.rating.conservative, r.player))
    anchors = {BOT_IDS[level]: level for level in ANCHORS}
    return _json(
        200,
        {
            "game": name,
            "players": max(table.players, len(rows)),
            "ladder": [
                {
                    "player": r.player,
                    "name": r.name,
                    **r.rating.to_json(),
                    "anchor": anchors.get(r.player),
                }
                for r in rows
            ],
            "games": [{**g, "replay": f"/r/{g['room']}/history"} for g in table.games],
        },
    )


#: What every refused history request answers: no room, an expired one, or an open one
#: without a valid seat token (the same status, body and headers).
NOT_FOUND: Answer = (404, b'{"error":"room_not_found","message":"no history for this room code"}')
#: Seconds a refused history request takes at least: the refusal costs no more to tell apart
#: whether a room exists (reading an open room's record takes longer than finding none).
REFUSAL_FLOOR = 0.05


def bearer_token(authorization: str | None) -> str:
    """The token of an ``Authorization: Bearer TOKEN`` header, else ``""``."""
    scheme, _, token = (authorization or "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" else ""


def seated(record: RoomMeta, token: str) -> bool:
    """Whether ``token`` is one of the stored room's seat tokens (their digests compared in
    constant time, every seat's, so the answer takes as long whichever seat matches)."""
    found = False
    for seat in record.get("seats", ()):
        if token_matches(token, stored_digest(seat)):
            found = True
    return bool(token) and found


async def history(
    store: RoomStore,
    code: str,
    query: str,
    token: str,
    replays: ReplayCache,
    *,
    now: float | None = None,
    hide_daily: bool = True,
    charge: Callable[[int], Awaitable[bool]] | None = None,
    public: Callable[[RoomMeta], Awaitable[bool]] | None = None,
) -> Answer:
    """``/api/rooms/CODE/history``: a room's finished games, for its players or after it.

    ``token``: the seat token of the request's ``Authorization`` header (``""``: none);
    ``now``: the wall clock (the daily match's day); ``hide_daily``: a daily match's history
    waits for its day's end (off only where daily rooms rank nobody: ``--daily-alone off``, the
    fuzzer's server, whose scripted people check each dealt hand against what they saw);
    ``charge``: spends that many more of the asker's read budget (``False``: over it) before a
    game is replayed, by the replay's length: a request's cost is its CPU, not one;
    ``public``: whether an open room's history is everyone's already (an event's table whose
    round is over everywhere).
    """
    began = time.monotonic()
    code = unquote(code).upper()
    if not code.isalnum() or len(code) > 16:
        return await _refused(began)
    params = _query(query)
    try:
        stored = await store.load(code)
        shut = stored is not None and not seated(stored.record, token)
        if shut and (public is None or stored is None or not await public(stored.record)):
            return await _refused(began)
        games = await store.history(code)
    except StoreUnavailable:
        return _error(503, "store_unavailable", "history cannot be read now; try again")
    if stored is None and not games:
        return await _refused(began)
    today = datetime.datetime.fromtimestamp(
        time.time() if now is None else now, datetime.UTC
    ).date()
    if hide_daily and daily_hidden(games, today):
        # a closed room's history is public; a daily one's waits for the day's end, even for
        # its own player (who would rehearse the day's hands in a second room)
        return _error(
            403, "daily_not_over", "a daily match's history is served once its day is over"
        )
    games = revealed(games, today)
    wanted = params.get("game", params.get("g"))
    if wanted is not None:  # one game of the room's history
        games = [item for item in games if str(item.get("g")) == wanted]
    head = orjson.dumps({"room": code, "open": stored is not None})[:-1]
    if params.get("steps") != "1":
        return 200, head + b',"games":' + orjson.dumps(games) + b"}"
    if wanted is None:
        return _error(400, "invalid_message", "steps=1 needs game=N: one game's steps a request")
    steps = sum(len(item.get("log", ())) for item in games if not replays.cached(item))
    if charge is not None and steps >= STEPS_A_READ and not await charge(steps // STEPS_A_READ):
        return _error(429, "rate_limited", "replaying this game is over your read budget; wait")
    try:  # replayed once, in slices between the event loop's turns: the cache keeps it
        replayed = [await replays.steps(item) for item in games]
    except (KeyError, ValueError, IllegalAction):  # a stored item that does not replay
        return _error(500, "bad_history", "this room's history does not replay")
    return 200, head + b',"games":[' + b",".join(replayed) + b"]}"


async def _refused(began: float) -> Answer:
    await asyncio.sleep(max(0.0, began + REFUSAL_FLOOR - time.monotonic()))
    return NOT_FOUND


def daily(keys: Keys, query: str, now: float) -> Answer:
    """``/api/daily``: a day's daily-match commitments (published when the day begins), its
    seeds once it is over, and the day before's (docs/protocol.md, "Fair deals")."""
    today = datetime.datetime.fromtimestamp(now, datetime.UTC).date()
    asked = _query(query).get("date")
    try:
        day = today if asked is None else datetime.date.fromisoformat(asked)
    except ValueError:
        return _error(400, "bad_date", "date is YYYY-MM-DD")
    if day > today:
        return _error(400, "bad_date", "a day's commitments are published when it begins")

    def deals(date: datetime.date) -> dict[str, Any]:
        seeds = [keys.daily(date, hand) for hand in range(HANDS)]
        return {
            "date": date.isoformat(),
            "commitments": [commitment(seed, daily_dealer(h)) for h, seed in enumerate(seeds)],
            "seeds": [seed.hex() for seed in seeds] if date < today else None,
        }

    if day <= datetime.date.min:  # no day before it to publish
        return _error(400, "bad_date", "no daily match was played on that day")
    return _json(200, {**deals(day), "previous": deals(day - datetime.timedelta(days=1))})
