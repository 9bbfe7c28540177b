"""A history of what every client asked, was told and was shown, and a checker that holds it
against what the store finally keeps: the fault runs' verdict (:mod:`server.tools.bench.faults`).

The checker is written here in Python, not with a linearizability checker such as porcupine
(Go) or Knossos (Clojure): what Cardroom promises of a room is narrower and cheaper to check
than linearizability of a general register. A room is one log of versioned actions with one
writer at a time, so the checks are direct, each linear in the history:

- **lost**: an acknowledged action (the server's ``ack`` of an ``act``, naming a version) is
  not in the room's stored log at that version, with the acting seat and the action sent; or
  the room was later shown going back below that version (it was lost, even if the same
  action was played again at the same version since, as a replayed deal and policy may);
- **gaps**: the stored log repeats a version or goes back (versions a record's save made,
  between games, are not in it: only an order is required);
- **backwards**: a connection was shown a room's version lower than one it had seen before;
- **conflicts**: one seat was shown two different views of one version of a room;
- **unheld**: a connection was shown a version the store never held (above the stored
  room's), or
  a state whose mover (its first event's seat) is not the seat the log has for that version:
  a state a fenced owner made up, or one a lost write left behind.

Two writers of one room (an owner fenced out that still wrote, or showed what it could not
write) would show as two views of one version, or as states the store does not hold: each
counted, and kept in :attr:`Verdict.bad_states` with the address of the process that showed it.

A request refused with ``store_unavailable``, timed out, or cut off by a lost connection has an
unknown outcome (Jepsen's *info*): it may or may not be in the log, and neither is an error.

>>> h = History()
>>> c = h.client("ann", "ws://a")
>>> c.sent("a1", "ABCDE", 3, {"kind": "ready"}, seat=0)
>>> c.acked("a1", 4)
>>> c.seen("ABCDE", 0, 4, {"phase": "play"}, mover=0)
>>> log = [{"v": v, "g": 0, "s": 0, "a": "ready"} for v in range(1, 5)]
>>> check(h, {"ABCDE": Stored(4, log)}).ok
True
>>> check(h, {"ABCDE": Stored(3, log[:3])}).summary()  # doctest: +NORMALIZE_WHITESPACE
'acknowledged 1, unknown outcome 0, states shown 1: lost 1, log gaps 0, went backwards 0,
 two views of one version 0, states the store does not hold 1'
"""

from __future__ import annotations

import hashlib
import itertools
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from protocol.cards import parse_card
from protocol.records import ActionEntry
from protocol.views import ActionWire
from server.rules.base import Action

#: Refusals whose action may or may not have been stored (the outcome is unknown).
UNKNOWN = frozenset({"store_unavailable", "timeout", "lost"})


@dataclass(frozen=True, slots=True)
class Request:
    """An ``act`` sent: its id, room, the version it acted at, the action, the actor's seat."""

    ref: str
    room: str
    version: int
    action: ActionWire
    seat: int
    at: float


@dataclass(frozen=True, slots=True)
class Seen:
    """A ``state`` shown: room, seat, version, the view's digest and its mover (first event's
    seat, ``None`` if it has no event), on the connection to ``origin``."""

    room: str
    seat: int | None
    version: int
    digest: str
    mover: int | None
    at: float
    origin: str


def digest(view: Mapping[str, Any]) -> str:
    """A short fingerprint of a view (key order does not matter)."""
    text = orjson.dumps(view, option=orjson.OPT_SORT_KEYS)
    return hashlib.blake2b(text, digest_size=8).hexdigest()


@dataclass
class ClientHistory:
    """One connection's requests, their answers, and the states it was shown, in order."""

    name: str
    origin: str  # the server URL it is connected to
    clock: Any = None  # a function returning seconds (None: always 0.0; tests)
    requests: dict[str, Request] = field(default_factory=dict)
    acks: dict[str, int] = field(default_factory=dict)  # ref -> version acknowledged
    ack_times: dict[str, float] = field(default_factory=dict)
    refusals: dict[str, str] = field(default_factory=dict)  # ref -> code
    states: list[Seen] = field(default_factory=list)

    def _now(self) -> float:
        return float(self.clock()) if self.clock is not None else 0.0

    def sent(self, ref: str, room: str, version: int, action: ActionWire, *, seat: int) -> None:
        self.requests[ref] = Request(ref, room, version, action, seat, self._now())

    def acked(self, ref: str, version: int) -> None:
        self.acks[ref] = version
        self.ack_times[ref] = self._now()

    def refused(self, ref: str, code: str) -> None:
        self.refusals[ref] = code

    def seen(
        self,
        room: str,
        seat: int | None,
        version: int,
        view: Mapping[str, Any],
        *,
        mover: int | None = None,
    ) -> None:
        self.states.append(Seen(room, seat, version, digest(view), mover, self._now(), self.origin))


