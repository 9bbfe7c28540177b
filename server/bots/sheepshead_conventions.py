"""The table conventions of Sheepshead card play, as the strong bot keeps them.

Players judge a partner by these before they judge it by its score: the picker's side
leads trump (the partner shows itself by it), the defenders lead fail (never trump through their
own side's fail cards), and points go onto a trick a friend surely wins. :func:`convention`
names the one that applies to a position and the legal cards that keep it. The searching bots
weigh only the cards that keep a lead convention a partner reads as a mistake whatever the cards
(:data:`BINDING`, :func:`candidates`); elsewhere they play another card only when it is clearly
better (:data:`server.bots.sheepshead_strong.PRIOR_MARGIN`); the playouts play every seat by
:func:`choose_conventional`.

None of this is a rule of the game (RULES.md has none): a card that breaks a convention is
legal, and the conventions apply only where a legal card keeps them.

>>> from protocol.cards import parse_card, parse_cards
>>> hand = parse_cards("QC 7D AH 9S KC 8H")
>>> t = Table(seat=2, hand=hand, legal=hand, trick_seats=[], trick_cards=[], seen=set(),
...           leaster=False, picker=0, called=parse_card("AH"), called_suit_led=False,
...           friends=frozenset({0}), foes=frozenset({1, 3, 4}), tricks_won=[0] * 5,
...           points_won=[0] * 5, picker_side=True)
>>> kind, cards = convention(t)
>>> kind.value, sorted(cards) == sorted(parse_cards("QC 7D"))
('partner_leads_trump', True)
"""

from __future__ import annotations

import random
from enum import Enum

from protocol.cards import JACK, QUEEN
from server.bots.sheepshead_policy import Table, choose_card, friend_holds_trick
from server.rules.sheepshead_cards import POINTS, TRUMPS

_TRUMP_SET = frozenset(TRUMPS)


class Convention(Enum):
    """A convention of the table that decides which cards are the conventional play."""

    PICKER_LEADS_TRUMP = "picker_leads_trump"
    PARTNER_LEADS_TRUMP = "partner_leads_trump"
    DEFENDER_LEADS_FAIL = "defender_leads_fail"
    SCHMEAR = "schmear"


#: The conventions the searching bots never break where a legal card keeps them: the partner's
#: trump lead and the defenders' fail lead. At five ``strong`` bots the search, behind the prior
#: alone, broke them on noise: its few samples a card (24 of a lead's 120 playouts), weighted,
#: valued a fail lead a unit or more above every trump now and then (one partner's lead in a
#: hand-made position, for 2 of 10 seeds). The picker's trump lead and the schmear stay weighed:
#: a picker may rightly lead the called suit, and a trump may be worth more than a schmear.
BINDING = frozenset({Convention.PARTNER_LEADS_TRUMP, Convention.DEFENDER_LEADS_FAIL})


def _trump_out(t: Table) -> bool:
    """Whether a trump is still out in another hand (not seen, not ours)."""
    mine = set(t.hand)
    return any(x not in t.seen and x not in mine for x in TRUMPS)


def convention(t: Table) -> tuple[Convention, frozenset[int]] | None:
    """The convention that applies where ``t.seat`` plays and the legal cards that keep it, or
    ``None`` (a leaster, no convention, or every legal card keeps it)."""
    if t.leaster or t.picker < 0:
        return None
    legal = t.legal
    trumps = frozenset(c for c in legal if c in _TRUMP_SET)
    fails = frozenset(legal) - trumps
    found: tuple[Convention, frozenset[int]] | None = None
    if not t.trick_cards:
        if t.picker_side and trumps and _trump_out(t):
            # The picker draws trump; the partner leads it back (and shows itself by it).
            kind = (
                Convention.PICKER_LEADS_TRUMP
                if t.seat == t.picker
                else Convention.PARTNER_LEADS_TRUMP
            )
            found = (kind, trumps)
        elif not t.picker_side and fails:
            # A defender leads fail (the called suit, short suits through the picker).
            found = (Convention.DEFENDER_LEADS_FAIL, fails)
    elif friend_holds_trick(t):
        # Schmear: the most points onto a trick a friend surely wins (queens and jacks are
        # worth more as power than as their 3 or 2 points).
        givers = [c for c in legal if not (c in _TRUMP_SET and c >> 2 in (QUEEN, JACK))]
        most = max((POINTS[c] for c in givers), default=0)
        if most > 0:
            found = (Convention.SCHMEAR, frozenset(c for c in givers if POINTS[c] == most))
    if found is None or len(found[1]) == len(legal):
        return None
    return found


def candidates(t: Table) -> list[int]:
    """The legal cards a searching bot weighs: those that keep a :data:`BINDING` convention
    where one applies, else every legal card."""
    found = convention(t)
    if found is None or found[0] not in BINDING:
        return list(t.legal)
    return [c for c in t.legal if c in found[1]]


def keeps(t: Table, card: int) -> bool:
    """Whether playing ``card`` keeps the convention of the position (true where none applies)."""
    found = convention(t)
    return found is None or card in found[1]


def choose_conventional(t: Table, rng: random.Random | None = None) -> int:
    """The heuristic card (:func:`~server.bots.sheepshead_policy.choose_card`) among the cards
    that keep the convention of the position."""
    found = convention(t)
    if found is None:
        return choose_card(t, rng)
    allowed = found[1]
    if len(allowed) == 1:
        return next(iter(allowed))
    return choose_card(t.with_legal([c for c in t.legal if c in allowed]), rng)
