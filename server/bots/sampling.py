"""Determinisation: complete positions, built from one seat's view, that agree with everything
the view shows. Search plays on these sampled positions, never on the real game.

Shithead: the cards the view does not place (other hands beyond their publicly known cards,
every face-down card, the stock, and burned cards not remembered) are dealt at random; burned
cards the bot saw on the pile and that are now nowhere public are known to be burned.

Sheepshead: the hidden cards (other hands, the buried pair or the leaster's blind, a face-down
unknown card) are dealt so that every void a seat revealed by not following suit holds, the
called card lies with a seat that could be the partner, and the picker keeps a card of the
called suit until it is led; the hand is then rebuilt by replaying the public history on a deal
that gives each seat its sampled cards, so every rule of the core applies to the sample.

Beliefs (Shithead): a seat that took the pile once the stock was gone had, under the model of
``basic``, no card that goes on it; its unseen cards are dealt among those that do not
(:data:`SHITHEAD_BELIEFS`).

Beliefs (Sheepshead): the seats' picks and passes were made under a model of their play
(``basic``'s pick rule). A sample whose dealt hands make a seen pass or pick unlikely under the
model is kept only with that likelihood (:func:`action_likelihood`): rejection sampling, so a
seat that passed is seldom given a hand it would have picked with. In the card play a sample is
also weighted by the likelihood of every card the other seats played, under ``basic``'s
card-play rule applied to what each seat could see then (:data:`PLAY_OFF_MODEL` for a card the
rule would not have played): importance weights rather than rejection, which would cost many
tries late in a hand.
"""

from __future__ import annotations

import random

from protocol.cards import CODES, SEVEN, TEN, THREE, TWO, parse_card, parse_cards
from protocol.messages import SheepsheadOptions, ShitheadOptions
from protocol.views import SheepsheadView, ShitheadView
from server.bots.base import hand_of, seat_of
from server.bots.sheepshead_policy import Table, choose_card, should_pick
from server.bots.sheepshead_rollout import led_class, table_from_game
from server.rules.base import Action, IllegalAction
from server.rules.sheepshead import PLAYERS, Sheepshead
from server.rules.sheepshead_cards import DECK32, FAIL_ACES, SUIT_CLASS, TRUMP
from server.rules.shithead import Shithead

# ------------------------------------------------------------------------------------ Shithead

_BOOK = ShitheadOptions()


def shithead_public(view: ShitheadView) -> set[int]:
    """Cards whose place the view shows: own hand, face-up cards, pile, known hand cards."""
    cards = set(parse_cards(hand_of(view))) | set(parse_cards(view["pile"]))
    for s in view["seats"]:
        cards |= set(parse_cards(s["face_up"])) | set(parse_cards(s["known_in_hand"]))
    return cards


#: Whether Shithead samples believe that a seat which picked up the pile had no card that
#: would go on it (``basic`` picks up only then); off: uniform over consistent deals (for
#: measuring what the belief gains).
SHITHEAD_BELIEFS = False


def could_play_on(c: int, top: int, rules: ShitheadOptions = _BOOK) -> bool:
    """Whether card ``c`` goes on a pile whose card to beat is ``top`` (SH-1.3, SH-1.4, SH-4.1:
    2s and 10s on anything, anything on a 2, else ordinary ranks at least as high), under the
    house rules ``rules``: a 7 that plays lower takes only 3 to 7 (SH-7.2), a glass 3 goes on
    anything (SH-7.4; ``top`` is then the topmost card that is not a 3)."""
    r, t = c >> 2, top >> 2
    if r in (TWO, TEN) or t == TWO or (rules.three_invisible and r == THREE):
        return True
    if rules.seven_lower and t == SEVEN:
        return THREE <= r <= SEVEN
    return r >= t


def card_to_beat(pile: list[int], rules: ShitheadOptions = _BOOK) -> int | None:
    """The card to beat on ``pile`` (bottom first): its top, or with glass 3s the topmost card
    that is not a 3 (SH-7.4); ``None`` when anything goes (an empty pile, or only 3s)."""
    for c in reversed(pile):
        if not (rules.three_invisible and c >> 2 == THREE):
            return c
    return None