class History:
    """Every connection's :class:`ClientHistory` of one run."""

    def __init__(self, clock: Any = None) -> None:
        self.clock = clock
        self.clients: list[ClientHistory] = []
        self._ids = itertools.count(1)

    def client(self, name: str, origin: str) -> ClientHistory:
        one = ClientHistory(f"{name}#{next(self._ids)}", origin, self.clock)
        self.clients.append(one)
        return one

    @property
    def acknowledged(self) -> int:
        return sum(len(c.acks) for c in self.clients)

    @property
    def unknown(self) -> int:
        return sum(1 for c in self.clients for code in c.refusals.values() if code in UNKNOWN)

    def rooms(self) -> set[str]:
        return {r.room for c in self.clients for r in c.requests.values()} | {
            s.room for c in self.clients for s in c.states
        }


@dataclass
class Verdict:
    """What :func:`check` found: counts, and the first few findings of each kind in words."""

    acknowledged: int = 0
    unknown: int = 0
    states: int = 0
    lost: int = 0
    gaps: int = 0
    backwards: int = 0
    conflicts: int = 0
    unheld: int = 0
    findings: list[str] = field(default_factory=list)
    #: the states counted as ``unheld`` or ``conflicts``, for a caller that asks who sent them
    bad_states: list[Seen] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not (self.lost or self.gaps or self.backwards or self.conflicts or self.unheld)

    def note(self, text: str) -> None:
        if len(self.findings) < 20:
            self.findings.append(text)

    def summary(self) -> str:
        return (
            f"acknowledged {self.acknowledged}, unknown outcome {self.unknown}, states shown "
            f"{self.states}: lost {self.lost}, log gaps {self.gaps}, went backwards "
            f"{self.backwards}, two views of one version {self.conflicts}, states the store "
            f"does not hold {self.unheld}"
        )


def same_action(entry: ActionEntry, seat: int, sent: ActionWire) -> bool:
    """Whether a stored entry is ``seat``'s action ``sent`` (cards in any order)."""
    stored = Action.from_str(entry["a"])
    cards = sorted(parse_card(c) for c in sent.get("cards", []))
    return entry["s"] == seat and stored.kind == sent["kind"] and sorted(stored.cards) == cards


@dataclass(frozen=True, slots=True)
class Stored:
    """What the store holds of a room at the end: its record's version and its log."""

    version: int
    log: Sequence[ActionEntry]


def check(history: History, rooms: Mapping[str, Stored]) -> Verdict:
    """Hold ``history`` against what the store holds of each room (a room missing: nothing)."""
    verdict = Verdict(history.acknowledged, history.unknown)
    by_version: dict[str, dict[int, ActionEntry]] = {}
    last: dict[str, int] = {}
    rollbacks: dict[str, list[tuple[float, int]]] = defaultdict(list)  # room: (when, to)
    for room, stored in rooms.items():
        versions = [e["v"] for e in stored.log]
        if any(b <= a for a, b in itertools.pairwise(versions)):
            verdict.gaps += 1
            verdict.note(f"room {room}: the log's versions repeat or go back")
        by_version[room] = {e["v"]: e for e in stored.log}
        last[room] = max([stored.version, *versions])
    views: dict[tuple[str, int | None, int], str] = {}
    for client in history.clients:
        highest: dict[str, int] = defaultdict(lambda: -1)
        for seen in client.states:
            verdict.states += 1
            if seen.version < highest[seen.room]:
                verdict.backwards += 1
                rollbacks[seen.room].append((seen.at, seen.version))
                verdict.note(
                    f"{client.name}: {seen.room} v{seen.version} after v{highest[seen.room]}"
                )
            highest[seen.room] = max(highest[seen.room], seen.version)
            key = (seen.room, seen.seat, seen.version)
            first = views.setdefault(key, seen.digest)
            if first != seen.digest:
                verdict.conflicts += 1
                verdict.bad_states.append(seen)
                verdict.note(f"{client.name}: two views of {seen.room} v{seen.version}")
            entry = by_version.get(seen.room, {}).get(seen.version)
            made_up = seen.version > last.get(seen.room, 0)
            wrong_mover = (
                entry is not None and seen.mover is not None and (seen.mover != entry["s"])
            )
            if made_up or wrong_mover:
                verdict.unheld += 1
                verdict.bad_states.append(seen)
                verdict.note(
                    f"{client.name}: {seen.room} v{seen.version} from {seen.origin}, "
                    f"the store holds {entry}"
                )
    for client in history.clients:
        for ref, version in client.acks.items():
            request = client.requests[ref]
            entry = by_version.get(request.room, {}).get(version)
            acked_at = client.ack_times.get(ref, 0.0)
            undone = any(
                at > acked_at and to < version for at, to in rollbacks.get(request.room, ())
            )
            if entry is None or undone or not same_action(entry, request.seat, request.action):
                verdict.lost += 1
                verdict.note(
                    f"{client.name}: {request.action} acknowledged at {request.room} v{version}, "
                    f"stored {entry}{', the room went back below it since' if undone else ''}"
                )
    return verdict
