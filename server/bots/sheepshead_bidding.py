"""Bidding by simulation: pick or pass, the two cards to bury, and the call.

For a pick-, bury- or call-phase view, :class:`BidDealer` deals the cards the view does not
show (the other hands and, before a pick, the blind) and rebuilds the hand from the public
history, so every rule of the core applies to the sample. Each candidate decision is then played
out on the same samples (common random numbers) by the heuristic policy for every seat: the
others pick or pass by ``basic``'s rule, every picker buries and calls by the heuristics, and
the cards are played by :func:`~server.bots.sheepshead_rollout.playout`. The candidate with the
best mean units for this seat wins; the heuristic's own choice wins ties and near-ties, since the
maximum of noisy means flatters the others.

Beliefs: a seat that passed did so under a model of its play (``basic``'s pick rule); a sample
is kept with the likelihood of the seen passes
(:func:`~server.bots.sampling.bidding_likelihood`).

The budget is a number of samples (the same seed gives the same decisions) and an optional
deadline: past it the search stops and answers with the best candidate so far. With
:class:`Sequential` sampling the number of samples follows how close the choice is: few on a
clear hand, more up to a cap where another candidate is within noise of the margin.
"""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from protocol.cards import parse_cards
from protocol.messages import SheepsheadOptions
from protocol.views import SheepsheadView
from server.bots.base import Deadline, hand_of, seat_of
from server.bots.sampling import bidding_likelihood
from server.bots.sheepshead_basic import choose_call, unknown_key
from server.bots.sheepshead_policy import (
    PLAYERS,
    choose_bury,
    rank_burials,
    should_crack,
    should_pick,
    should_recrack,
)
from server.bots.sheepshead_rollout import playout
from server.rules.base import Action, IllegalAction, frozen_reduce
from server.rules.sheepshead import PASS, PICK, Sheepshead
from server.rules.sheepshead_cards import DECK32

C = TypeVar("C")

#: A candidate must beat the heuristic's choice by this many units per hand to replace it.
MARGIN = 0.05


def finish(g: Sheepshead, rng: random.Random) -> None:
    """Play ``g`` to its end in place with the heuristics for every seat and every phase."""
    while not g.is_over():
        seat = g.turn
        phase = g.phase
        if phase == "pick":
            legal = g.legal_actions(seat)  # SS-10.3 forced: the dealer may have only pick
            pick = len(legal) == 1 or should_pick(g.hand(seat), g.passes)
            g.apply(seat, PICK if pick else PASS)
        elif phase == "bury":
            g.apply(seat, Action("bury", choose_bury(g.hand(seat))))
        elif phase == "call":
            g.apply(seat, choose_call(g.hand(seat), g.legal_actions(seat)))
        elif phase == "crack":
            g.apply(seat, crack_in_game(g, seat))
        else:
            playout(g, rng)


def crack_in_game(g: Sheepshead, seat: int) -> Action:
    """``basic``'s crack rule (SS-10.4) for ``seat`` of a simulated hand."""
    hand = g.hand(seat)
    if g.cracked is not None:
        return Action("recrack") if should_recrack(hand) else Action("no_crack")
    partner = g.partner is not None and g.partner == seat
    return Action("crack") if should_crack(hand, partner) else Action("no_crack")