def sample_shithead(
    view: ShitheadView,
    rng: random.Random,
    burned_known: set[int] | None = None,
    picked_on: dict[int, int] | None = None,
) -> Shithead:
    """A play-phase position consistent with ``view``; ``burned_known`` are cards known to be
    burned (the bot saw them and they are nowhere public now). ``picked_on`` maps a seat to
    the card to beat of a pile it picked up once the stock was gone: with
    :data:`SHITHEAD_BELIEFS` the cards of its hand nobody has seen are dealt among those that
    could not go on that card under the view's house rules (when enough such cards are left)."""
    me, turn = seat_of(view), view["turn"]
    if turn is None:
        raise ValueError("only a play-phase position is sampled")
    public = shithead_public(view)
    burned = [c for c in (burned_known or ()) if c not in public][: view["burned"]]
    pool = [c for c in range(52) if c not in public and c not in burned]
    rng.shuffle(pool)
    reserved: dict[int, list[int]] = {}
    if SHITHEAD_BELIEFS and picked_on:
        options = view.get("options")
        rules = ShitheadOptions.model_validate(options) if options else _BOOK
        for s, top in picked_on.items():
            info = view["seats"][s]
            unseen = info["hand_count"] - len(info["known_in_hand"])
            fits = [c for c in pool if not could_play_on(c, top, rules)][:unseen]
            if unseen and len(fits) == unseen:
                reserved[s] = fits
                pool = [c for c in pool if c not in fits]
    it = iter(pool)
    hands: list[str] = []
    downs: list[str] = []
    for s, info in enumerate(view["seats"]):
        if s == me:
            hand = list(hand_of(view))
        elif s in reserved:
            hand = list(info["known_in_hand"]) + [CODES[c] for c in reserved[s]]
        else:
            known = list(info["known_in_hand"])
            hand = known + [CODES[next(it)] for _ in range(info["hand_count"] - len(known))]
        hands.append(" ".join(hand))
        downs.append(" ".join(CODES[next(it)] if d else "-" for d in info["face_down"]))
    stock = " ".join(CODES[next(it)] for _ in range(view["stock"]))
    burned_all = [*burned, *it]
    out = sorted(
        (s for s, info in enumerate(view["seats"]) if info["out"]),
        key=lambda s: view["seats"][s]["place"] or 0,  # every seat out has a place
    )
    return Shithead.from_position(
        hands=hands,
        face_up=[" ".join(info["face_up"]) for info in view["seats"]],
        face_down=downs,
        known=[" ".join(info["known_in_hand"]) for info in view["seats"]],
        turn=turn,
        pile=" ".join(view["pile"]),
        stock=stock,
        burned=" ".join(CODES[c] for c in burned_all),
        out=out,
        dealer=view["dealer"],
        options=view.get("options"),  # the house rules in force (SH-7.5): playouts follow them
    )


# ------------------------------------------------------------------------------------ Sheepshead

#: Likelihood, relative to the action the model expects, of a pass (or pick) the model would not
#: have made with the sampled hand: people are not the model, so it is not zero.
OFF_MODEL = 0.2
#: Whether samples are weighted by the seats' picks and passes (off: uniform over consistent
#: deals, for measuring what the beliefs gain).
BELIEFS = True
#: Likelihood, relative to the card the model would play (``basic``'s card-play rule from what
#: that seat could see), of a card the model would not have played with the sampled hand.
PLAY_OFF_MODEL = 0.2
#: Whether samples are weighted by the cards the other seats played (off: for measuring).
PLAY_BELIEFS = True


def action_likelihood(hand: list[int], position: int, picked: bool) -> float:
    """How likely, under the model, a seat dealt ``hand`` (six cards) with ``position`` passes
    before it was to pick (``picked``) or to pass."""
    return 1.0 if should_pick(hand, position) == picked else OFF_MODEL


def bidding_likelihood(dealt: list[list[int]], passed: list[int], picker: int, me: int) -> float:
    """Likelihood of the seen passes (in order) and pick under the model, for the dealt hands;
    ``me`` (whose hand is known) is left out."""
    if not BELIEFS:
        return 1.0
    w = 1.0
    for position, s in enumerate(passed):
        if s != me:
            w *= action_likelihood(dealt[s], position, picked=False)
    if picker >= 0 and picker != me:
        w *= action_likelihood(dealt[picker], len(passed), picked=True)
    return w


