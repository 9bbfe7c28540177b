"""The ``strong`` and ``expert`` Sheepshead bots: Monte Carlo search over determinised deals.

Card play: for each decision it samples hidden deals consistent with its view
(:class:`~server.bots.sampling.SheepsheadSampler`), and on each sample scores every legal card:
the hand is finished by heuristic playouts for all seats, or solved exactly (team minimax on the
units this seat wins) once two tricks or fewer remain (``expert``: three). Each sample is
weighted by how likely the cards the others played were under the model of their play
(:meth:`~server.bots.sampling.SheepsheadSampler.sample_weighted`); the card with the best
weighted mean units wins, unless it breaks a table convention
(:mod:`server.bots.sheepshead_conventions`) and the best card that keeps it is valued within
:data:`PRIOR_MARGIN` of it: then that card. The lead conventions a partner reads as a mistake
whatever the cards (the partner leads trump, a defender leads fail) bind: only the cards that
keep them are searched (:func:`~server.bots.sheepshead_conventions.candidates`).

Bidding (pick or pass, bury, call, and with the jack of diamonds the jack's partner or alone):
by simulation over deals sampled from its view, each candidate played out to the end of the hand
(:mod:`server.bots.sheepshead_bidding`), with more samples where the choice is close
(:class:`~server.bots.sheepshead_bidding.Sequential`). Cracks and re-cracks (SS-10.4)
likewise, at the stakes each choice leads to, with a margin (:mod:`server.bots.sheepshead_crack`).

``strong`` has a budget of samples per decision, so the same seed gives the same decisions, and a
safety deadline it never reaches on a quiet machine; ``expert`` searches until its time budget
(default 1 s) runs out. Past its deadline either answers with its best choice so far.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from protocol.views import SheepsheadView, View, sheepshead_view
from server.bots.base import EXPERT_SECONDS, SAFETY_SECONDS, Deadline, seat_of
from server.bots.halving import best, resolve, schedule, weighted_mean
from server.bots.sampling import SheepsheadSampler
from server.bots.sheepshead_basic import SheepsheadBasicBot, table_from_view
from server.bots.sheepshead_bidding import Bidder, Sequential
from server.bots.sheepshead_conventions import candidates, choose_conventional, convention
from server.bots.sheepshead_crack import choose_crack
from server.bots.sheepshead_rollout import EXACT_CARDS, evaluate
from server.rules.base import Action
from server.rules.sheepshead import PLAY

#: Default budget: playouts per card play, shared among the legal cards (tuned so a decision
#: stays well under 250 ms at p99 on a 2-core machine).
DEFAULT_ITERATIONS = 120
#: In a leaster (SS-8) the cards' values lie a few tenths of a unit apart, and 120 playouts
#: decide on noise: this many times the budget there (``expert``'s cap, which its time budget
#: ends first, barely changes).
LEASTER_FACTOR = 3
#: Sampled deals per bidding decision (each plays out every candidate), and how many of the
#: heuristic's best burials are compared.
DEFAULT_BID_SAMPLES = 64
DEFAULT_BURY_CANDIDATES = 4
#: Sequential bidding: at least half the samples above, more while the choice is close, up to
#: 256 playouts a decision (128 samples of pick against pass).
DEFAULT_BID_SEQUENTIAL = Sequential(first=32, playouts=256)

#: The conventional card (:mod:`server.bots.sheepshead_conventions`) is played unless the
#: search values another this many units per hand above the best conventional one: small gains
#: the playouts find against ``basic`` are not worth a play a partner reads as a mistake (0.25
#: and 0.5 still broke the conventions too often).
PRIOR_MARGIN = 1.0

#: Added to the sampled value of picking (units per hand) before pick and pass are compared.
#: The bidding's playouts play this bot's own later cards by the convention policy, but the bot
#: plays them by search, which gains more as the picker than as a defender, so the sampled
#: value of picking is low. Learned from its own results, each close pass replayed as a pick on
#: the same deals (server/tools/pick_value.py): 0.5 gained +0.037 (+0.012 .. +0.062)
#: units/hand against four ``basic`` over 800 deals.
PICK_BONUS = 0.5

#: ``expert``: at most this many more samples per card play for the close call (each plays the
#: two contenders out), past ``strong``'s plan; a bidding decision draws ``strong``'s first
#: samples, then more while it is close, up to the cap (both rarely reached within 1 s).
EXPERT_ITERATIONS = 240
EXPERT_BID_SAMPLES = 2_000
#: ``expert``: the lead the search's runner-up needs over its best to replace it after the
#: close call (a smaller one is not worth samples: two cards that tie on every sample).
CLOSE_MARGIN = 0.05
#: ``expert``: standard errors a lead must pass to settle the close call (as Shithead's).
SURE = 2.0
#: ``expert`` solves the last three tricks exactly (a few ms per sample; ``strong`` two).
EXPERT_EXACT_CARDS = 3


class SheepsheadStrongBot:
    """Determinised Monte Carlo search for card play and bidding."""

    def __init__(
        self,
        seed: int | None = None,
        iterations: int = DEFAULT_ITERATIONS,
        bid_samples: int = DEFAULT_BID_SAMPLES,
        bury_candidates: int = DEFAULT_BURY_CANDIDATES,
        seconds: float | None = SAFETY_SECONDS,
        exact_cards: int = EXACT_CARDS,
        prior_margin: float = PRIOR_MARGIN,
        bid_sequential: Sequential | None = DEFAULT_BID_SEQUENTIAL,
        pick_bonus: float = PICK_BONUS,
        leaster_factor: int = LEASTER_FACTOR,
    ) -> None:
        self.rng = random.Random(seed)
        self.prior_margin = prior_margin
        self.iterations = iterations
        self.leaster_factor = leaster_factor
        self.exact_cards = exact_cards
        self.seconds = seconds
        self.basic = SheepsheadBasicBot(seed)
        self.bidder = Bidder(self.rng, bid_samples, bury_candidates, bid_sequential)
        self.bidder.pick_bonus = pick_bonus

    def choose(self, view: View) -> Action:
        view = sheepshead_view(view)
        legal = view["legal"]
        if not legal:
            raise ValueError("this view has no legal action: it is not this seat's turn")
        deadline = Deadline(self.seconds)
        if len(legal) == 1:
            return Action.from_json(legal[0])
        if view["phase"] == "crack":
            return choose_crack(
                view, self.rng, self.bidder.samples, deadline, self.bidder.sequential
            )
        if view["phase"] != "play":
            return self.bidder.choose(view, self.basic.choose(view), deadline)
        # only the cards that keep a binding lead convention are searched (the others'
        # values are not worth their samples: the partner would not play them)
        cards = candidates(table_from_view(view))
        if len(cards) == 1:
            return Action("play", (cards[0],))
        return Action("play", (self.search(view, cards, deadline),))

    def search(
        self, view: SheepsheadView, cards: list[int], deadline: Deadline | None = None
    ) -> int:
        """The card with the best weighted mean units over sampled deals, every card played out
        on the same samples in one round (sequential halving, measured, did worse here); stops at
        ``deadline`` (after one sample) with the best so far."""
        me = seat_of(view)
        sampler = SheepsheadSampler(view)
        rng = self.rng
        fallback = choose_conventional(table_from_view(view), rng)

        def draw() -> tuple[Callable[[int], float], float] | None:
            found = sampler.sample_weighted(rng)
            if found is None:
                return None
            game, w = found

            def value(j: int) -> float:
                child = game.clone()
                child.apply(me, PLAY[cards[j]])
                return evaluate(child, me, rng, self.exact_cards)

            return value, w

        budget = self.iterations * (self.leaster_factor if view["leaster"] else 1)
        plan = schedule(len(cards), budget, halving=False)
        means: dict[int, float] = {}
        found = best(
            range(len(cards)),
            plan,
            deadline or Deadline(None),
            draw,
            cards.index(fallback),
            means,
        )
        return cards[self.prior(view, cards, found, means)]

    def prior(
        self, view: SheepsheadView, cards: list[int], found: int, means: dict[int, float]
    ) -> int:
        """The search's choice ``found``, unless it breaks the convention of the position and
        the best card that keeps it is valued within :attr:`prior_margin` of it."""
        conv = convention(table_from_view(view))
        if conv is None or cards[found] in conv[1] or found not in means:
            return found
        kept = [j for j in means if cards[j] in conv[1]]
        if not kept:
            return found
        k = max(kept, key=means.__getitem__)
        return k if means[found] - means[k] <= self.prior_margin else found


class SheepsheadExpertBot(SheepsheadStrongBot):
    """``strong``'s search, then, where its answer is a close call, more samples for the two
    contenders until the choice between them is settled either way
    (:func:`~server.bots.halving.settled`), ``iterations`` samples are drawn or the time budget
    (default 1 s per decision) runs out: forced, tied and clear decisions cost what ``strong``'s
    do (a time budget for every decision spent it mostly where nothing was in doubt).
    The contenders: the search's best card and, where it breaks the table's convention, the best
    card that keeps it (at :attr:`prior_margin`), else its runner-up (at :data:`CLOSE_MARGIN`).
    The bidding likewise: ``strong``'s first samples, more only while the choice is close."""

    def __init__(
        self,
        seed: int | None = None,
        seconds: float = EXPERT_SECONDS,
        iterations: int = EXPERT_ITERATIONS,
        bid_samples: int = EXPERT_BID_SAMPLES,
    ) -> None:
        super().__init__(
            seed,
            bid_samples=bid_samples,
            seconds=seconds,
            exact_cards=EXPERT_EXACT_CARDS,
            # strong's first samples, then up to ``bid_samples`` of pick against pass
            bid_sequential=Sequential(DEFAULT_BID_SEQUENTIAL.first, 2 * bid_samples),
        )
        self.extra_samples = iterations

    def search(
        self, view: SheepsheadView, cards: list[int], deadline: Deadline | None = None
    ) -> int:
        """``strong``'s search (its plan), then :func:`~server.bots.halving.resolve` on the
        close call, both by ``deadline`` (the plan itself solves three tricks exactly, which can
        take past 1 s: a floor of ``strong``'s safety ceiling made p99 2 s); the card by the
        weighted means then, as ``strong`` picks."""
        me = seat_of(view)
        sampler = SheepsheadSampler(view)
        rng = self.rng
        fallback = choose_conventional(table_from_view(view), rng)
        values: list[dict[int, float]] = [{} for _ in cards]  # per card: sample -> units
        weights: dict[int, float] = {}  # sample -> importance weight
        drawn = 0

        def draw() -> tuple[Callable[[int], float], float] | None:
            nonlocal drawn
            found = sampler.sample_weighted(rng)
            if found is None:
                return None
            game, w = found
            k, drawn = drawn, drawn + 1
            weights[k] = w

            def value(j: int) -> float:
                child = game.clone()
                child.apply(me, PLAY[cards[j]])
                v = values[j][k] = evaluate(child, me, rng, self.exact_cards)
                return v

            return value, w

        budget = self.iterations * (self.leaster_factor if view["leaster"] else 1)
        plan = schedule(len(cards), budget, halving=False)
        deadline = deadline or Deadline(None)
        means: dict[int, float] = {}
        found = best(range(len(cards)), plan, deadline, draw, cards.index(fallback), means)
        chosen = self.prior(view, cards, found, means)
        close = self._close_call(view, cards, found, chosen, means)
        if close is None:
            return cards[chosen]
        pair, margin, runner_up = close
        resolve(
            pair,
            values,
            draw,
            self.extra_samples,
            deadline,
            z=SURE,
            margin=margin,
            weights=weights,
        )
        means.update({j: weighted_mean(values[j], weights) for j in pair})
        challenger, incumbent = pair
        if runner_up:  # it replaces the choice only with a lead of the margin
            lead = means[challenger] - means[incumbent]
            found = challenger if lead >= CLOSE_MARGIN else incumbent
        # the convention's prior as strong applies it: a runner-up that breaks it needs more
        return cards[self.prior(view, cards, found, means)]

    def _close_call(
        self,
        view: SheepsheadView,
        cards: list[int],
        found: int,
        chosen: int,
        means: dict[int, float],
    ) -> tuple[tuple[int, int], float, bool] | None:
        """The pair to resolve (challenger, incumbent), the lead the challenger needs and
        whether it is the runner-up, or ``None`` if there is no pair (a tie or a clear lead
        counts as settled in :func:`resolve`, which then draws nothing): where the search's
        best breaks the convention and the conventional card was weighed against it, those two
        at :attr:`prior_margin` (:meth:`prior`); else the runner-up against the choice."""
        if len(means) < 2 or chosen not in means:
            return None
        conv = convention(table_from_view(view))
        if conv is not None and cards[found] not in conv[1]:
            kept = [j for j in means if cards[j] in conv[1]]
            if kept:
                return (found, max(kept, key=means.__getitem__)), self.prior_margin, False
        rival = max((j for j in means if j != chosen), key=means.__getitem__)
        return (rival, chosen), CLOSE_MARGIN, True
