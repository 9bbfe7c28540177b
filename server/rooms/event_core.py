"""An event (a night of several tables and rounds) as a sans-I/O state machine, like the room
core: :meth:`EventCore.handle` takes one input (:mod:`server.rooms.event_io`) and returns what
the runtime must do: open a round's tables, seat a stand-in bot, close tables, store the event,
tell its watchers. A refused input changes nothing and comes back as :class:`Refused`.

The life of an event: people ``Join`` while it is in the lobby; the host's ``start`` draws
round 1's seats from the event's seed (bots fill the last table) and asks for the tables; each
table reports every hand it plays (``HandPlayed``); a round is over when every table has played
its hands, and the next is seated (by standings or by rotation, the host's choice) at once,
unless the host paused; after the last round (or the host's ``end``) the event is over and its
seed is revealed.

>>> from server.rooms.event_settings import EventSettings
>>> event = EventCore("K7QP", "n", EventSettings("sheepshead", 5, 2, 1), seed=bytes(32),
...                   host="h")
>>> for who in "habcdef":
...     _ = event.handle(Join(who, who.upper()), now=0.0)
>>> out = event.handle(HostCommand("h", EventOp.START), now=1.0)
>>> [t.seats for t in out[1].tables]
[('h', 'b', 'c', 'a', 'd'), ('f', 'e', None, None, None)]
>>> event.handle(Join("z", "Z"), now=2.0)
[Refused(code=<ErrorCode.EVENT_STARTED: 'event_started'>, message='the event has started')]
"""

from __future__ import annotations

import copy
from typing import Any

from protocol.errors import ErrorCode
from protocol.messages import EventInfo
from server.rooms import event_deals, event_info, event_seating
from server.rooms.event_io import (
    Changed,
    CloseTables,
    EventInput,
    EventOp,
    EventOutput,
    HandPlayed,
    HostCommand,
    Join,
    Leave,
    OpenTables,
    PersistEvent,
    Refused,
    StandIn,
    StartDue,
    TableOpened,
    TableSpec,
)
from server.rooms.event_scoring import HandScore, Standing, standings
from server.rooms.event_seating import Table
from server.rooms.event_settings import EventSettings, Reseat
from server.rooms.event_state import Entrant, EventPhase, EventState
from server.rooms.names import clean_name
from server.rooms.refusal import Refusal
from server.rules.registry import game_spec

#: People an event needs to start.
MIN_PEOPLE = 2