def _history(view: SheepsheadView) -> list[tuple[int, int | None]]:
    """Every card played so far, in order: (seat, card or None when face down)."""
    plays: list[tuple[int, int | None]] = []
    for trick in [*view["tricks"], view["trick"]]:
        for e in trick["cards"]:
            plays.append((e["seat"], None if e["card"] is None else parse_card(e["card"])))
    return plays


def _voids(view: SheepsheadView) -> list[set[int]]:
    voids: list[set[int]] = [set() for _ in range(PLAYERS)]
    for trick in [*view["tricks"], view["trick"]]:
        led = -1
        for e in trick["cards"]:
            if e["card"] is None:
                continue
            cls = SUIT_CLASS[parse_card(e["card"])]
            if led < 0:
                led = cls
            elif cls != led:
                voids[e["seat"]].add(led)
    return voids


class SheepsheadSampler:
    """Samples complete hands consistent with one play-phase (or crack-phase) view (built once
    per decision)."""

    def __init__(self, view: SheepsheadView) -> None:
        self.view = view
        self._dealt: list[list[int]] = []  # the last rebuilt sample's hands as dealt
        self._play_weight = 1.0  # the last rebuilt sample's card-play likelihood
        # Whether the model plays the history's card, by (play index, what decides it): late in
        # a hand few hidden cards are left, so the samples repeat the same seats' hands, and
        # the model's rule (the dearest part of a rebuild) need not be run again (pure speed:
        # the same answers, the same random stream).
        self._model_memo: dict[tuple[int, tuple[int, ...], int | None, bool, bool], bool] = {}
        self.me = seat_of(view)
        self.hand = parse_cards(hand_of(view))
        self.history = _history(view)
        self.voids = _voids(view)
        self.picker = -1 if view["picker"] is None else int(view["picker"])
        self.called = -1 if view["called"] is None else parse_card(view["called"])
        self.is_picker = self.me == self.picker
        # SS-10: the same house rules, and the stakes the hand started at (before any crack)
        self.options = SheepsheadOptions.model_validate(view["options"])
        cracks = (view["cracked"] is not None) + (view["recracked"] is not None)
        self.base_multiplier = view["multiplier"] >> cracks
        seen = {c for _, c in self.history if c is not None}
        known = set(self.hand) | seen
        self.buried = parse_cards(view["buried"]) if view["buried"] else []
        self.blind = parse_cards(view["blind"]) if view["blind"] else []
        self.unknown = -1 if view["unknown_card"] is None else parse_card(view["unknown_card"])
        if self.is_picker:
            known |= set(self.buried)
            if self.unknown >= 0:
                known.add(self.unknown)
        self.pool = [c for c in DECK32 if c not in known]
        # How many hidden cards each seat still holds (the picker's pending unknown card is
        # counted apart), and the hidden extras: buried/aside pair, a face-down played card.
        counts = list(view["hand_counts"])
        self.unknown_pending = (
            bool(view["unknown_call"])
            and not any(c is None for _, c in self.history)
            and not view["result"]
        )
        if self.unknown_pending:
            counts[self.picker] -= 1
        counts[self.me] = 0
        self.counts = counts
        self.face_down_played = any(c is None for _, c in self.history)
        self.need_hold = (
            self.called >= 0
            and not view["called_suit_led"]
            and not view["unknown_call"]
            and not self.is_picker
        )
        self.called_hidden = self.called >= 0 and self.called in self.pool
        # SS-4.3: after an unknown-card call the picker's fail cards were all aces.
        self.picker_only_aces = bool(view["unknown_call"]) and not self.is_picker

    def _fits(self, seat: int, c: int) -> bool:
        if SUIT_CLASS[c] in self.voids[seat]:
            return False
        if seat == self.picker and self.picker_only_aces:
            return SUIT_CLASS[c] == TRUMP or c in FAIL_ACES
        return True

    # ------------------------------------------------------------------ dealing the pool

    def _deal(self, rng: random.Random) -> tuple[list[list[int]], list[int], int, int] | None:
        """Hidden hands per seat, the buried/aside pair, the face-down unknown card (or -1) and
        the pending unknown card (or -1); ``None`` when this try broke a constraint."""
        pool = list(self.pool)
        rng.shuffle(pool)
        hands: list[list[int]] = [[] for _ in range(PLAYERS)]
        if self.called_hidden:
            cls = SUIT_CLASS[self.called]
            options = [
                s
                for s in range(PLAYERS)
                if s not in (self.me, self.picker)
                and self.counts[s] > 0
                and cls not in self.voids[s]
            ]
            if not options:
                return None
            hands[rng.choice(options)].append(self.called)
            pool.remove(self.called)
        order = sorted(
            (s for s in range(PLAYERS) if s != self.me),
            key=lambda s: (s != self.picker or not self.picker_only_aces, -len(self.voids[s])),
        )
        unknown_first = self.picker_only_aces and (self.unknown_pending or self.face_down_played)
        if unknown_first:
            aces_or_trumps = [c for c in pool if SUIT_CLASS[c] == TRUMP or c in FAIL_ACES]
            if not aces_or_trumps:
                return None
            hidden_unknown = aces_or_trumps[0]
            pool.remove(hidden_unknown)
        for s in order:
            need = self.counts[s] - len(hands[s])
            if need <= 0:
                continue
            take = [c for c in pool if self._fits(s, c) and c != self.called][:need]
            if len(take) < need:
                return None
            for c in take:
                pool.remove(c)
            hands[s].extend(take)
        # What remains: the buried (or aside) pair, then the face-down and pending unknown cards.
        extra: list[int] = []
        if not self.is_picker or self.view["leaster"]:
            extra = pool[:2] if (self.picker >= 0 or self.view["leaster"]) else []
            pool = pool[len(extra) :]
        face_down = -1
        pending = -1
        if self.face_down_played and not self.is_picker:
            face_down = hidden_unknown if unknown_first else pool.pop()
        if self.unknown_pending and not self.is_picker:
            pending = hidden_unknown if unknown_first else pool.pop()
        if pool:
            return None
        if self.need_hold and self.picker >= 0:
            cls = SUIT_CLASS[self.called]
            if not any(SUIT_CLASS[c] == cls for c in hands[self.picker]):
                return None
        return hands, extra, face_down, pending

    @property
    def dealt(self) -> list[list[int]]:
        """The last sample's hands as dealt (six cards a seat, before the pick)."""
        return self._dealt

    def sample(self, rng: random.Random, tries: int = 40) -> Sheepshead | None:
        """A complete hand at the current position, kept with the likelihood of the seats'
        picks and passes (the last consistent one if every try was unlikely), or ``None`` if no
        try was consistent."""
        found = self.sample_weighted(rng, tries)
        return None if found is None else found[0]

    def sample_weighted(
        self, rng: random.Random, tries: int = 40
    ) -> tuple[Sheepshead, float] | None:
        """As :meth:`sample`, with the sample's weight: the likelihood of the cards the other
        seats played under the model (importance weighting: rejecting unlikely deals would
        cost many tries late in a hand), 1 without card-play beliefs."""
        last: tuple[Sheepshead, float] | None = None
        for _ in range(tries):
            dealt = self._deal(rng)
            if dealt is None:
                continue
            game = self._rebuild(*dealt)
            if game is None:
                continue
            last = (game, self._play_weight)
            w = bidding_likelihood(self._dealt, self.view["passed"], self.picker, self.me)
            if w >= 1.0 or rng.random() < w:
                return last
        return last

    # ------------------------------------------------------------------ replaying the history

    def _rebuild(
        self, hidden: list[list[int]], extra: list[int], face_down: int, pending: int
    ) -> Sheepshead | None:
        view = self.view
        me, picker = self.me, self.picker
        current: list[list[int]] = [list(h) for h in hidden]
        current[me] = list(self.hand)
        played: list[list[int]] = [[] for _ in range(PLAYERS)]
        history: list[tuple[int, int]] = []
        unknown = self.unknown if self.is_picker else (face_down if face_down >= 0 else pending)
        for s, c in self.history:
            card = unknown if c is None else c
            played[s].append(card)
            history.append((s, card))
        if view["leaster"]:
            blind = extra
            buried: list[int] = []
        elif picker >= 0:
            buried = self.buried if self.is_picker else extra
            blind = self.blind if self.is_picker else buried
        else:
            blind, buried = [], []
        original = [current[s] + played[s] for s in range(PLAYERS)]
        if picker >= 0:
            eight = original[picker] + buried
            if unknown >= 0 and unknown not in eight:
                eight.append(unknown)
            original[picker] = [c for c in eight if c not in blind]
        if len(blind) != 2:
            # Still picking (no picker yet): the blind is the two cards left over.
            blind = [c for c in DECK32 if not any(c in h for h in original)]
        dealer = view["dealer"]
        deck: list[int] = []
        for i in range(PLAYERS):
            deck.extend(original[(dealer + 1 + i) % PLAYERS])
        deck.extend(blind)
        if sorted(deck) != list(DECK32):
            return None
        self._dealt = original
        self._play_weight = 1.0
        game = Sheepshead(deck, dealer, options=self.options, multiplier=self.base_multiplier)
        try:
            for s in view["passed"]:
                game.apply(s, Action("pass"))
            if picker >= 0:
                game.apply(picker, Action("pick"))
                game.apply(picker, Action("bury", tuple(buried)))
                game.apply(picker, self._call(unknown))
                for s, action in crack_decisions(view, picker):
                    game.apply(s, action)
            self._play_weight = self._replay(game, history)
        except IllegalAction:
            return None
        return game

    def _call(self, unknown: int) -> Action:
        """The picker's call the view shows (``unknown``: the sampled unknown card)."""
        view = self.view
        if view["jd_partner"]:  # SS-10.2 (alone may show later: JD was the picker's)
            return Action("jd_partner")
        if view["alone"]:
            return Action("alone")
        if view["unknown_call"]:
            return Action("call_unknown", (self.called, unknown))
        return Action("call", (self.called,))

    def _replay(self, game: Sheepshead, history: list[tuple[int, int]]) -> float:
        """Play ``history`` on ``game``; the likelihood that the other seats, holding the
        sampled cards and seeing what they saw, chose the cards they played (1 without
        card-play beliefs)."""
        w = 1.0
        if not PLAY_BELIEFS:
            for s, c in history:
                game.apply(s, Action("play", (c,)))
            return w
        seen: set[int] = set()
        voids: list[set[int]] = [set() for _ in range(PLAYERS)]
        memo = self._model_memo
        for i, ((s, shown), (_, c)) in enumerate(zip(self.history, history, strict=True)):
            if s != self.me and len(game.legal_cards(s)) > 1:
                # The rest of the seat's table follows from the public history up to play i.
                key = (i, tuple(game.hand(s)), game.partner, game.alone, game.revealed)
                fits = memo.get(key)
                if fits is None:
                    fits = memo[key] = _model_plays(table_from_game(game, s, seen, voids), c)
                if not fits:
                    w *= PLAY_OFF_MODEL
            led = led_class(game.trick_cards, game.trick_face_down)
            if shown is not None:
                seen.add(c)
                if led >= 0 and SUIT_CLASS[c] != led:
                    voids[s].add(led)
            game.apply(s, Action("play", (c,)))
        return w


