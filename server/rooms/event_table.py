"""A room that is a table of an event: which event, round and table, the hands it plays, and
whether it deals the event's duplicate deals (kept in the room's record).

A table is an ordinary room otherwise. Its first dealer is seat 0 at every table (so that a
deal's dealer, and so who holds which cards, is the same at every table); it deals no more than
its hands; and with duplicate on its games take no contributions and are dealt from the
event's seed (:mod:`server.rooms.event_deals`): every table of the round gets the same cards.

>>> t = EventTable("K7QP", "n", round=1, table=2, hands=3, duplicate=True)
>>> EventTable.from_record(t.to_record()) == t
True
"""

from __future__ import annotations

from dataclasses import dataclass

from protocol.records import TableRecord


@dataclass(frozen=True, slots=True)
class EventTable:
    event: str
    nonce: str
    round: int
    table: int
    hands: int
    duplicate: bool

    def to_record(self) -> TableRecord:
        return {
            "event": self.event,
            "nonce": self.nonce,
            "round": self.round,
            "table": self.table,
            "hands": self.hands,
            "duplicate": self.duplicate,
        }

    @classmethod
    def from_record(cls, record: TableRecord) -> EventTable:
        return cls(
            record["event"],
            record["nonce"],
            record["round"],
            record["table"],
            record["hands"],
            record["duplicate"],
        )