class EventCore:
    """One event: its fixed facts (code, nonce, settings, seed) and its :class:`EventState`."""

    def __init__(
        self, code: str, nonce: str, settings: EventSettings, *, seed: bytes, host: str
    ) -> None:
        self.code = code
        self.nonce = nonce  # the seed is derived from the server's keys and this
        self.settings = settings.checked()
        self.seed = seed
        self.commitment = event_deals.event_commitment(seed)
        self.state = EventState(host)

    # ------------------------------------------------------------------ queries

    @property
    def phase(self) -> EventPhase:
        return self.state.phase

    def people(self) -> list[str]:
        return list(self.state.entrants)

    def standings(self) -> list[Standing]:
        """Everyone, best first (duplicate: the deals every table has played, until the end:
        :func:`server.rooms.event_info.counted`)."""
        hands = event_info.counted(self.settings, self.state)
        return standings(self.people(), hands, self.settings.duplicate)

    def info(self) -> EventInfo:
        """The event's public state (its page)."""
        return event_info.info(self)

    def revealed_seed(self) -> bytes | None:
        """The event's seed once it is over (``None`` before: it would tell the deals)."""
        return self.seed if self.state.phase is EventPhase.OVER else None

    def hands_left(self) -> int:
        """Hands still to play at the slowest table of the round."""
        state = self.state
        if state.phase is not EventPhase.PLAYING:
            return 0
        return self.settings.hands - min(state.played.values(), default=0)

    def seat_of(self, player: str) -> tuple[int, int] | None:
        """``(table, seat)`` of ``player`` in the current round."""
        if not self.state.seatings:
            return None
        for t, table in enumerate(self.state.seatings[-1]):
            if player in table:
                return t, table.index(player)
        return None

    # ------------------------------------------------------------------ inputs

    def handle(self, item: EventInput, now: float) -> list[EventOutput]:
        """Apply one input; a refusal changes nothing."""
        saved = copy.deepcopy(self.state)
        try:
            out = self._dispatch(item, now)
        except Refusal as refusal:
            self.state = saved
            return [Refused(refusal.code, refusal.message)]
        if PersistEvent() in out:
            self.state.version += 1
        return out

    def _dispatch(self, item: EventInput, now: float) -> list[EventOutput]:
        match item:
            case Join():
                return self._join(item)
            case Leave(player=player):
                return self._leave(player)
            case HostCommand(player=player, op=op, target=target):
                return self._host(player, op, target)
            case StartDue():
                return self._start_due(now)
            case TableOpened(round=round_, table=table, room=room):
                return self._opened(round_, table, room)
            case HandPlayed():
                return self._hand(item)

    def _join(self, item: Join) -> list[EventOutput]:
        state = self.state
        if state.phase is not EventPhase.LOBBY:
            raise Refusal(ErrorCode.EVENT_STARTED, "the event has started")
        if item.player in state.entrants:
            return [Changed()]  # joined again (another tab): nothing new
        if len(state.entrants) >= self.settings.capacity:
            raise Refusal(ErrorCode.EVENT_FULL, "the event has as many people as its tables")
        if self.settings.rated and (
            item.origin is None or any(e.origin == item.origin for e in state.entrants.values())
        ):  # one identity an address, as at a rated room (its tables change every round)
            why = "someone from your address is in this rated event already"
            raise Refusal(ErrorCode.SAME_ADDRESS, why)
        taken = [e.name for e in state.entrants.values()]
        name = clean_name(item.name, taken)
        state.entrants[item.player] = Entrant(name, origin=item.origin)
        return [PersistEvent(), Changed()]

    def _leave(self, player: str) -> list[EventOutput]:
        state = self.state
        entrant = state.entrants.get(player)
        if entrant is None:
            raise Refusal(ErrorCode.NOT_IN_EVENT, "you are not in this event")
        if state.phase is EventPhase.LOBBY:
            del state.entrants[player]
            if player == state.host and state.entrants:
                state.host = next(iter(state.entrants))
        else:
            entrant.left = True
        return [PersistEvent(), Changed()]

    def _host(self, player: str, op: EventOp, target: str | None) -> list[EventOutput]:
        state = self.state
        if player != state.host:
            raise Refusal(ErrorCode.NOT_HOST, "only the event's host can do that")
        if state.phase is EventPhase.OVER:
            raise Refusal(ErrorCode.EVENT_OVER, "the event is over")
        match op:
            case EventOp.START:
                if state.phase is not EventPhase.LOBBY:
                    raise Refusal(ErrorCode.EVENT_STARTED, "the event has started")
                if len(state.entrants) < MIN_PEOPLE:
                    why = f"an event needs {MIN_PEOPLE} people to start"
                    raise Refusal(ErrorCode.EVENT_NOT_STARTED, why)
                return self._start()
            case EventOp.PAUSE:
                state.paused = True
                return [PersistEvent(), Changed()]
            case EventOp.RESUME:
                state.paused = False
                if state.phase is EventPhase.BETWEEN:
                    return self._next_round()
                return [PersistEvent(), Changed()]
            case EventOp.REPLACE:
                return self._replace(target)
            case EventOp.END:
                if state.phase is EventPhase.LOBBY:
                    raise Refusal(ErrorCode.EVENT_NOT_STARTED, "the event has not started")
                playing = state.phase is EventPhase.PLAYING
                rooms = tuple(r for r in state.rooms[-1] if r) if playing else ()
                state.phase = EventPhase.OVER
                return [PersistEvent(), CloseTables(rooms), Changed()]

    def _start(self) -> list[EventOutput]:
        order = event_deals.draw(self.seed, self.people())
        return self._seat(event_seating.seat_in_order(order, self.settings.table_size))

    def _start_due(self, now: float) -> list[EventOutput]:
        """The start time has come: the event starts, if it is still in its lobby with
        people enough (else it waits for its host's ``start``)."""
        at = self.settings.start_at
        state = self.state
        if state.phase is not EventPhase.LOBBY or at is None or now < at:
            return []
        if len(state.entrants) < MIN_PEOPLE:
            return []
        return self._start()

    def _replace(self, target: str | None) -> list[EventOutput]:
        state = self.state
        entrant = state.entrants.get(target or "")
        if target is None or entrant is None:
            raise Refusal(ErrorCode.NOT_IN_EVENT, "no such player in the event")
        if state.phase is EventPhase.LOBBY:
            raise Refusal(ErrorCode.EVENT_NOT_STARTED, "the event has not started")
        entrant.stand_in = True
        out: list[EventOutput] = [PersistEvent()]
        where = self.seat_of(target)
        if where is not None and state.phase is EventPhase.PLAYING:
            table, seat = where
            out.append(StandIn(state.round, table, state.rooms[-1][table], seat))
        return [*out, Changed()]

    def _seat(self, tables: list[Table]) -> list[EventOutput]:
        state = self.state
        state.seatings.append(tables)
        state.phase = EventPhase.PLAYING
        state.rooms.append([None] * len(tables))
        state.played = dict.fromkeys(range(len(tables)), 0)
        specs = tuple(
            TableSpec(
                t,
                table,
                frozenset(
                    s for s, p in enumerate(table) if p is not None and state.entrants[p].stand_in
                ),
                self.settings.hands,
            )
            for t, table in enumerate(tables)
        )
        return [PersistEvent(), OpenTables(state.round, specs), Changed()]

    def _next_round(self) -> list[EventOutput]:
        state = self.state
        size = self.settings.table_size
        if self.settings.reseat is Reseat.ROTATION:
            met = event_seating.meetings(state.seatings)
            tables = event_seating.seat_by_rotation(self.people(), size, met)
        else:
            tables = event_seating.seat_in_order([s.player for s in self.standings()], size)
        return self._seat(tables)

    def _opened(self, round_: int, table: int, room: str) -> list[EventOutput]:
        state = self.state
        if state.phase is not EventPhase.PLAYING or round_ != state.round:
            return []  # a late answer of a round gone by
        if table not in state.played:
            raise Refusal(ErrorCode.BAD_EVENT, f"round {round_} has no table {table}")
        if state.rooms[-1][table] is not None:
            return []  # opened twice (two processes raced): the first room stays the table's
        state.rooms[-1][table] = room
        return [PersistEvent(), Changed()]

    def _hand(self, item: HandPlayed) -> list[EventOutput]:
        state = self.state
        if state.phase is not EventPhase.PLAYING or item.round != state.round:
            return []  # a table of an event ended early, or a round gone by, plays on alone
        played = state.played.get(item.table)
        if played is not None and item.room is not None:
            kept = state.rooms[-1][item.table]
            if kept is not None and kept != item.room:
                return []  # the room of a second opening of the table (two processes raced)
        if played is None or item.hand != played or played >= self.settings.hands:
            raise Refusal(ErrorCode.BAD_EVENT, f"table {item.table} did not play hand {item.hand}")
        seats = state.seatings[-1][item.table]
        if len(item.scores) != len(seats):
            raise Refusal(ErrorCode.BAD_EVENT, "one score a seat")
        state.scores.append(
            HandScore(item.round, item.hand, item.table, seats, tuple(item.scores), item.result)
        )
        state.played[item.table] = played + 1
        if min(state.played.values()) < self.settings.hands:
            return [PersistEvent(), Changed()]
        if state.round + 1 >= self.settings.rounds:
            state.phase = EventPhase.OVER
            return [PersistEvent(), Changed()]
        if state.paused:
            state.phase = EventPhase.BETWEEN
            return [PersistEvent(), Changed()]
        return self._next_round()

    # ------------------------------------------------------------------ persistence

    def record(self) -> dict[str, Any]:
        """The event as plain data (its seed is not in it: it is derived from the server's
        keys and the nonce)."""
        s = self.settings
        state = self.state
        return {
            "code": self.code,
            "nonce": self.nonce,
            "settings": {
                "game": s.game,
                "table_size": s.table_size,
                "rounds": s.rounds,
                "hands": s.hands,
                "duplicate": s.duplicate,
                "reseat": s.reseat.value,
                "options": s.rules.model_dump() if s.rules is not None else None,
                "max_tables": s.max_tables,
                "rated": s.rated,
                "start_at": s.start_at,
            },
            "host": state.host,
            "phase": state.phase.value,
            "entrants": [
                {
                    "player": p,
                    "name": e.name,
                    "left": e.left,
                    "stand_in": e.stand_in,
                    "origin": e.origin,
                }
                for p, e in state.entrants.items()
            ],
            "seatings": [[list(t) for t in tables] for tables in state.seatings],
            "rooms": [list(r) for r in state.rooms],
            "played": {str(t): n for t, n in state.played.items()},
            "scores": [h.to_json() for h in state.scores],
            "paused": state.paused,
            "version": state.version,
        }

    @classmethod
    def from_record(cls, record: dict[str, Any], seed: bytes) -> EventCore:
        """Rebuild an event from :meth:`record` and its seed (``Keys.event(code, nonce)``)."""
        s = record["settings"]
        spec = game_spec(s["game"])
        settings = EventSettings(
            s["game"],
            s["table_size"],
            s["rounds"],
            s["hands"],
            duplicate=s["duplicate"],
            reseat=Reseat(s["reseat"]),
            options=spec.options.model_validate(s["options"] or {}),
            max_tables=s["max_tables"],
            rated=s.get("rated", False),
            start_at=s.get("start_at"),
        )
        event = cls(record["code"], record["nonce"], settings, seed=seed, host=record["host"])
        state = event.state
        state.phase = EventPhase(record["phase"])
        state.entrants = {
            e["player"]: Entrant(e["name"], e["left"], e["stand_in"], e.get("origin"))
            for e in record["entrants"]
        }
        state.seatings = [[tuple(t) for t in tables] for tables in record["seatings"]]
        state.rooms = [list(r) for r in record["rooms"]]
        state.played = {int(t): n for t, n in record["played"].items()}
        state.scores = [HandScore.from_json(h) for h in record["scores"]]
        state.paused = record["paused"]
        state.version = record["version"]
        return event
