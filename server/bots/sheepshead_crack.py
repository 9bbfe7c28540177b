"""The searched crack decision (SS-10.4) of the Sheepshead ``strong`` and ``expert`` bots.

A crack doubles what the hand is worth for both sides, so cracking is right exactly when this
seat expects to win the hand: the search samples complete deals from the crack-phase view
(:class:`~server.bots.sampling.SheepsheadSampler`, which replays the crack round so far), plays
each choice out to the end of the hand on the same samples (every seat by the heuristics: the
later seats crack and the picker re-cracks by ``basic``'s rule, the cards by the playout policy),
and compares the units this seat wins at the stakes each choice leads to.

The seats that decided before this one (declined, or cracked: the picker answering a crack) did
so under a model of their play (``basic``'s crack rule): a sample that gives one of them a hand
the model would have decided otherwise with is kept only with
:data:`~server.bots.sampling.OFF_MODEL` likelihood. The picker's pick counts once more here (the
sampler already weighs it once): a sample that gives the picker a hand the model would not have
picked with makes the defence look better than it is, and a crack on that doubles a loss.

Not deciding on noise: cracking (or re-cracking) adds stakes to an uncertain hand, so it needs
the paired difference of the two choices over the samples to clear :data:`CRACK_MARGIN` units
plus :data:`CRACK_Z` standard errors; otherwise the stakes stay as they are.
"""

from __future__ import annotations

import math
import random
import statistics

from protocol.views import SheepsheadView
from server.bots.base import Deadline, seat_of
from server.bots.sampling import (
    OFF_MODEL,
    SheepsheadSampler,
    action_likelihood,
    crack_decisions,
)
from server.bots.sheepshead_bidding import Sequential, finish
from server.bots.sheepshead_policy import should_crack
from server.rules.base import Action
from server.rules.sheepshead import Sheepshead

CRACK = Action("crack")
NO_CRACK = Action("no_crack")
#: The doubling choice must beat declining by this many units per hand (at the stakes the
#: choice leads to) ...
CRACK_MARGIN = 0.1
#: ... plus this many standard errors of the paired difference over the samples (one-sided,
#: about 90 %).
CRACK_Z = 1.28
#: Tries per kept sample when the seats that decided before make a sample unlikely.
TRIES = 12


def round_likelihood(
    g: Sheepshead, decisions: list[tuple[int, Action]], me: int, pick: float = 1.0
) -> float:
    """How likely the crack round so far (``decisions``, as :func:`crack_decisions` gives
    them) is under ``basic``'s crack rule for the sampled hands, times ``pick`` (the picker's
    pick once more); ``me``, whose hand is known, is left out."""
    w = pick
    for s, action in decisions:
        if s != me and should_crack(g.hand(s), g.partner == s) != (action == CRACK):
            w *= OFF_MODEL
    return w


def choose_crack(
    view: SheepsheadView,
    rng: random.Random,
    samples: int,
    deadline: Deadline,
    sequential: Sequential | None = None,
) -> Action:
    """``crack`` or ``recrack`` when the simulated doubled hand beats declining by the margin
    (see the module doc), else ``no_crack``; stops at ``deadline`` after one sample. With
    ``sequential``, draws up to its cap instead of ``samples``, and stops once the paired
    difference is clearly above or below the margin (:meth:`Sequential.clear`)."""
    me = seat_of(view)
    legal = [Action.from_json(a) for a in view["legal"]]
    double = next(a for a in legal if a != NO_CRACK)
    sampler = SheepsheadSampler(view)
    picker = view["picker"]
    assert picker is not None  # SS-10.4: no crack round in a leaster
    decisions = crack_decisions(view, picker)
    diffs: list[float] = []
    if sequential is not None:
        samples = sequential.cap(2)
    for _ in range(samples):
        if diffs and deadline.passed():
            break
        if (
            sequential is not None
            and len(diffs) >= sequential.first
            and (len(diffs) - sequential.first) % sequential.step == 0
            and sequential.clear([diffs, [0.0] * len(diffs)], 1, CRACK_MARGIN)
        ):
            break
        g = draw(sampler, rng, decisions, me)
        if g is None:
            continue
        seed = rng.getrandbits(32)
        values = []
        for action in (double, NO_CRACK):
            child = g.clone()
            child.apply(me, action)
            finish(child, random.Random(seed))
            result = child.outcome()
            assert result is not None
            values.append(float(result.units[me]))
        diffs.append(values[0] - values[1])
    if len(diffs) < 2:
        return NO_CRACK
    mean = statistics.fmean(diffs)
    se = statistics.stdev(diffs) / math.sqrt(len(diffs))
    return double if mean > CRACK_MARGIN + CRACK_Z * se else NO_CRACK


def draw(
    sampler: SheepsheadSampler,
    rng: random.Random,
    decisions: list[tuple[int, Action]],
    me: int,
) -> Sheepshead | None:
    """A sample kept with the likelihood of the crack round so far (the last one if every try
    was unlikely)."""
    last: Sheepshead | None = None
    for _ in range(TRIES):
        g = sampler.sample(rng)
        if g is None:
            continue
        last = g
        picker = g.picker
        assert picker is not None  # SS-10.4: no crack round in a leaster
        pick = 1.0
        if picker != me:
            position = len(sampler.view["passed"])
            pick = action_likelihood(sampler.dealt[picker], position, picked=True)
        w = round_likelihood(g, decisions, me, pick)
        if w >= 1.0 or rng.random() < w:
            return g
    return last
