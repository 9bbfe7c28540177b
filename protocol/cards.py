"""Card codes: the two-character ASCII form used on the wire, and a printed form for people.

A card is a small integer ``rank * 4 + suit`` with ranks ``2 3 4 5 6 7 8 9 T J Q K A`` (0..12)
and suits ``C D H S`` (0..3). Integers keep the rules cores fast; codes are for the wire.

>>> parse_card("TD")
33
>>> card_code(33)
'TD'
>>> card_label(parse_card("TD"))
'10♦'
>>> [card_code(c) for c in parse_cards("7h 7c")]
['7H', '7C']
>>> parse_card("1D")
Traceback (most recent call last):
...
protocol.cards.CardError: bad card code '1D': expected a rank of 23456789TJQKA and a suit of ...
"""

from __future__ import annotations

from collections.abc import Iterable

RANKS = "23456789TJQKA"
SUITS = "CDHS"
SUIT_SYMBOLS = "♣♦♥♠"
RANK_LABELS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")

#: Every card of a 52-card deck, by integer (index == value).
DECK52: tuple[int, ...] = tuple(range(52))

# Rank and suit index constants, so rules code reads as cards, not numbers.
TWO, THREE, FOUR, FIVE, SIX, SEVEN, EIGHT, NINE, TEN, JACK, QUEEN, KING, ACE = range(13)
CLUBS, DIAMONDS, HEARTS, SPADES = range(4)

CODES: tuple[str, ...] = tuple(r + s for r in RANKS for s in SUITS)
_BY_CODE: dict[str, int] = {code: i for i, code in enumerate(CODES)}


class CardError(ValueError):
    """A card code that is not one of the 52 codes."""

    def __init__(self, code: object) -> None:
        super().__init__(code)
        self.code = code

    def __str__(self) -> str:
        expected = f"expected a rank of {RANKS} and a suit of {SUITS}, e.g. 'TD'"
        return f"bad card code {self.code!r}: {expected}"


def card(rank: int, suit: int) -> int:
    """The card of a rank index (0 = 2 … 12 = ace) and a suit index (C D H S)."""
    return rank * 4 + suit


def parse_card(code: object) -> int:
    """Parse a wire code such as ``"TD"`` (case-insensitive); raise :class:`CardError` if bad."""
    if isinstance(code, str):
        c = _BY_CODE.get(code.strip().upper())
        if c is not None:
            return c
    raise CardError(code)


def parse_cards(text: str | Iterable[object]) -> list[int]:
    """Parse several codes, from a space- or comma-separated string or an iterable of codes."""
    items: Iterable[object] = text.replace(",", " ").split() if isinstance(text, str) else text
    return [parse_card(item) for item in items]


def card_code(c: int) -> str:
    """The wire code of a card: ``"TD"``."""
    return CODES[c]


def card_codes(cards: Iterable[int]) -> list[str]:
    """The wire codes of several cards, in order."""
    return list(map(CODES.__getitem__, cards))  # C only: some seven lists an action


def card_label(c: int) -> str:
    """The printed form of a card for people: ``"10♦"``."""
    return RANK_LABELS[c >> 2] + SUIT_SYMBOLS[c & 3]
