"""The fair-deal shuffle (server/rules/deal.py): the documented recipe, checked against the
example of docs/protocol.md ("Fair deals") recomputed here step by step from hashlib alone,
a permutation every time, unbiased draws, and every input changing the deal."""

from __future__ import annotations

import hashlib
from collections import Counter

import pytest

from protocol.cards import CODES, card_codes
from server.rules.deal import DealProof, below, commitment, deal_key, numbers, shuffle
from server.rules.registry import game_spec
from tests.support.deal import doc_example


def third_party_deck(seed: bytes, contributions: list[bytes | None], cards: list[str]) -> list[str]:
    """The recipe as the docs give it, written again from hashlib alone."""
    key_input = b"cardroom-deal-v1" + seed
    for value in contributions:
        key_input += b"\x00" if value is None else b"\x01" + value
    key = hashlib.sha256(key_input).digest()
    stream = (
        int.from_bytes(hashlib.sha256(key + j.to_bytes(8, "big")).digest()[k : k + 4], "big")
        for j in range(10_000)
        for k in range(0, 32, 4)
    )
    deck = list(cards)
    for i in range(len(deck) - 1, 0, -1):
        x = next(stream)
        while x >= 2**32 - 2**32 % (i + 1):
            x = next(stream)
        j = x % (i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def test_the_documented_example_holds() -> None:
    ex = doc_example()
    seed = bytes.fromhex(ex["seed"])
    values = [None if c is None else bytes.fromhex(c) for c in ex["contributions"]]
    assert commitment(seed, ex["dealer"]) == ex["commitment"]
    assert deal_key(seed, values).hex() == ex["deal_key"]
    key = bytes.fromhex(ex["deal_key"])
    assert hashlib.sha256(key + bytes(8)).hexdigest() == ex["block_0"]
    deck = ex["deck"].split()
    assert card_codes(shuffle(range(52), seed, values)) == deck
    assert third_party_deck(seed, values, list(CODES)) == deck
    # the docs' walk-through of the first swap
    first = int(ex["block_0"][:8], 16)
    assert first == 1945096277 and first % 52 == 33 and deck[-1] == CODES[33] == "TD"


@pytest.mark.parametrize("game", ["shithead", "sheepshead"])
def test_every_deal_is_a_permutation_and_the_recipe_in_code_order(game: str) -> None:
    cards = game_spec(game).cards
    assert list(cards) == sorted(cards)  # code order, as documented
    for n in range(30):
        seed = hashlib.sha256(n.to_bytes(4, "big")).digest()
        values = [None, seed[::-1]] if n % 2 else []
        deck = shuffle(cards, seed, values)
        assert sorted(deck) == list(cards)
        assert card_codes(deck) == third_party_deck(seed, values, card_codes(cards))


def test_every_input_changes_the_deal() -> None:
    seed, other = bytes(32), bytes([1]) + bytes(31)
    value = bytes([9]) * 32
    decks = {
        tuple(shuffle(range(52), seed, [None, None])),
        tuple(shuffle(range(52), other, [None, None])),
        tuple(shuffle(range(52), seed, [value, None])),
        tuple(shuffle(range(52), seed, [None, value])),  # which seat sent it matters
        tuple(shuffle(range(52), seed, [None])),  # and how many seats there are
    }
    assert len(decks) == 5


def test_draws_are_unbiased_by_rejection() -> None:
    # a stream whose first number is in the biased tail of 2**32 for a bound of 3: skipped
    limit = 2**32 - 2**32 % 3
    assert below(iter([limit, limit + 1, 7]), 3) == 7 % 3
    # and the top card's position is spread evenly over many deals (a loose chi-square)
    counts = Counter(shuffle(range(8), hashlib.sha256(bytes([n % 256, n // 256])).digest(), [])[0]
                     for n in range(4000))  # fmt: skip
    expected = 4000 / 8
    assert sum((c - expected) ** 2 / expected for c in counts.values()) < 30  # 7 dof, p ~ 1e-4


def test_the_stream_is_sha256_in_counter_mode() -> None:
    key = bytes(range(32))
    stream = numbers(key)
    got = [next(stream) for _ in range(9)]
    block0 = hashlib.sha256(key + bytes(8)).digest()
    block1 = hashlib.sha256(key + (1).to_bytes(8, "big")).digest()
    assert got[:8] == [int.from_bytes(block0[i : i + 4], "big") for i in range(0, 32, 4)]
    assert got[8] == int.from_bytes(block1[:4], "big")


def test_bad_lengths_are_refused_and_proofs_round_trip() -> None:
    with pytest.raises(ValueError):
        deal_key(bytes(31), [])
    with pytest.raises(ValueError):
        deal_key(bytes(32), [bytes(31)])
    proof = DealProof(bytes(32), (None, bytes([5]) * 32))
    data = proof.to_json()
    assert data["commitment"] == hashlib.sha256(bytes(32)).hexdigest()
    assert DealProof.from_json(data) == proof
    assert proof.deck(range(52)) == shuffle(range(52), bytes(32), [None, bytes([5]) * 32])
