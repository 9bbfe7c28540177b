"""Putting a room back as it was before an input: the input failed half-way, or its outputs
could not be stored (the store is away), so nothing of it may stand or be sent.

A snapshot is the room's :class:`~server.rooms.state.RoomState` as a tuple of its fields (every
field, by construction; each non-empty container copied, :func:`~server.rooms.state.snapshot`)
and how far the match's append-only logs reached; the match is rebuilt from that log prefix,
since a failure inside the rules may have left it half changed.
"""

from __future__ import annotations

from typing import NamedTuple

from protocol.records import MatchRecord
from server.rooms.matches import Match
from server.rooms.state import RoomState, Snapshot, from_snapshot, snapshot


class Saved(NamedTuple):
    """A room's state before an input (a copy: nothing in it is changed afterwards; a named
    tuple, as one is made per input)."""

    state: Snapshot
    log_at: tuple[int, int]  # games begun, moves in the last of them


def save(state: RoomState) -> Saved:
    match = state.match
    log_at = (match.game_index + 1, len(match.current.log)) if match else (0, 0)
    return Saved(snapshot(state), log_at)


def restore(saved: Saved) -> RoomState:
    """The state ``saved`` holds (a fresh copy, so a snapshot can be restored twice), with its
    match rebuilt from the log prefix."""
    state = from_snapshot(saved.state)
    match = state.match
    if match is not None:
        games, moves = saved.log_at
        logs = [list(g) for g in match.logs[:games]]
        logs[-1] = logs[-1][:moves]
        record: MatchRecord = {
            **match.meta(),
            "games": games,
            "logs": [[[seat, a.to_str()] for seat, a in g] for g in logs],
        }
        state.match = Match.from_record(record, match.source)
    return state
