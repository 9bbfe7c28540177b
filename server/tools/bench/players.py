"""What one load-test connection does with each frame it receives, without any I/O.

A :class:`Player` is a scripted human seat: it acts the moment its state says it may (seat in
``to_act``, a legal action, nothing of its own in flight), counts an action as accepted only
when the server's ``ack`` answers that very request, and times act → own view from sending the
request to receiving the ``state`` whose version the ack named. An :class:`EchoMember` does the
same for the echo ceiling, where a request is answered by one frame to each member of its group.
The asyncio side (:mod:`server.tools.bench.drive`) only moves frames.

>>> from server.tools.bench.tally import Tally
>>> t = Tally(); t.start()
>>> p = Player(t)
>>> p.receive({"type": "joined", "ref": "s1", "room": "ABCDE", "seat": 0}, 0.0)
[]
>>> view = {"phase": "play", "to_act": [0], "legal": [{"kind": "play", "cards": ["7D"]}]}
>>> _ = p.receive({"type": "state", "room": "ABCDE", "version": 3, "view": view}, 1.0)
>>> p.due
True
>>> frame = p.act(1.0)
>>> _ = p.receive({"type": "ack", "ref": "a1", "version": 4}, 1.002)
>>> _ = p.receive({"type": "state", "room": "ABCDE", "version": 4, "view": view}, 1.005)
>>> t.accepted, [round(x, 3) for x in t.latencies]
(1, [0.005])
"""

from __future__ import annotations

import itertools
from typing import Any

import orjson

from protocol.views import ActionWire, View
from server.tools.bench.tally import Tally

#: Play order of Shithead ranks for the lowest-first policy (ordinary ranks, then 2, then 10).
_SHITHEAD_ORDER = "3456789JQKA2T"


def choose(view: View) -> ActionWire:
    """A quick human policy from the view alone (read with ``get``: the bench tests feed it
    cut-down views): ready at once in the swap, else the lowest play
    (Shithead; it keeps games short) or the first play, else the first legal action."""
    legal = view["legal"]
    if view.get("phase") == "swap":
        return {"kind": "ready"}
    plays = [a for a in legal if a["kind"] == "play"]
    if plays and view.get("game") == "shithead":
        return min(plays, key=lambda a: (_SHITHEAD_ORDER.index(a["cards"][0][0]), -len(a["cards"])))
    return plays[0] if plays else legal[0]