def crack_decisions(view: SheepsheadView, picker: int) -> list[tuple[int, Action]]:
    """The crack round a view shows (SS-10.4), as the actions that made it: the seats from the
    picker's left declining up to the one that cracked, then the picker's answer; nothing
    without ``crack``. In a crack-phase view, the decisions made so far (up to the seat to
    act)."""
    if not view["options"]["crack"]:
        return []
    cracked = view["cracked"]
    in_round = view["phase"] == "crack"
    to_act = view["to_act"][0] if in_round and cracked is None else None
    out: list[tuple[int, Action]] = []
    for i in range(1, PLAYERS):
        s = (picker + i) % PLAYERS
        if s == to_act:
            return out
        if s == cracked:
            out.append((s, Action("crack")))
            if not in_round:
                recrack = view["recracked"] is not None
                out.append((picker, Action("recrack" if recrack else "no_crack")))
            return out
        out.append((s, Action("no_crack")))
    return out


def _model_plays(table: Table, card: int) -> bool:
    """Whether the model could have played ``card``: the rule breaks ties between equal cards
    by the order of the hand, which a sample does not know, so three orders are tried."""
    if choose_card(table) == card:
        return True
    for order in (sorted(table.legal), sorted(table.legal, reverse=True)):
        table.legal = order
        if choose_card(table) == card:
            return True
    return False


def legal_cards(game: Sheepshead, seat: int) -> list[int]:
    """The cards ``seat`` may play now in a sampled game (fast path for search)."""
    return list(game.legal_cards(seat))
