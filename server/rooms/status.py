"""A room's status, as every client sees it in ``RoomInfo.status``."""

from __future__ import annotations

from enum import StrEnum


class RoomStatus(StrEnum):
    LOBBY = "lobby"  # no game yet
    PLAYING = "playing"  # a game is on and some human is connected
    PAUSED = "paused"  # a game is on but no human is connected: bots wait
    BETWEEN = "between"  # a game is over; next_game deals the next
    OVER = "over"  # the match is over
    CLOSED = "closed"


#: Statuses in which seats may change hands and bots be added.
BETWEEN_GAMES = frozenset({RoomStatus.LOBBY, RoomStatus.BETWEEN, RoomStatus.OVER})
