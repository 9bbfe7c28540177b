"""The Shithead deal (SH-2.2) and who starts (SH-3), and building decks for exact deals.

Dealing order of an explicit deck, top card first: one card at a time clockwise from the
dealer's left, three rounds face down (slots 0, 1, 2), three rounds face up, three rounds into
the hand; the rest is the stock, drawn from the top.

>>> d = deal(list(range(52)), 2, dealer=0)
>>> d.face_down[1], d.face_up[1], d.hands[1], d.stock[-1]
([0, 2, 4], [6, 8, 10], [12, 14, 16], 18)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from protocol.cards import ACE, FOUR, TEN, THREE, parse_cards


class Deal(NamedTuple):
    face_down: list[list[int]]
    face_up: list[list[int]]
    hands: list[list[int]]
    stock: list[int]  # the top of the stock is the END of the list
    starter: int


def deal(cards: Sequence[int], players: int, dealer: int, *, glass: bool = False) -> Deal:
    """Deal ``cards`` (top first) to ``players`` seats as SH-2.2 says (``glass``: 3s are
    glass, SH-7.4, and never decide who starts)."""
    order = [(dealer + 1 + i) % players for i in range(players)]
    rows: tuple[list[list[int]], ...] = tuple([[] for _ in range(players)] for _ in range(3))
    it = iter(cards)
    for target in rows:
        for _round in range(3):
            for seat in order:
                target[seat].append(next(it))
    down, up, hands = rows
    return Deal(down, up, hands, list(it)[::-1], starter(order, up, hands, glass=glass))


def starter(
    order: list[int], face_up: list[list[int]], hands: list[list[int]], *, glass: bool = False
) -> int:
    """SH-3.1–3.3: first face-up card of the lowest ordinary rank in dealing order, else the
    first holder of that rank in hand clockwise from the dealer's left; then the next rank
    (from the 4s when 3s are glass, SH-7.4; should a two-player deal show nothing but 2s, 3s
    and 10s, the 3s decide after all, docs/rules.md)."""
    ranks = [*range(FOUR, ACE + 1), THREE] if glass else range(THREE, ACE + 1)
    for rank in ranks:
        if rank == TEN:
            continue
        for rnd in range(3):
            for seat in order:
                if face_up[seat][rnd] >> 2 == rank:
                    return seat
        for seat in order:
            if any(c >> 2 == rank for c in hands[seat]):
                return seat
    raise AssertionError("a deal always holds an ordinary rank face up or in hand")


def deck_from_deal(
    num_players: int,
    dealer: int,
    *,
    down: Sequence[str],
    up: Sequence[str],
    hand: Sequence[str],
    stock: str = "",
) -> list[int]:
    """Build an explicit deck (top first) that deals the given cards (SH-2.2).

    ``down``, ``up`` and ``hand`` give, per seat, a string of three card codes; ``stock`` the
    cards on top of the stock, top first. The remaining cards follow in a fixed order.

    >>> from protocol.cards import card_codes
    >>> deck = deck_from_deal(2, 0, down=["2C 2D 2H", "2S 3C 3D"], up=["4C 4D 4H", "4S 5C 5D"],
    ...                       hand=["6C 6D 6H", "6S 7C 7D"], stock="AS")
    >>> dealt = deal(deck, 2, 0)
    >>> card_codes(dealt.hands[1]), card_codes([dealt.stock[-1]])
    (['6S', '7C', '7D'], ['AS'])
    """
    order = [(dealer + 1 + i) % num_players for i in range(num_players)]
    rows = [[parse_cards(part[s]) for s in range(num_players)] for part in (down, up, hand)]
    deck: list[int] = []
    for part in rows:
        for rnd in range(3):
            for seat in order:
                deck.append(part[seat][rnd])
    deck.extend(parse_cards(stock))
    rest = [c for c in range(52) if c not in deck]
    if len(rest) + len(deck) != 52:
        raise ValueError("a card appears twice in the deal")
    return deck + rest
