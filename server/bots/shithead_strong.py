"""The ``strong`` and ``expert`` Shithead bots: Monte Carlo search over determinised positions.

The swap phase and face-down flips use the ``basic`` heuristics (a flip is a blind choice). For
any other decision with a real choice, each candidate action (one per rank and number of cards:
suits never matter) is tried on positions sampled from the view
(:func:`~server.bots.sampling.sample_shithead`), and the game is played on by the heuristic
policy for every seat, to its end or for ``horizon`` actions, where the chance of losing is
estimated from the cards each player still holds. The action with the lowest mean chance of
losing wins if it is clearly ahead of the usual play (:data:`SURE`), else the usual play does;
every candidate's playout on a sample flips the same face-down cards (common random numbers),
and the playouts go mostly to the close contenders (sequential halving,
:mod:`server.bots.halving`). ``strong``'s budget is a number of playouts per decision
(``iterations``), so the same seed gives the same decisions, with a safety deadline it never
reaches on a quiet machine; ``expert`` does that search, then, where the choice between the usual
play and the search's best other action is a close call, plays those two out on more samples
until it is clear (:func:`~server.bots.halving.resolve`), up to a sample cap and its time budget
(default 1 s). Past its deadline either answers with its best action so far.

It remembers every card it has seen in public during the game: a card once seen and now nowhere
in public has been burned, which sharpens the samples (the view alone still suffices). Once the
stock is gone it also notes the top of each pile another seat took: under the model of
``basic``, who picks up only when nothing goes on the pile, that seat's unseen cards could not
go on it under the house rules in force (:data:`~server.bots.sampling.SHITHEAD_BELIEFS`; with
``seven_lower`` a 7 taken means cards above 7, with glass 3s the card under the 3s counts).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable

from protocol.cards import TWO, parse_cards
from protocol.messages import ShitheadOptions
from protocol.views import ShitheadView, View, shithead_view
from server.bots.advice import HINT_MARGIN, Advice
from server.bots.base import EXPERT_SECONDS, SAFETY_SECONDS, Deadline, seat_of
from server.bots.halving import best, clearly_ahead, resolve, schedule
from server.bots.sampling import card_to_beat, could_play_on, sample_shithead, shithead_public
from server.bots.shithead_basic import (
    RepeatGuard,
    ShitheadBasicBot,
    rules_of,
    usual_play,
)
from server.bots.shithead_policy import choose_play, face_up_value
from server.rules.base import Action
from server.rules.shithead import Shithead

#: Default budget: playouts per decision, shared among the candidate actions (p99 about 160 ms
#: of CPU on this project's 2-core machine).
DEFAULT_ITERATIONS = 192
#: Actions per playout before the position is scored by the cards held: most playouts reach
#: the end of the game (a 60-action horizon, scored by the cards held, lost more often).
DEFAULT_HORIZON = 150
#: How sharply the estimated chance of losing follows the cards still held.
SHARPNESS = 0.35
#: How many standard errors of the paired difference (over the samples both were played out
#: on) the search's best must lead the usual play by before it is played instead: a lead by
#: a hair is mostly noise, and playing it breaks the conventions players expect.
SURE = 2.0
#: ``expert``: at most this many more samples per decision for the close call (each plays the
#: two contenders out), so a decision costs at most about five times ``strong``'s.
EXPERT_ITERATIONS = 240


def _held(g: Shithead, s: int) -> int:
    down = g.face_down[s]  # on the playouts' hot path: count, not a generator
    return len(g.hands[s]) + len(g.face_up[s]) + len(down) - down.count(None)


def _danger(g: Shithead, seat: int) -> bool:
    """Whether the next active seat after ``seat`` is about to go out (no stock, two cards or
    fewer)."""
    if g.stock:
        return False
    n, out = g.num_players, g.out
    s = (seat + 1) % n
    while s != seat:
        if s not in out:
            return _held(g, s) <= 2
        s = (s + 1) % n
    return False


def loss_chance(g: Shithead, me: int) -> float:
    """1 if ``me`` lost, 0 if out; otherwise a softmax of the cards each active seat holds."""
    if me in g.out:
        return 0.0
    if g.is_over():
        return 1.0
    active = [s for s in range(g.num_players) if s not in g.out]
    weights = {s: math.exp(SHARPNESS * (_held(g, s) + 0.5 * len(g.hands[s]))) for s in active}
    return weights[me] / sum(weights.values())


def playout(g: Shithead, me: int, horizon: int, rng: random.Random) -> float:
    """Play on ``g`` in place with the heuristic policy; the chance that ``me`` loses."""
    stock, out, pile = g.stock, g.out, g.pile  # the game's own lists, updated in place
    for _ in range(horizon):
        if g.is_over() or me in out:
            break
        seat = g.turn
        legal = g.legal_actions(seat)
        if len(legal) == 1:
            action = legal[0]
        else:
            action = choose_play(
                legal,
                pile,
                rng,
                not stock and _danger(g, seat),
                rules=g.options,
                crowd=g.num_players - len(out) >= 3,
            )
        g.apply(seat, action)
    return loss_chance(g, me)


def candidates(legal: list[Action], default: Action | None = None) -> list[Action]:
    """The actions worth comparing: one play per rank and number of cards (suits never
    matter, SH-1.1; ``default`` stands for its kind when it is one), and one pick-up (adding
    the least useful face-up card when a card must be added).

    >>> legal = [Action.from_str(s) for s in ("play 7C", "play 7H", "play 7C 7H", "pickup")]
    >>> [a.to_str() for a in candidates(legal, Action.from_str("play 7H"))]
    ['play 7H', 'play 7C 7H', 'pickup']
    """
    kinds: dict[tuple[int, int], Action] = {}
    for a in legal:
        if a.kind == "play":
            key = (a.cards[0] >> 2, len(a.cards))
            if key not in kinds or a == default:
                kinds[key] = a
    plays = list(kinds.values())
    pickups = [a for a in legal if a.kind == "pickup"]
    if pickups:
        plays.append(min(pickups, key=lambda a: face_up_value(a.cards[0]) if a.cards else -1))
    return plays


def blocked(top: int, rules: ShitheadOptions) -> int:
    """How many ranks cannot go on ``top`` under ``rules``: the fewer, the more a pick-up on it
    tells (under the book a lower card; with ``seven_lower`` a 7 blocks 8 to A)."""
    return sum(not could_play_on(r * 4, top, rules) for r in range(13))


class ShitheadStrongBot:
    """Determinised Monte Carlo search with heuristic playouts."""

    def __init__(
        self,
        seed: int | None = None,
        iterations: int = DEFAULT_ITERATIONS,
        horizon: int = DEFAULT_HORIZON,
        seconds: float | None = SAFETY_SECONDS,
    ) -> None:
        self.rng = random.Random(seed)
        self.iterations = iterations
        self.horizon = horizon
        self.seconds = seconds
        self.extra_samples = 0  # expert: samples for the finalists past strong's plan
        self.basic = ShitheadBasicBot(seed)
        self.guard = RepeatGuard()
        self.remembered: set[int] = set()
        self.burned_count = -1
        self.picked_on: dict[int, int] = {}  # seat -> top of a pile it took after the stock
        self.counts: list[int] | None = None  # hand counts at this seat's last turn, no stock

    def _remember(self, view: ShitheadView) -> set[int]:
        """Cards known to be burned; the memory restarts with each game."""
        if view["phase"] == "swap" or view["burned"] < self.burned_count:
            self.remembered.clear()
            self.picked_on.clear()
            self.counts = None
        self.burned_count = view["burned"]
        self._note_pickups(view)
        public = shithead_public(view)
        self.remembered |= public
        return self.remembered - public

    def _note_pickups(self, view: ShitheadView) -> None:
        """With the stock gone, a hand grows only by taking the pile, and between two turns of
        this seat each other seat acts once, so its last known card is the top it took; its
        unseen cards were in its hand then, and stay the only unseen ones (no more draws)."""
        seats = view["seats"]
        rules = rules_of(view)
        if self.counts is not None and view["phase"] == "play":
            for s, info in enumerate(seats):
                if s == view["seat"] or info["out"] or not info["known_in_hand"]:
                    continue
                grew = info["hand_count"] - self.counts[s]
                if grew > 0:
                    # the pile taken lies at the end of what is known of the hand; under glass
                    # 3s (SH-7.4) the card it could not beat is the topmost that is not a 3
                    taken = parse_cards(info["known_in_hand"][-grew:])
                    top = card_to_beat(taken, rules)
                    if top is None or top >> 2 == TWO:
                        continue  # anything went on it: a pick-up there says nothing
                    old = self.picked_on.get(s)
                    if old is None or blocked(top, rules) < blocked(old, rules):
                        self.picked_on[s] = top
        stockless = view["phase"] == "play" and view["stock"] == 0
        self.counts = [info["hand_count"] for info in seats] if stockless else None

    def choose(self, view: View) -> Action:
        """The usual play unless the search puts another action clearly ahead, as a hint
        would (:meth:`Advice.settle`): a pick-up with a play in hand, or a 2 or a 10 where an
        ordinary card plays, only when it is clearly right (taking the search's best by a hair
        broke those conventions in a fifth of the chances, mostly on noise)."""
        return self.advise(view)[0]

    def advise(self, view: View) -> tuple[Action, Advice | None]:
        """A hint: the usual play (``basic``'s rule of thumb) unless the search puts another
        action clearly ahead (:meth:`Advice.settle`), with what the search found; ``None``
        where nothing was searched (the swap, a flip, a single candidate)."""
        action, advice = self._decide(view, {})
        return (action, None) if advice is None else (advice.settle(action), advice)

    def _decide(self, view: View, means: dict[int, float] | None) -> tuple[Action, Advice | None]:
        view = shithead_view(view)
        legal = [Action.from_json(a) for a in view["legal"]]
        if not legal:
            raise ValueError("this view has no legal action: it is not this seat's turn")
        deadline = Deadline(self.seconds)
        burned = self._remember(view)
        if view["phase"] == "swap" or legal[0].kind == "flip":
            return self.basic.choose(view), None
        default = usual_play(view, legal)
        cands = candidates(legal, default)
        if len(cands) == 1:
            return cands[0], None
        if self.guard.repeats(view):
            return legal[self.rng.randrange(len(legal))], None
        found = self.search(view, cands, burned, default, deadline, means)
        if means is None:
            return found, None
        losses = tuple((cands[j], 0.0 - v) for j, v in sorted(means.items()))
        return found, Advice(default, losses)

    def search(
        self,
        view: ShitheadView,
        cands: list[Action],
        burned: set[int],
        default: Action,
        deadline: Deadline | None = None,
        means: dict[int, float] | None = None,
    ) -> Action:
        """The candidate with the lowest mean chance of losing, the playouts shared by
        sequential halving (:mod:`server.bots.halving`), if it is clearly ahead of ``default``
        (:data:`SURE`), else ``default``; stops at ``deadline`` (after one sample) with the
        best so far. ``means`` receives each candidate's mean value (minus its chance of
        losing)."""
        me = seat_of(view)
        rng = self.rng
        values: list[dict[int, float]] = [{} for _ in cands]  # per candidate: sample -> value
        drawn = 0

        def draw() -> tuple[Callable[[int], float], float]:
            nonlocal drawn
            k, drawn = drawn, drawn + 1
            base = sample_shithead(view, rng, burned, self.picked_on)
            # common random numbers: every candidate's playout flips the same face-down cards,
            # so two actions that lead to the same game tie exactly and the tie goes to the
            # usual play; one shared stream let the flips' luck pick among them
            seed = rng.getrandbits(64)

            def value(j: int) -> float:
                g = base.clone()
                g.apply(me, cands[j])
                v = values[j][k] = -playout(g, me, self.horizon, random.Random(seed))
                return v

            return value, 1.0

        plan = schedule(len(cands), self.iterations)
        preferred = cands.index(default) if default in cands else None
        deadline = deadline or Deadline(None)
        then = deadline
        if self.extra_samples:  # expert: strong's whole search first, then the close call
            floor = max(SAFETY_SECONDS, self.seconds or 0.0)  # a long budget: reproducible
            deadline = Deadline(floor)
        found = best(range(len(cands)), plan, deadline, draw, preferred, means)
        if preferred is None:
            return cands[found]
        if self.extra_samples:
            pair = (self._challenger(found, preferred, values), preferred)
            if pair[0] != preferred:
                # the question a hint settles (Advice.settle): does the challenger lead the usual
                # play by the hint's margin, by SURE standard errors?
                resolve(pair, values, draw, self.extra_samples, then, z=SURE, margin=HINT_MARGIN)
                found = pair[0]
                if means is not None:  # over the samples both have: what was resolved
                    common = values[found].keys() & values[preferred].keys()
                    for j in pair:
                        means[j] = math.fsum(values[j][k] for k in common) / len(common)
        if clearly_ahead(values[found], values[preferred], SURE):
            return cands[found]
        return default

    @staticmethod
    def _challenger(found: int, preferred: int, values: list[dict[int, float]]) -> int:
        """The candidate the usual play (``preferred``) must be weighed against: the search's
        best, or when that is the usual play, the best of the others among the finalists (the
        candidates played out on the most samples); ``preferred`` if there is none."""
        if found != preferred:
            return found
        most = max(len(v) for v in values)
        rivals = [j for j, v in enumerate(values) if j != preferred and v and len(v) == most]
        return max(rivals, key=lambda j: math.fsum(values[j].values())) if rivals else preferred


class ShitheadExpertBot(ShitheadStrongBot):
    """``strong``'s search, then, where its answer is a close call, more samples for the two
    contenders (the usual play and the search's best other action) until the choice is
    settled either way (:func:`~server.bots.halving.settled`), ``iterations`` samples are drawn
    or the time budget (default 1 s per decision) runs out; forced, tied and clear decisions
    cost what ``strong``'s do. Spreading the budget over every decision's finalists changed
    4 – 7 of 60 decisions at 14 s of CPU a game."""

    def __init__(
        self,
        seed: int | None = None,
        seconds: float = EXPERT_SECONDS,
        iterations: int = EXPERT_ITERATIONS,
    ) -> None:
        super().__init__(seed, seconds=seconds)
        self.extra_samples = iterations
