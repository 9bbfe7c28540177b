"""The read-only JSON API beside the WebSocket: leaderboards and hand history.

- ``GET /api/leaderboard?board=daily`` (or ``daily:YYYY-MM-DD``, ``sheepshead``, ``shithead``;
  ``&limit=N`` up to 100; ``&player=ID`` adds that player's own entry and rank as ``you``).
- ``GET /api/daily``: the daily match's commitments, and its seeds once its day is over.
- ``GET /api/rooms/CODE/history``: the room's finished games (deal, actions, result, names).
  While the room is open, only its players see it (``?token=`` their seat token); once it has
  closed, anyone with the code does, until it expires. ``&g=N``: game ``N`` only.
  ``&steps=1`` adds each game's
  ``steps``: the whole table after the deal and after each action, replayed by its rules core
  (:func:`~server.store.history.replay_steps`), so a client shows it without knowing a rule.

Each handler answers ``(status, JSON body)``; the server turns that into an HTTP response.
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime
from typing import Any
from urllib.parse import parse_qs, unquote

import orjson

from server.rooms.seats import stored_digest, token_matches
from server.rooms.seeds import Keys
from server.rules.base import IllegalAction
from server.rules.deal import commitment
from server.rules.sheepshead_match import HANDS
from server.store.base import RoomStore, StoreUnavailable
from server.store.history import daily_hidden, replay_steps, revealed
from server.store.leaderboard import BadBoard, Board, Leaderboards

MAX_LIMIT = 100
Answer = tuple[int, bytes]


def _json(status: int, data: Any) -> Answer:
    return status, orjson.dumps(data)


def _error(status: int, code: str, message: str) -> Answer:
    return _json(status, {"error": code, "message": message})


def _with_steps(games: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**item, "steps": replay_steps(item)} for item in games]


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
    except StoreUnavailable:
        return _error(503, "store_unavailable", "leaderboards cannot be read now; try again")
    return _json(
        200,
        {
            "board": board.key,
            "entries": [dataclasses.asdict(e) for e in entries],
            "you": dataclasses.asdict(you) if you else None,
        },
    )


async def history(store: RoomStore, code: str, query: str) -> Answer:
    """``/api/rooms/CODE/history``: a room's finished games, for its players or after it."""
    code = unquote(code).upper()
    if not code.isalnum() or len(code) > 16:
        return _error(404, "room_not_found", "not a room code")
    params = _query(query)
    token = params.get("token", "")
    try:
        stored = await store.load(code)
        games = await store.history(code)
    except StoreUnavailable:
        return _error(503, "store_unavailable", "history cannot be read now; try again")
    if stored is not None:
        digests = [stored_digest(s) for s in stored.record.get("seats", ())]
        if not token or not any(token_matches(token, d) for d in digests):
            return _error(
                403, "not_at_table", "while the room is open only its players see its history"
            )
    elif not games:
        return _error(404, "room_not_found", f"no room {code} has a history")
    today = datetime.datetime.now(datetime.UTC).date()
    if daily_hidden(games, today, player=stored is not None):
        return _error(
            403, "daily_not_over", "a daily match's history is served once its day is over"
        )
    games = revealed(games, today)
    if "g" in params:  # one game of the room's history
        games = [item for item in games if str(item.get("g")) == params["g"]]
    if params.get("steps") == "1":
        try:  # a long game takes a while to replay: off the event loop
            games = await asyncio.to_thread(_with_steps, games)
        except (KeyError, ValueError, IllegalAction):  # a stored item that does not replay
            return _error(500, "bad_history", "this room's history does not replay")
    return _json(200, {"room": code, "open": stored is not None, "games": games})


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
            "commitments": [commitment(seed) for seed in seeds],
            "seeds": [seed.hex() for seed in seeds] if date < today else None,
        }

    return _json(200, {**deals(day), "previous": deals(day - datetime.timedelta(days=1))})
