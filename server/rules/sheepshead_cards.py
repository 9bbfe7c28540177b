"""Sheepshead cards: the 32-card deck, the fourteen trumps, the fail suits and the card points.

Everything here is a table indexed by the card integer of :mod:`protocol.cards`
(``rank * 4 + suit``), so the rules core looks things up instead of computing them.

>>> from protocol.cards import parse_card
>>> is_trump(parse_card("JD")), is_trump(parse_card("AC"))
(True, False)
>>> [card_code(c) for c in TRUMPS[:4]]
['QC', 'QS', 'QH', 'QD']
>>> sum(POINTS[c] for c in DECK32)
120
>>> beats(parse_card("7D"), parse_card("AC"), led=CLUBS)
True
"""

from __future__ import annotations

from protocol.cards import (
    ACE,
    CLUBS,
    DIAMONDS,
    EIGHT,
    HEARTS,
    JACK,
    KING,
    NINE,
    QUEEN,
    SEVEN,
    SPADES,
    TEN,
    card,
    card_code,
)

__all__ = [
    "CLUBS",
    "DECK32",
    "FAIL_ACES",
    "FAIL_SUITS",
    "FAIL_TENS",
    "HEARTS",
    "JD",
    "POINTS",
    "SPADES",
    "STRENGTH",
    "SUIT_CLASS",
    "TRUMP",
    "TRUMPS",
    "beats",
    "card_code",
    "fail_cards_of",
    "is_trump",
    "trick_winner_index",
]

#: The suit class of trumps (SS-5.2: all fourteen trumps count as one suit).
TRUMP = 4

#: SS-1.3: the fail suits, in a fixed order (clubs, spades, hearts).
FAIL_SUITS: tuple[int, ...] = (CLUBS, SPADES, HEARTS)

#: SS-1.1: the 32 cards 7 … A of every suit, in increasing integer order.
DECK32: tuple[int, ...] = tuple(
    sorted(card(r, s) for r in (SEVEN, EIGHT, NINE, TEN, JACK, QUEEN, KING, ACE) for s in range(4))
)

#: SS-1.2: the fourteen trumps, highest first.
TRUMPS: tuple[int, ...] = (
    *(card(QUEEN, s) for s in (CLUBS, SPADES, HEARTS, DIAMONDS)),
    *(card(JACK, s) for s in (CLUBS, SPADES, HEARTS, DIAMONDS)),
    *(card(r, DIAMONDS) for r in (ACE, TEN, KING, NINE, EIGHT, SEVEN)),
)

#: SS-1.3: fail ranks, highest first.
FAIL_RANKS: tuple[int, ...] = (ACE, TEN, KING, NINE, EIGHT, SEVEN)

FAIL_ACES: tuple[int, ...] = tuple(card(ACE, s) for s in FAIL_SUITS)
FAIL_TENS: tuple[int, ...] = tuple(card(TEN, s) for s in FAIL_SUITS)
#: SS-10.2: the jack of diamonds, the partner's card under ``partner: jack_of_diamonds``.
JD = card(JACK, DIAMONDS)

_RANK_POINTS = {ACE: 11, TEN: 10, KING: 4, QUEEN: 3, JACK: 2}

#: SS-1.4: card points by card integer (0 for cards outside the 32).
POINTS: tuple[int, ...] = tuple(
    _RANK_POINTS.get(c >> 2, 0) if c in DECK32 else 0 for c in range(52)
)

#: Suit class by card integer: ``TRUMP`` for trumps, the printed suit for fail cards, -1 outside.
SUIT_CLASS: tuple[int, ...] = tuple(
    -1 if c not in DECK32 else (TRUMP if c in TRUMPS else c & 3) for c in range(52)
)

#: Strength by card integer: trumps 101 … 114 (QC highest); fail cards 1 … 6 within their suit.
STRENGTH: tuple[int, ...] = tuple(
    (100 + 14 - TRUMPS.index(c))
    if c in TRUMPS
    else (6 - FAIL_RANKS.index(c >> 2) if c in DECK32 else 0)
    for c in range(52)
)


def is_trump(c: int) -> bool:
    """Whether ``c`` is one of the fourteen trumps (SS-1.2)."""
    return SUIT_CLASS[c] == TRUMP


def fail_cards_of(cards: list[int] | tuple[int, ...], suit: int) -> list[int]:
    """The fail cards of ``suit`` among ``cards`` (queens and jacks never count, SS-1.3)."""
    return [c for c in cards if SUIT_CLASS[c] == suit]


def beats(a: int, b: int, led: int) -> bool:
    """Whether card ``a`` beats card ``b`` in a trick whose led suit class is ``led`` (SS-5.3)."""
    return _key(a, led) > _key(b, led)


def _key(c: int, led: int) -> int:
    cls = SUIT_CLASS[c]
    if cls in (TRUMP, led):
        return STRENGTH[c]
    return 0


def trick_winner_index(cards: list[int] | tuple[int, ...], face_down: int = -1) -> int:
    """Index in ``cards`` of the card that wins the trick (SS-5.3, SS-6.4).

    The card at index ``face_down`` (the unknown card) never wins and never sets the led suit;
    the led suit is that of the first face-up card.

    >>> from protocol.cards import parse_cards
    >>> trick_winner_index(parse_cards("AC TC 7D KC 9C"))
    2
    >>> trick_winner_index(parse_cards("AH TC KC 9S 8H"))
    0
    """
    led = -1
    best = -1
    best_key = -1
    strength = STRENGTH
    classes = SUIT_CLASS
    for i, c in enumerate(cards):
        if i == face_down:
            continue
        cls = classes[c]
        if led < 0:
            led = cls
        key = strength[c] if cls in (TRUMP, led) else 0
        if key > best_key:
            best_key = key
            best = i
    return best
