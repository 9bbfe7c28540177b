"""Sheepshead heuristics on a compact table picture, shared by the ``basic`` bot (which builds the
picture from its seat's view) and the ``strong`` bot's playouts (which build it from a sampled
deal). Cards are the integers of :mod:`protocol.cards`.

The play rules follow the seed page's advice: the picker's side leads trump, defenders lead fail
(the called suit first), points are schmiered onto tricks a partner will surely win, trumps are
counted, and in a leaster a lone ace or ten goes early while one cheap trick is taken.

>>> from protocol.cards import parse_cards
>>> pick_score(parse_cards("QC QS JD AD 7D AC")) > pick_score(parse_cards("7C 8C 9S 8H 7H KD"))
True
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations

from protocol.cards import ACE, JACK, QUEEN, TEN
from server.rules.sheepshead_cards import (
    DECK32,
    FAIL_ACES,
    FAIL_SUITS,
    FAIL_TENS,
    POINTS,
    STRENGTH,
    SUIT_CLASS,
    TRUMP,
    TRUMPS,
)

PLAYERS = 5
_TRUMP_SET = frozenset(TRUMPS)


@dataclass(slots=True)
class Table:
    """What one seat knows (or, in a playout, is told) when it plays a card.

    ``trick_cards`` holds -1 for the face-down unknown card. ``friends`` are the seats known to
    be on this seat's side, ``foes`` those known to be against it; the rest are unknown.
    """

    seat: int
    hand: Sequence[int]
    legal: Sequence[int]
    trick_seats: Sequence[int]
    trick_cards: Sequence[int]
    seen: set[int]  # cards played so far (face up), this trick included
    leaster: bool
    picker: int
    called: int
    called_suit_led: bool
    friends: frozenset[int]
    foes: frozenset[int]
    tricks_won: Sequence[int]
    points_won: Sequence[int]
    voids: list[set[int]] = field(default_factory=lambda: [set() for _ in range(PLAYERS)])
    picker_side: bool = False

    @property
    def led(self) -> int:
        for c in self.trick_cards:
            if c >= 0:
                return SUIT_CLASS[c]
        return -1

    def with_legal(self, legal: Sequence[int]) -> Table:
        """This table with only ``legal`` to choose from (``dataclasses.replace`` without its
        field walk: the playouts narrow a table at most of their conventional plays)."""
        return Table(
            self.seat,
            self.hand,
            legal,
            self.trick_seats,
            self.trick_cards,
            self.seen,
            self.leaster,
            self.picker,
            self.called,
            self.called_suit_led,
            self.friends,
            self.foes,
            self.tricks_won,
            self.points_won,
            self.voids,
            self.picker_side,
        )

    def unseen(self) -> list[int]:
        """Cards that may still be played by others (not seen, not in this hand)."""
        mine = set(self.hand)
        return [c for c in DECK32 if c not in self.seen and c not in mine]


# ---------------------------------------------------------------------------------- trick maths


#: :func:`power` by suit class led, then card: a lookup for the playouts' hot loops. Row -1 (no
#: card led yet) is the last row, TRUMP's: only trumps have power there, as in :func:`power`.
_POWER: tuple[tuple[int, ...], ...] = tuple(
    tuple(STRENGTH[c] if SUIT_CLASS[c] in (TRUMP, led) else 0 for c in range(52))
    for led in range(TRUMP + 1)
)


def power(c: int, led: int) -> int:
    """How strong ``c`` is in a trick led with suit class ``led`` (0: cannot win)."""
    if c < 0:
        return 0
    return _POWER[led][c]


def winner_index(cards: Sequence[int]) -> int:
    """Index of the winning card so far (face-down -1 cards never win); -1 if none."""
    led = -1
    best, best_power = -1, -1
    for i, c in enumerate(cards):
        if c < 0:
            continue
        if led < 0:
            led = SUIT_CLASS[c]
        p = power(c, led)
        if p > best_power:
            best, best_power = i, p
    return best


def can_beat(card_power: int, led: int, cards: list[int]) -> bool:
    """Whether any of ``cards`` beats a card of power ``card_power`` in a trick led ``led``."""
    row = _POWER[led]
    return any(row[c] > card_power for c in cards)


def trick_points(cards: Sequence[int]) -> int:
    return sum(POINTS[c] for c in cards if c >= 0)


# ---------------------------------------------------------------------------------- picking


def pick_score(cards: list[int] | tuple[int, ...]) -> float:
    """Strength of a six-card hand for picking: trumps by rank, fail aces, voids."""
    score = 0.0
    for c in cards:
        if c in _TRUMP_SET:
            r = c >> 2
            score += 3.0 if r == QUEEN else 2.0 if r == JACK else 1.5 if r in (ACE, TEN) else 1.0
        elif c in FAIL_ACES:
            score += 1.0
    suits = {SUIT_CLASS[c] for c in cards}
    score += 0.5 * sum(1 for s in FAIL_SUITS if s not in suits)
    return score


def should_pick(hand: list[int], position: int, threshold: float = 8.0) -> bool:
    """Pick on trump strength; ``position`` counts passes before this seat (0..4). The last seat
    (the dealer) picks a little lighter rather than let a leaster come."""
    trumps = sum(1 for c in hand if c in _TRUMP_SET)
    if trumps < 3:
        return False
    return pick_score(hand) >= threshold - 0.5 * (position == PLAYERS - 1)


def bury_score(keep: list[int], bury: tuple[int, int]) -> float:
    """How good it is to keep ``keep`` (six cards) and bury ``bury``."""
    score = 0.0
    trumps = [c for c in keep if c in _TRUMP_SET]
    for c in trumps:
        score += 4.0 + STRENGTH[c] / 10.0
    for c in bury:
        if c in _TRUMP_SET:
            score -= 2.0
    score += 0.15 * sum(POINTS[c] for c in bury)
    held_suits = {SUIT_CLASS[c] for c in keep if SUIT_CLASS[c] != TRUMP}
    score += 1.5 * sum(1 for s in FAIL_SUITS if s not in held_suits)
    aced = {SUIT_CLASS[x] for x in keep if x in FAIL_ACES}
    for c in keep:
        cls = SUIT_CLASS[c]
        if cls == TRUMP:
            continue
        if c in FAIL_ACES:
            score += 1.0
        elif POINTS[c] >= 10 and cls not in aced:
            score -= 1.5  # a ten without its ace is a gift to the defenders
    # A hold card (a fail suit whose ace we lack) lets us call a partner.
    kept = set(keep) | set(bury)
    if any(a not in kept and a in FAIL_ACES and SUIT_CLASS[a] in held_suits for a in FAIL_ACES):
        score += 2.5
    return score


def can_call(keep: list[int], bury: tuple[int, int]) -> bool:
    """Whether keeping ``keep`` and burying ``bury`` leaves a partner call open (SS-4.1–4.3)."""
    held = set(keep)
    out = held | set(bury)
    suits = {SUIT_CLASS[c] for c in keep if SUIT_CLASS[c] in FAIL_SUITS}
    if all(a in held for a in FAIL_ACES):
        return any(t not in out and SUIT_CLASS[t] in suits for t in FAIL_TENS)
    if any(a not in out and SUIT_CLASS[a] in suits for a in FAIL_ACES):
        return True
    if all(c in FAIL_ACES for c in keep if SUIT_CLASS[c] in FAIL_SUITS):
        return any(a not in out and SUIT_CLASS[a] not in suits for a in FAIL_ACES)
    return False


#: What burying into a forced alone costs (more than any pair of voids is worth): a partner
#: doubles the picker's chances, and going alone without a monster hand loses.
NO_CALL_PENALTY = 6.0


def rank_burials(hand: list[int]) -> list[tuple[int, int]]:
    """Every pair of the eight cards, best burial first by the heuristic score (which keeps a
    partner call open unless going alone); ties keep the order of the sorted pairs."""
    scored: list[tuple[float, int, tuple[int, int]]] = []
    for i, pair in enumerate(combinations(sorted(hand), 2)):
        keep = [c for c in hand if c not in pair]
        s = bury_score(keep, pair)
        if not go_alone(keep) and not can_call(keep, pair):
            s -= NO_CALL_PENALTY
        scored.append((-s, i, pair))
    scored.sort()
    return [pair for _, _, pair in scored]


def choose_bury(hand: list[int]) -> tuple[int, int]:
    """The two of eight cards to bury, keeping a partner call open unless going alone:
    :func:`rank_burials`' first pair, without checking the call of every pair (every simulated
    picker of the bidding's playouts buries by it: the burials were a quarter of a pick
    decision's CPU under cProfile). The pairs are visited best score first; the first that
    keeps a call open beats every pair after it (none scores more, and the penalty only lowers
    a score), so only the pairs before it need their call checked."""
    pairs = list(combinations(sorted(hand), 2))
    keeps = [[c for c in hand if c not in pair] for pair in pairs]
    scores = [bury_score(keep, pair) for keep, pair in zip(keeps, pairs, strict=True)]
    best: tuple[float, int] | None = None
    for i in sorted(range(len(pairs)), key=lambda j: (-scores[j], j)):
        s = scores[i]
        if can_call(keeps[i], pairs[i]) or go_alone(keeps[i]):
            key = (-s, i)
            return pairs[min(key, best)[1] if best is not None else i]
        s -= NO_CALL_PENALTY
        if best is None or (-s, i) < best:
            best = (-s, i)
    assert best is not None  # eight cards make 28 pairs
    return pairs[best[1]]


def go_alone(hand: list[int]) -> bool:
    """Play alone only with an overwhelming hand: six trumps with three queens, or all four
    queens. (Looser rules sent about a fifth of picks alone and lost units against partners.)"""
    trumps = [c for c in hand if c in _TRUMP_SET]
    queens = sum(1 for c in trumps if c >> 2 == QUEEN)
    return (len(trumps) == 6 and queens >= 3) or (len(trumps) >= 5 and queens == 4)


def should_crack(hand: list[int], picker_side: bool) -> bool:
    """SS-10.4: crack (double the stakes) as a defender only with a hand that can beat the
    picker: four trumps with a queen, or the pick strength of a hand that would have picked
    itself; the partner (who knows it) cracks with a hand that makes the picker's side a
    favourite."""
    trumps = [c for c in hand if c in _TRUMP_SET]
    queens = sum(1 for c in trumps if c >> 2 == QUEEN)
    if picker_side:
        return len(trumps) >= 3 and queens >= 1 and pick_score(hand) >= 7.0
    return (len(trumps) >= 4 and queens >= 1) or pick_score(hand) >= 9.0


def should_recrack(hand: list[int]) -> bool:
    """SS-10.4: the picker re-cracks only with a hand that would nearly go alone."""
    trumps = [c for c in hand if c in _TRUMP_SET]
    queens = sum(1 for c in trumps if c >> 2 == QUEEN)
    return len(trumps) >= 5 and queens >= 2


# ---------------------------------------------------------------------------------- card play


def _low_key(c: int) -> tuple[int, int]:
    """Order for throwing away: fewest points, then weakest (fail before trump)."""
    return (POINTS[c], STRENGTH[c])


def _suit_lens(hand: Sequence[int]) -> list[int]:
    """Cards of each suit class in ``hand`` (indexed by class: the fail suits and TRUMP), counted
    once for a choice among several cards (playouts call the policy often)."""
    lens = [0] * (TRUMP + 1)
    for c in hand:
        lens[SUIT_CLASS[c]] += 1
    return lens


def choose_card(t: Table, rng: random.Random | None = None) -> int:
    """The heuristic card for ``t.seat`` among ``t.legal``."""
    legal = t.legal
    if len(legal) == 1:
        return legal[0]
    if t.leaster:
        return _leaster_card(t)
    if not t.trick_cards:
        return _lead(t)
    return _follow(t)


def _highest_unseen_trump_is(t: Table, c: int) -> bool:
    """Whether no trump still out (not seen, not ours) beats trump ``c``."""
    mine = set(t.hand)
    for x in TRUMPS:
        if x == c:
            return True
        if x not in t.seen and x not in mine:
            return False
    return True


def _lead(t: Table) -> int:
    hand, legal = t.hand, t.legal
    trumps = sorted((c for c in legal if c in _TRUMP_SET), key=lambda c: -STRENGTH[c])
    fails = [c for c in legal if c not in _TRUMP_SET]
    if t.picker_side:
        if trumps:
            top = trumps[0]
            if _highest_unseen_trump_is(t, top):
                return top
            outstanding = sum(1 for x in TRUMPS if x not in t.seen and x not in set(hand))
            if outstanding == 0:
                # Every trump left is ours: cash fail aces first.
                aces = [c for c in fails if c >> 2 == ACE]
                if aces:
                    return aces[0]
            if t.seat == t.picker and len(trumps) >= 3:
                return top
            return trumps[-1]
        return _lead_fail(t, fails)
    # Defenders lead fail, the called suit first.
    if fails:
        if t.called >= 0 and not t.called_suit_led:
            cs = SUIT_CLASS[t.called]
            called_suit = [c for c in fails if SUIT_CLASS[c] == cs]
            if called_suit:
                return min(called_suit, key=_low_key)
        return _lead_fail(t, fails)
    return min(trumps, key=lambda c: (POINTS[c], STRENGTH[c]))


def _lead_fail(t: Table, fails: list[int]) -> int:
    if not fails:
        return min(t.legal, key=lambda c: STRENGTH[c])
    led_before = {SUIT_CLASS[c] for c in t.seen if SUIT_CLASS[c] != TRUMP}
    aces = [c for c in fails if c >> 2 == ACE and SUIT_CLASS[c] not in led_before]
    if aces:
        return aces[0]
    # Shortest suit, lowest card (build voids, lose little).
    lens = _suit_lens(t.hand)
    return min(fails, key=lambda c: (lens[SUIT_CLASS[c]], POINTS[c], STRENGTH[c]))


def _follow(t: Table) -> int:
    legal, cards, seats = t.legal, t.trick_cards, t.trick_seats
    led = t.led
    wi = winner_index(cards)
    win_seat = seats[wi] if wi >= 0 else -1
    win_power = power(cards[wi], led) if wi >= 0 else 0
    played = len(cards)
    after = [(t.seat + k) % PLAYERS for k in range(1, PLAYERS - played)]
    foes_after = [s for s in after if s not in t.friends]
    unseen = t.unseen()
    pts = trick_points(cards)
    winners = [c for c in legal if power(c, led) > win_power]
    friend_winning = win_seat in t.friends

    def safe(pw: int) -> bool:
        return holds(t, pw, foes_after, unseen)

    if friend_winning and safe(win_power):
        return _schmier(t)
    if winners:
        sure = [c for c in winners if safe(power(c, led))]
        if sure:
            # Win as cheaply as possible, but take points with it when it is free to do so.
            return max(sure, key=lambda c: (POINTS[c] if c not in _TRUMP_SET else 0, -STRENGTH[c]))
        if friend_winning:
            return min(legal, key=_low_key)
        if pts >= 10 or (led != TRUMP and any(c in _TRUMP_SET for c in winners)):
            trump_winners = [c for c in winners if c in _TRUMP_SET]
            pool = trump_winners or winners
            # A middling trump: strong enough to hold often, not the top one.
            pool.sort(key=lambda c: STRENGTH[c])
            return pool[len(pool) // 2] if len(pool) > 2 else pool[-1]
    return min(legal, key=_low_key)


def holds(t: Table, pw: int, foes_after: list[int], unseen: list[int]) -> bool:
    """Whether no foe still to play (``foes_after``) can beat power ``pw`` in this trick."""
    led = t.led
    if not foes_after:
        return True
    if not can_beat(pw, led, unseen):
        return True
    if led != TRUMP and pw < 100:
        # A fail card holds unless a foe trumps or holds a higher card of the suit.
        if any(SUIT_CLASS[c] == led and STRENGTH[c] > pw for c in unseen):
            return False
        return all(led not in t.voids[s] for s in foes_after) and _rounds(t, led) == 0
    return False


def friend_holds_trick(t: Table) -> bool:
    """Whether a known friend wins the trick so far and no foe still to play can beat it."""
    wi = winner_index(t.trick_cards)
    if wi < 0 or t.trick_seats[wi] not in t.friends:
        return False
    after = [(t.seat + k) % PLAYERS for k in range(1, PLAYERS - len(t.trick_cards))]
    foes_after = [s for s in after if s not in t.friends]
    return holds(t, power(t.trick_cards[wi], t.led), foes_after, t.unseen())


def _rounds(t: Table, cls: int) -> int:
    """How many completed tricks were led with ``cls`` (approximated by cards seen / 5)."""
    n = sum(1 for c in t.seen if SUIT_CLASS[c] == cls and c not in t.trick_cards)
    return n // 3


def _schmier(t: Table) -> int:
    """Give the most points, keeping high trumps."""

    def key(c: int) -> tuple[int, int]:
        if c in _TRUMP_SET:
            # Diamonds ace/ten are fair schmiers; queens and jacks are worth more as power.
            if c >> 2 in (QUEEN, JACK):
                return (-1, -STRENGTH[c])
            return (POINTS[c] - 1, -STRENGTH[c])
        return (POINTS[c], -STRENGTH[c])

    return max(t.legal, key=key)


def _leaster_card(t: Table) -> int:
    legal, cards = t.legal, t.trick_cards
    me = t.seat
    have_trick = t.tricks_won[me] > 0
    if not cards:
        # Lead low; with no trick yet, a low card that might still win cheaply.
        return min(legal, key=lambda c: (POINTS[c], STRENGTH[c]))
    led = t.led
    wi = winner_index(cards)
    win_power = power(cards[wi], led) if wi >= 0 else 0
    pts = trick_points(cards)
    last = len(cards) == PLAYERS - 1
    followers = [c for c in legal if SUIT_CLASS[c] == led]
    if not followers:
        # Void: dump the most points (a lone ace or ten first).
        lens = _suit_lens(t.hand)
        return max(legal, key=lambda c: (POINTS[c], -lens[SUIT_CLASS[c]]))
    losers = [c for c in legal if power(c, led) <= win_power]
    winners = [c for c in legal if power(c, led) > win_power]
    if not have_trick and winners and last and pts <= 4:
        return min(winners, key=lambda c: (POINTS[c], STRENGTH[c]))
    if losers:
        # Duck with the highest card that still loses.
        return max(
            losers, key=lambda c: (STRENGTH[c] if c in _TRUMP_SET else power(c, led), POINTS[c])
        )
    return min(winners, key=lambda c: (POINTS[c], -STRENGTH[c]))