class BidDealer:
    """Samples complete hands consistent with one pick-, bury- or call-phase view."""

    def __init__(self, view: SheepsheadView) -> None:
        self.me = seat_of(view)
        self.dealer: int = view["dealer"]
        self.passed: list[int] = list(view["passed"])
        self.phase: str = view["phase"]
        # SS-10: simulate under the house rules in force, at the stakes the hand carries
        self.options = SheepsheadOptions.model_validate(view["options"])
        self.multiplier: int = view["multiplier"]
        hand = parse_cards(hand_of(view))
        self.buried = parse_cards(view["buried"]) if view["buried"] else []
        blind = parse_cards(view["blind"]) if view["blind"] else []
        if self.phase == "pick":
            self.six = hand
            self.blind: list[int] = []
        else:
            # The picker: its dealt six are what it holds now, less the blind it took.
            self.six = [c for c in [*hand, *self.buried] if c not in blind]
            self.blind = blind
        known = set(self.six) | set(self.blind)
        self.pool = [c for c in DECK32 if c not in known]

    def sample(self, rng: random.Random, tries: int = 30) -> Sheepshead | None:
        """A hand at the view's position; samples are kept with the likelihood of the other
        seats' actions so far (the last consistent one if every try was unlikely)."""
        last: Sheepshead | None = None
        for _ in range(tries):
            pool = list(self.pool)
            rng.shuffle(pool)
            hands: list[list[int]] = [[] for _ in range(PLAYERS)]
            it = iter(pool)
            for s in range(PLAYERS):
                hands[s] = list(self.six) if s == self.me else [next(it) for _ in range(6)]
            blind = self.blind or [next(it), next(it)]
            g = self._rebuild(hands, blind)
            if g is None:
                continue
            last = g
            w = bidding_likelihood(hands, self.passed, -1, self.me)
            if w >= 1.0 or rng.random() < w:
                return g
        return last

    def _rebuild(self, hands: list[list[int]], blind: list[int]) -> Sheepshead | None:
        deck: list[int] = []
        for i in range(PLAYERS):
            deck.extend(hands[(self.dealer + 1 + i) % PLAYERS])
        deck.extend(blind)
        g = Sheepshead(deck, self.dealer, options=self.options, multiplier=self.multiplier)
        try:
            for s in self.passed:
                g.apply(s, PASS)
            if self.phase != "pick":
                g.apply(self.me, PICK)
            if self.phase == "call":
                g.apply(self.me, Action("bury", tuple(self.buried)))
        except IllegalAction:
            return None
        return g