class Player:
    """One scripted human seat (and, for the room's host, the host's between-games duties)."""

    def __init__(self, tally: Tally, *, host: bool = False) -> None:
        self.tally = tally
        self.host = host
        self.room: str | None = None
        self.seat: int | None = None
        self.version = -1
        self.view: View | None = None  # from the frame as parsed, unchecked (the server's own)
        self.status: str | None = None  # the room's status, from its ``room`` frames
        self.match_over = False  # a finished match: the room must be opened anew
        self.bots: frozenset[int] = frozenset()  # bot seats whose moves this player counts
        self.paused = False  # acts no more (the run is ending)
        self._inflight: tuple[str, float, bool] | None = None  # our act: id, time sent, counted
        self._awaiting: tuple[int, float] | None = None  # version it was acked at, time sent
        self._bot_due: tuple[int, float] | None = None  # bot seat to act, since when
        self._next_game_for = -1  # version at which the host last asked for the next game
        self._ids = itertools.count(1)

    @property
    def due(self) -> bool:
        """Whether this seat should act now: its turn, a legal action, nothing in flight."""
        view = self.view
        return (
            not self.paused
            and self._inflight is None
            and self._awaiting is None
            and view is not None
            and self.seat in view["to_act"]
            and bool(view["legal"])
            and view.get("phase") != "over"
        )

    @property
    def settled(self) -> bool:
        """Whether no act request of this player awaits its answer."""
        return self._inflight is None

    def act(self, now: float, action: ActionWire | None = None) -> str:
        """The ``act`` frame for the current state (call only when :attr:`settled`, and without
        ``action`` only when :attr:`due`)."""
        assert self.view is not None
        ident = f"a{next(self._ids)}"
        counted = self.tally.measuring  # its answer is counted only if the request was
        self._inflight = (ident, now, counted)
        if counted:
            self.tally.sent += 1
        frame = {
            "type": "act",
            "id": ident,
            "room": self.room,
            "version": self.version,
            "action": choose(self.view) if action is None else action,
        }
        return orjson.dumps(frame).decode()

    def receive(self, msg: dict[str, Any], now: float, raw: bytes = b"") -> list[str]:
        """Take one parsed frame; return the host's frames to send at once (``next_game``)."""
        tally = self.tally
        if tally.measuring:
            tally.frames += 1
        kind = msg.get("type")
        if kind == "state":
            if tally.measuring and raw:
                tally.sample(raw)
            self._state(msg, now)
        elif kind == "ack":
            if self._inflight is not None and msg.get("ref") == self._inflight[0]:
                _, sent, counted = self._inflight
                self._inflight = None
                self._awaiting = (msg["version"], sent)
                if counted:
                    tally.accepted += 1
        elif kind == "error":
            if self._inflight is not None and msg.get("ref") == self._inflight[0]:
                counted = self._inflight[2]
                self._inflight = None  # a stale_version error is followed by a fresh state
                if counted:
                    tally.refused[msg["code"]] += 1
        elif kind == "room":
            self.status = msg["room"]["status"]
            return self._host_duties()
        elif kind == "joined":
            self._enter(msg["room"], msg["seat"])
        return []

    def _enter(self, room: str, seat: int | None) -> None:
        self.room, self.seat = room, seat
        self.version, self.view, self.status = -1, None, None
        self._inflight = self._awaiting = self._bot_due = None
        self.match_over = False

    def _state(self, msg: dict[str, Any], now: float) -> None:
        if msg["room"] != self.room or msg["version"] < self.version:
            return
        self.version = msg["version"]
        self.view = msg["view"]
        if self._awaiting is not None and self.version >= self._awaiting[0]:
            if self.tally.measuring:
                self.tally.latencies.append(now - self._awaiting[1])
            self._awaiting = None
        if self.bots:
            self._watch_bots(msg, now)

    def _watch_bots(self, msg: dict[str, Any], now: float) -> None:
        """Count bot moves from the events of the state each produced (the first event names
        the seat that moved), and time each from the state that named the bot to act."""
        tally = self.tally
        events = msg.get("events") or ()
        mover = events[0].get("seat") if events else None
        if mover in self.bots and tally.measuring:
            tally.bot_moves += 1
            if self._bot_due is not None and self._bot_due[0] == mover:
                tally.bot_times.append(now - self._bot_due[1])
        view = msg["view"]
        due = [s for s in view["to_act"] if s in self.bots]
        self._bot_due = (due[0], now) if due and view.get("phase") != "over" else None

    def _host_duties(self) -> list[str]:
        if not self.host:
            return []
        if self.status == "over":
            self.match_over = True
        elif self.status == "between" and self._next_game_for != self.version:
            self._next_game_for = self.version
            frame = {"type": "host", "id": f"n{self.version}", "room": self.room, "op": "next_game"}
            return [orjson.dumps(frame).decode()]
        return []


class EchoMember:
    """One client of the echo ceiling: members of a group of ``size`` take turns sending a
    request; the server answers each with one frame to every member, the sender included.

    >>> from server.tools.bench.tally import Tally
    >>> t = Tally(); t.start()
    >>> a, b = EchoMember(t, 0, 2), EchoMember(t, 1, 2)
    >>> a.receive(b"go", 0.0), b.receive(b"go", 0.0)
    (True, False)
    >>> _ = a.request(0.0)
    >>> a.receive(b"frame", 0.001), b.receive(b"frame", 0.001)
    (False, True)
    >>> t.accepted, t.frames
    (1, 2)
    """

    REQUEST = orjson.dumps(
        {"type": "act", "id": "a1", "room": "ECHO0", "version": 1, "action": {"kind": "play"}}
    ).decode()

    def __init__(self, tally: Tally, index: int, size: int) -> None:
        self.tally = tally
        self.index = index
        self.size = size
        self.count = 0  # answers received in this group since "go"
        self._sent: float | None = None

    def receive(self, data: bytes, now: float) -> bool:
        """Take one frame; return whether this member sends the group's next request."""
        if data == b"go":
            self.count = 0
            return self.index == 0
        tally = self.tally
        if tally.measuring:
            tally.frames += 1
        self.count += 1
        if self._sent is not None:
            if tally.measuring:
                tally.accepted += 1
                tally.latencies.append(now - self._sent)
            self._sent = None
        return self.count % self.size == self.index

    def request(self, now: float) -> str:
        self._sent = now
        if self.tally.measuring:
            self.tally.sent += 1
        return self.REQUEST
