"""An event's seed and its derivations, recomputed here from the recipe the docs give
(docs/events.md, "Checking an event"), as someone checking an event would."""

from __future__ import annotations

import hashlib
import itertools

import pytest

from protocol.cards import card_codes
from server.rooms.event_deals import deal_proof, deal_seed, dealer, draw, event_commitment
from server.rooms.seeds import Keys
from server.rules.deal import commitment, shuffle
from server.rules.sheepshead_cards import DECK32

SEED = bytes(range(32))


def test_a_deal_seed_is_the_documented_hash_of_the_event_seed_round_and_hand() -> None:
    by_hand = hashlib.sha256(b"cardroom-event-deal-v1" + SEED + b"\x00\x02\x00\x01").digest()
    assert deal_seed(SEED, 2, 1) == by_hand
    proof = deal_proof(SEED, 2, 1, 5)
    assert proof.seed == by_hand and proof.contributions == () and proof.dealer == 1
    assert proof.commitment == hashlib.sha256(by_hand + bytes([1])).hexdigest()
    assert event_commitment(SEED) == hashlib.sha256(SEED).hexdigest() == commitment(SEED)


def test_every_deal_of_an_event_is_its_own() -> None:
    seeds = {deal_seed(SEED, r, h) for r, h in itertools.product(range(10), range(10))}
    assert len(seeds) == 100
    decks = {tuple(card_codes(deal_proof(SEED, 0, h, 5).deck(DECK32))) for h in range(10)}
    assert len(decks) == 10
    assert [dealer(h, 5) for h in range(7)] == [0, 1, 2, 3, 4, 0, 1]


def test_the_draw_is_the_documented_shuffle() -> None:
    people = ["ann", "bob", "cy", "dee", "ed"]
    key = hashlib.sha256(b"cardroom-event-seating-v1" + SEED).digest()
    assert draw(SEED, people) == shuffle(people, key, ())


def test_an_event_seed_is_the_servers_own_for_its_code_and_nonce() -> None:
    keys = Keys(bytes(32))
    assert keys.event("K7QP", "a") == keys.event("K7QP", "a")
    assert len({keys.event("K7QP", "a"), keys.event("K7QP", "b"), keys.event("K7QR", "a")}) == 3
    assert keys.event("K7QP", "a") != Keys(bytes([1]) * 32).event("K7QP", "a")
    assert keys.event("K7QP", "a") != keys.deal("K7QP", "a", 0)


@pytest.mark.parametrize("bad", [b"", bytes(31), bytes(33)])
def test_a_seed_of_the_wrong_length_is_refused(bad: bytes) -> None:
    with pytest.raises(ValueError, match="32 bytes"):
        deal_seed(bad, 0, 0)
    with pytest.raises(ValueError, match="32 bytes"):
        draw(bad, ["a"])