@dataclass(frozen=True, slots=True)
class Sequential:
    """Sequential sampling for a bidding decision: at least ``first`` samples, then ``step``
    more at a time while the decision is close, up to ``playouts`` playouts in all (so a
    decision among many candidates gets fewer samples each). Close: some candidate's paired
    difference from the default is within ``z`` standard errors of :data:`MARGIN`, so more
    samples could still change the answer; clear once every one is outside.

    >>> Sequential(32, 384).cap(2), Sequential(32, 384).cap(6), Sequential(32, 384).cap(20)
    (192, 64, 32)
    """

    first: int
    playouts: int
    step: int = 32
    z: float = 1.64

    def __reduce__(self) -> tuple[Any, tuple[object, ...]]:
        return frozen_reduce(self)  # compiled, its fields cannot be set one by one

    def cap(self, candidates: int) -> int:
        """The most samples a decision among ``candidates`` draws."""
        return max(self.first, self.playouts // max(candidates, 1))

    def clear(self, values: list[list[float]], default: int, margin: float = MARGIN) -> bool:
        """Whether the samples so far (``values[i]``: candidate ``i`` on each sample) settle
        the choice against candidate ``default`` (another must beat it by ``margin``)."""
        n = len(values[default])
        if n < max(self.first, 2):
            return False
        base = values[default]
        for i, vs in enumerate(values):
            if i == default:
                continue
            diffs = [a - b for a, b in zip(vs, base, strict=True)]
            se = statistics.stdev(diffs) / math.sqrt(n)
            if abs(statistics.fmean(diffs) - margin) < self.z * se:
                return False
        return True


def compare(
    sample: Callable[[random.Random], Sheepshead | None],
    candidates: Sequence[C],
    play: Callable[[Sheepshead, C, random.Random], float],
    samples: int,
    rng: random.Random,
    deadline: Deadline,
    sequential: Sequential | None = None,
    default: int = 0,
) -> tuple[list[float], int]:
    """Mean value of each candidate over up to ``samples`` sampled positions (each candidate on
    the same positions with the same playout seed), and how many samples were used. Stops early
    at ``deadline``, after at least one sample; with ``sequential``, draws up to its cap instead
    of ``samples`` and stops as soon as the choice against candidate ``default`` is clear."""
    values: list[list[float]] = [[] for _ in candidates]
    used = 0
    if sequential is not None:
        samples = sequential.cap(len(candidates))
    for _ in range(samples):
        if used and deadline.passed():
            break
        if (
            sequential is not None
            and used >= sequential.first
            and (used - sequential.first) % sequential.step == 0
            and sequential.clear(values, default)
        ):
            break
        g = sample(rng)
        if g is None:
            continue
        seed = rng.getrandbits(32)
        row: list[float] = []
        for cand in candidates:
            row.append(play(g.clone(), cand, random.Random(seed)))
            if used and deadline.passed():
                break
        if len(row) < len(candidates):
            break  # a half-done sample would favour the candidates tried first
        for vs, v in zip(values, row, strict=True):
            vs.append(v)
        used += 1
    return [sum(vs) / max(used, 1) for vs in values], used


def pick_best(candidates: Sequence[C], means: list[float], used: int, default: C) -> C:
    """The best candidate by mean; ``default`` unless another beats it by :data:`MARGIN`."""
    if not used:
        return default
    i_default = list(candidates).index(default)
    best = max(range(len(candidates)), key=lambda i: means[i])
    return candidates[best] if means[best] > means[i_default] + MARGIN else default


class Bidder:
    """Decides pick/pass, bury and call for one seat by simulation (see the module doc)."""

    def __init__(
        self,
        rng: random.Random,
        samples: int,
        bury_candidates: int,
        sequential: Sequential | None = None,
    ) -> None:
        self.rng = rng
        self.samples = samples
        self.bury_candidates = bury_candidates
        self.sequential = sequential
        self.pick_bonus = 0.0
        #: Samples the last decision drew (how close it was, for tests and measurements).
        self.used = 0
        #: The last pick decision's sampled means of pick and pass (before :attr:`pick_bonus`)
        #: and whether the heuristic would have picked, for server/tools/pick_value.py.
        self.last_pick: tuple[float, float, bool] | None = None

    def __reduce__(self) -> tuple[Any, tuple[object, ...]]:
        # compiled by mypyc, a bidder has no __dict__ for copy and pickle to fill: rebuilt from
        # its settings and state (a copied bot replays exactly: server/tools/leaster_value.py)
        state = (self.pick_bonus, self.used, self.last_pick)
        return _bidder, (self.rng, self.samples, self.bury_candidates, self.sequential, state)

    def choose(self, view: SheepsheadView, default: Action, deadline: Deadline) -> Action:
        """The decision for ``view``; ``default`` is the heuristic's (kept on ties)."""
        me = seat_of(view)
        dealer = BidDealer(view)
        legal = [Action.from_json(a) for a in view["legal"]]
        phase = view["phase"]
        candidates: list[Action]
        if phase == "pick":
            candidates = [PICK, PASS]
        elif phase == "bury":
            ranked = rank_burials(parse_cards(hand_of(view)))[: self.bury_candidates]
            candidates = [Action("bury", pair) for pair in ranked]
            default = candidates[0]
        else:
            candidates = call_candidates(legal)
            if default not in candidates:
                candidates.append(default)
        if len(candidates) == 1:
            return candidates[0]

        def play(g: Sheepshead, action: Action, rng: random.Random) -> float:
            g.apply(me, action)
            finish(g, rng)
            result = g.outcome()
            assert result is not None
            return float(result.units[me])

        means, used = compare(
            dealer.sample,
            candidates,
            play,
            self.samples,
            self.rng,
            deadline,
            self.sequential,
            candidates.index(default),
        )
        self.used = used
        if phase == "pick" and used:
            self.last_pick = (means[0], means[1], default == PICK)
            means[0] += self.pick_bonus
        return pick_best(candidates, means, used, default)


def call_candidates(legal: list[Action]) -> list[Action]:
    """Every ace or ten call and alone; of the unknown-card calls, per ace the two cards best to
    set aside by the heuristic (the rest rarely differ but cost time)."""
    out = [a for a in legal if a.kind in ("call", "alone", "jd_partner")]
    unknowns = sorted((a for a in legal if a.kind == "call_unknown"), key=unknown_key)
    per_ace: dict[int, int] = {}
    for a in unknowns:
        if per_ace.get(a.cards[0], 0) < 2:
            per_ace[a.cards[0]] = per_ace.get(a.cards[0], 0) + 1
            out.append(a)
    return out


def _bidder(
    rng: random.Random,
    samples: int,
    bury_candidates: int,
    sequential: Sequential | None,
    state: tuple[float, int, tuple[float, float, bool] | None],
) -> Bidder:
    """A :class:`Bidder` as :meth:`Bidder.__reduce__` gave it."""
    bidder = Bidder(rng, samples, bury_candidates, sequential)
    bidder.pick_bonus, bidder.used, bidder.last_pick = state
    return bidder
