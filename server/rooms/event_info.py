"""An event's public state (:class:`protocol.messages.EventInfo`), built from its core: what its
page shows and ``cardroom verify --event`` checks.

Nothing hidden leaks: people are shown by name (never by their identity); the seed only once the
event is over; and with duplicate on, a deal counts in the standings only once every table of its
round has played it (until then one table's result would tell another what the cards hold), and
the deals' comparisons are shown once the event is over.
"""

from __future__ import annotations

from collections import Counter
from typing import Protocol

from protocol.messages import (
    EventDeal,
    EventDealSeat,
    EventDealTable,
    EventInfo,
    EventPerson,
    EventRoundInfo,
    EventStanding,
    EventTableInfo,
)
from server.rooms.event_scoring import HandScore, Standing, compare
from server.rooms.event_settings import EventSettings
from server.rooms.event_state import EventPhase, EventState


class EventFacts(Protocol):
    """What the public state reads of an event (:class:`~server.rooms.event_core.EventCore`
    is one)."""

    @property
    def code(self) -> str: ...
    @property
    def settings(self) -> EventSettings: ...
    @property
    def state(self) -> EventState: ...
    @property
    def commitment(self) -> str: ...
    def revealed_seed(self) -> bytes | None: ...
    def hands_left(self) -> int: ...
    def standings(self) -> list[Standing]: ...


def counted(settings: EventSettings, state: EventState) -> list[HandScore]:
    """The hands the standings count now (duplicate, before the end: whole deals only)."""
    if not settings.duplicate or state.phase is EventPhase.OVER:
        return list(state.scores)
    tables = [len(seating) for seating in state.seatings]
    done = Counter(h.deal for h in state.scores)
    return [h for h in state.scores if done[h.deal] == tables[h.round]]


def info(event: EventFacts) -> EventInfo:
    state = event.state
    s = event.settings
    names = {p: e.name for p, e in state.entrants.items()}

    def name(player: str | None) -> str | None:
        return None if player is None else names.get(player, "?")

    seed = event.revealed_seed()
    played = Counter((h.round, h.table) for h in state.scores)
    seatings = [
        EventRoundInfo(
            tables=[
                EventTableInfo(
                    table=t,
                    room=state.rooms[r][t],
                    seats=[name(p) for p in table],
                    played=played[r, t],
                )
                for t, table in enumerate(tables)
            ]
        )
        for r, tables in enumerate(state.seatings)
    ]
    return EventInfo(
        code=event.code,
        game=s.game,
        table_size=s.table_size,
        rounds=s.rounds,
        hands=s.hands,
        duplicate=s.duplicate,
        reseat=s.reseat.value,
        options=s.rules.model_dump() if s.rules is not None else {},
        phase=state.phase.value,
        host=names.get(state.host),
        paused=state.paused,
        round=state.round,
        hands_left=event.hands_left(),
        commitment=event.commitment,
        rated=s.rated,
        start_at=s.start_at,
        seed=seed.hex() if seed is not None else None,
        people=[
            EventPerson(name=e.name, left=e.left, stand_in=e.stand_in)
            for e in state.entrants.values()
        ],
        seatings=seatings,
        standings=[
            EventStanding(
                name=names[x.player],
                rank=x.rank,
                units=x.units,
                against=float(x.against),
                matchpoints=float(x.matchpoints),
                hands=x.hands,
            )
            for x in event.standings()
        ],
        deals=_deals(state) if s.duplicate and state.phase is EventPhase.OVER else [],
    )


def _deals(state: EventState) -> list[EventDeal]:
    by_deal: dict[tuple[int, int], list[HandScore]] = {}
    for h in state.scores:
        by_deal.setdefault(h.deal, []).append(h)
    out: list[EventDeal] = []
    for (round_, hand), hands in sorted(by_deal.items()):
        rows = compare(hands)
        tables = []
        for h in sorted(hands, key=lambda h: h.table):
            seats = [
                EventDealSeat(
                    name=state.entrants[c.player].name if c.player in state.entrants else None,
                    units=c.units,
                    against=float(c.against),
                    matchpoints=float(c.matchpoints),
                )
                for c in rows
                if c.table == h.table
            ]
            tables.append(
                EventDealTable(
                    table=h.table,
                    room=state.rooms[round_][h.table],
                    game=hand,
                    result=dict(h.result) if h.result is not None else None,
                    seats=seats,
                )
            )
        out.append(EventDeal(round=round_, hand=hand, tables=tables))
    return out
