"""Provably fair deals: the one documented shuffle every room's deal comes from.

A deal is a function of a 32-byte **server seed** (secret until the game is over; the room
publishes ``commitment = SHA-256(seed)`` before anyone contributes) and each seat's optional
32-byte **contribution** (sent by the players' clients before the deal), so neither the server
nor any player chooses it alone. Anyone can check a finished game in any language
(docs/protocol.md, "Fair deals", gives the same recipe with an example):

1. ``key = SHA-256(b"cardroom-deal-v1" || seed || c_0 || … || c_{n-1})`` where ``c_i`` is
   ``0x01 || value`` (33 bytes) for a seat that contributed and ``0x00`` for one that did not,
   seats in order 0, 1, ….
2. A stream of 32-bit numbers: blocks ``SHA-256(key || j)`` for ``j = 0, 1, …`` (``j`` as 8
   bytes, big-endian) concatenated, read 4 bytes at a time, big-endian.
3. Fisher–Yates on the game's cards in code order (``2C 2D 2H 2S 3C …`` for Shithead's 52 cards,
   ``7C 7D … AS`` for Sheepshead's 32): for ``i`` from ``n - 1`` down to ``1``, take numbers
   until one is below ``2**32 - 2**32 % (i + 1)`` (rejection sampling: no bias) and swap card
   ``i`` with card ``number % (i + 1)``. The result is the deck, top card first.

Pure: no secret and no clock here; the rooms derive each seed (:mod:`server.rooms.seeds`).

>>> seed = bytes(range(32))
>>> commitment(seed)[:16]
'630dcd2966c43366'
>>> from protocol.cards import card_codes
>>> card_codes(shuffle(range(52), seed, [None, None])[:5])
['9H', '2S', '3C', '6H', 'AH']
>>> card_codes(shuffle(range(52), seed, [bytes(32), None])[:5])
['KD', '5D', '7D', 'KH', '5H']
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from server.rules.base import frozen_reduce

#: Bytes in a server seed and in a player's contribution.
SEED_BYTES = 32
CONTRIBUTION_BYTES = 32
#: The first bytes hashed into every deal's key: the version of this recipe.
DOMAIN = b"cardroom-deal-v1"

T = TypeVar("T")


def commitment(seed: bytes, dealer: int | None = None) -> str:
    """The commitment published before the deal, lowercase hex: SHA-256 of the server seed
    followed by the dealer's seat as one byte (the dealer decides which seat gets which cards of
    the deck, so it is committed to as well); ``dealer=None``: of the seed alone, as games were
    committed before the dealer was (their proofs have no dealer)."""
    if dealer is None:
        return hashlib.sha256(seed).hexdigest()
    if not 0 <= dealer < 256:
        raise ValueError("a dealer is a seat 0..255")
    return hashlib.sha256(seed + bytes([dealer])).hexdigest()


def deal_key(seed: bytes, contributions: Sequence[bytes | None]) -> bytes:
    """The key of the random stream of a deal (step 1 of the module docstring).

    Raises:
        ValueError: a seed or a contribution of the wrong length.
    """
    if len(seed) != SEED_BYTES:
        raise ValueError(f"a server seed is {SEED_BYTES} bytes")
    h = hashlib.sha256(DOMAIN)
    h.update(seed)
    for value in contributions:
        if value is None:
            h.update(b"\x00")
        elif len(value) != CONTRIBUTION_BYTES:
            raise ValueError(f"a contribution is {CONTRIBUTION_BYTES} bytes")
        else:
            h.update(b"\x01" + value)
    return h.digest()


def numbers(key: bytes) -> Iterator[int]:
    """The stream of 32-bit numbers of ``key`` (step 2): SHA-256 in counter mode."""
    block = 0
    while True:
        digest = hashlib.sha256(key + block.to_bytes(8, "big")).digest()
        for at in range(0, 32, 4):
            yield int.from_bytes(digest[at : at + 4], "big")
        block += 1


def below(stream: Iterator[int], bound: int) -> int:
    """A uniform number in ``0 … bound - 1`` from ``stream``, by rejection sampling."""
    limit = 2**32 - 2**32 % bound
    while True:
        x = next(stream)
        if x < limit:
            return x % bound


def shuffle(cards: Sequence[T], seed: bytes, contributions: Sequence[bytes | None]) -> list[T]:
    """``cards`` (in code order) shuffled by the seed and the contributions (step 3)."""
    deck = list(cards)
    stream = numbers(deal_key(seed, contributions))
    for i in range(len(deck) - 1, 0, -1):
        j = below(stream, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


@dataclass(frozen=True, slots=True)
class DealProof:
    """What a finished game reveals about its deal: the seed and each seat's contribution.

    >>> proof = DealProof(bytes(32), (None, bytes(32)), dealer=1)
    >>> DealProof.from_json(proof.to_json()) == proof
    True
    """

    seed: bytes
    contributions: tuple[bytes | None, ...]
    #: The dealer's seat, committed to with the seed (``None``: a proof from before that).
    dealer: int | None = None

    @property
    def commitment(self) -> str:
        return commitment(self.seed, self.dealer)

    def deck(self, cards: Sequence[T]) -> list[T]:
        return shuffle(cards, self.seed, self.contributions)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "commitment": self.commitment,
            "seed": self.seed.hex(),
            "contributions": [None if c is None else c.hex() for c in self.contributions],
        }
        if self.dealer is not None:
            out["dealer"] = self.dealer
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> DealProof:
        """Raises ``ValueError`` (or ``KeyError``/``TypeError``) for a malformed proof."""
        contributions = tuple(
            None if c is None else bytes.fromhex(c) for c in data["contributions"]
        )
        dealer = data.get("dealer")
        if dealer is not None and (type(dealer) is not int or not 0 <= dealer < 256):
            raise ValueError("a dealer is a seat 0..255")
        return cls(bytes.fromhex(data["seed"]), contributions, dealer)

    def __reduce__(self) -> tuple[Any, tuple[object, ...]]:
        return frozen_reduce(self)
