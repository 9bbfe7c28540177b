"""An event's seed and what is derived from it: the draw of round 1's seats and, with duplicate
on, every deal of every round, the same at every table.

The event's 32-byte seed (:meth:`server.rooms.seeds.Keys.event`) is committed to when the event
is created (``commitment = SHA-256(seed)``, shown on its page) and revealed when it ends; from it
anyone can recompute (docs/events.md, "Checking an event"):

* round 1's draw: the entrants in the order they joined, shuffled (the documented shuffle of
  :mod:`server.rules.deal`, no contributions) by ``SHA-256(b"cardroom-event-seating-v1" ||
  seed)``; table 1 takes the first ``table size`` of them, and so on;
* the server seed of hand ``h`` of round ``r`` (both from 0; 2 bytes each, big-endian):
  ``SHA-256(b"cardroom-event-deal-v1" || seed || r || h)``, dealt by seat ``h mod table size``
  at every table, without contributions (every table must get the same cards): each table's
  game commits to it and reveals it as any room's game does, so ``cardroom verify`` checks its
  deck, and ``cardroom verify --event`` that it is the event's.

Seat ``s`` of every table therefore holds the same cards in a deal: the seat, not the person, is
what a deal's scores are compared by (:mod:`server.rooms.event_scoring`).

>>> seed = bytes(32)
>>> event_commitment(seed)[:16]
'66687aadf862bd77'
>>> deal_proof(seed, 0, 1, 5).dealer, deal_seed(seed, 0, 1) != deal_seed(seed, 1, 0)
(1, True)
>>> draw(seed, ["ann", "bob", "cy"])
['cy', 'bob', 'ann']
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import TypeVar

from server.rules.deal import SEED_BYTES, DealProof, commitment, shuffle

DEAL_DOMAIN = b"cardroom-event-deal-v1"
SEATING_DOMAIN = b"cardroom-event-seating-v1"

T = TypeVar("T")


def _checked(seed: bytes) -> bytes:
    if len(seed) != SEED_BYTES:
        raise ValueError(f"an event seed is {SEED_BYTES} bytes")
    return seed


def event_commitment(seed: bytes) -> str:
    """What an event publishes when it is created: SHA-256 of its seed, lowercase hex."""
    return commitment(_checked(seed))


def deal_seed(seed: bytes, round_: int, hand: int) -> bytes:
    """The server seed of hand ``hand`` of round ``round_`` at every table of a duplicate
    event."""
    return hashlib.sha256(
        DEAL_DOMAIN + _checked(seed) + round_.to_bytes(2, "big") + hand.to_bytes(2, "big")
    ).digest()


def dealer(hand: int, table_size: int) -> int:
    """The dealer of a hand at every table: seat 0 deals the first, the deal passes left."""
    return hand % table_size


def deal_proof(seed: bytes, round_: int, hand: int, table_size: int) -> DealProof:
    """The proof every table of the round reveals for that hand."""
    return DealProof(deal_seed(seed, round_, hand), (), dealer(hand, table_size))


def draw(seed: bytes, entrants: Sequence[T]) -> list[T]:
    """Round 1's seating order: ``entrants`` (in the order they joined) shuffled from the
    event's seed."""
    key = hashlib.sha256(SEATING_DOMAIN + _checked(seed)).digest()
    return shuffle(entrants, key, ())
