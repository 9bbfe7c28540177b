"""Why an action is a good idea, in a short sentence a person can read: the text of a hint.

:func:`explain` looks only at one seat's view (what its client receives) and the action chosen
for it, and says what is true of that action there: which rule it uses, what it keeps or gives
away. It never claims more than the view shows. Every Shithead reason names the deciding fact
(the card to beat, the lower card kept, how many cards go, what goes on anything); a Sheepshead
move no specific reason fits says the search preferred it. Pure: no I/O (the English texts are
read once, on import), no clock, no randomness.

Every reason has a stable ``key`` (``hint.…``), ``params`` and an English ``text``; a client may
show its own translation of the key, filling in the params. Params follow one convention so a
client can render them: ``card``/``cards``/``top``/``beat``/``hold``/``ace``: card codes
(space-separated); ``rank``: a rank letter (``T`` for ten); ``suit``: a suit letter; the rest
are whole numbers.

>>> v = {"game": "shithead", "phase": "play", "seat": 0, "pile": ["9H"], "hand": ["3S", "JD"],
...      "source": "hand", "stock": 20, "seats": [],
...      "legal": [{"kind": "play", "cards": ["JD"]}, {"kind": "pickup"}]}
>>> explain(v, Action.from_str("play JD")).text
'play the J: the lowest card that beats the 9 keeps your high cards'
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from protocol.cards import CODES, RANK_LABELS, RANKS, SUIT_SYMBOLS, SUITS, parse_card
from protocol.views import SheepsheadView, ShitheadView, View
from server.bots.advice import Advice
from server.bots.base import seat_of
from server.bots.shithead_basic import rules_of
from server.rules.base import Action
from server.rules.sheepshead_cards import (
    FAIL_ACES,
    POINTS,
    STRENGTH,
    SUIT_CLASS,
    TRUMP,
    TRUMPS,
    trick_winner_index,
)

Params = dict[str, str | int]

#: The web client's English table (one source of the texts: the page shows its translations).
#: Beside this package when installed (pyproject.toml ships it), as in the source tree.
ENGLISH = Path(__file__).resolve().parents[2] / "clients" / "web" / "i18n" / "en.json"


def _load_texts(path: Path) -> dict[str, str]:
    """The ``hint.…`` texts of an i18n table.

    >>> _load_texts(ENGLISH)["hint.ss_follow_suit"]
    'play the {card}: you must follow suit'
    """
    table: dict[str, str] = json.loads(path.read_text(encoding="utf-8"))
    return {k: v for k, v in table.items() if k.startswith("hint.")}


#: Every reason's English text, by key: ``{name}`` is filled from the reason's params.
TEXTS: dict[str, str] = _load_texts(ENGLISH)

#: Reasons that cite the strong bot's search (never given for a quick rule's choice).
SEARCH_KEYS = frozenset(
    {
        "hint.ss_pick_search",
        "hint.ss_pass_search",
        "hint.ss_bury_search",
        "hint.ss_call",
        "hint.ss_lead",
        "hint.ss_play",
        "hint.sh_unusual",
        "hint.sh_unusual_known",
        "hint.sh_unusual_block",
        "hint.sh_unusual_set",
        "hint.sh_keep_for_later",
        "hint.sh_split",
        "hint.sh_pickup_keep_card",
        "hint.sh_pickup_small",
    }
)

#: Params that hold card codes, and params that hold ranks (Shithead: suits never matter);
#: ``suit`` holds a suit letter; any other param is a number.
CARD_PARAMS = frozenset({"card", "cards", "beat", "hold", "ace", "called", "other"})
RANK_PARAMS = frozenset({"ranks", "top", "usual"})
_SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}


@dataclass(frozen=True, slots=True)
class Reason:
    """A reason for a hint: its stable ``key``, the ``params`` its text is filled with, and
    the English ``text``."""

    key: str
    params: Params = field(default_factory=dict)

    @property
    def text(self) -> str:
        return TEXTS[self.key].format(**{k: show(k, v) for k, v in self.params.items()})


def show(name: str, value: str | int) -> str:
    """A param as English text: cards as ``10♦``, ranks as ``10``, several joined by ``+``,
    suits as words."""
    if isinstance(value, int):
        return str(value)
    if name in CARD_PARAMS:
        return " + ".join(_label(code) for code in value.split())
    if name in RANK_PARAMS:
        return " + ".join(RANK_LABELS[RANKS.index(r)] for r in value.split())
    if name == "suit":
        return _SUIT_NAMES[value]
    return value


def _label(code: str) -> str:
    return RANK_LABELS[RANKS.index(code[0])] + SUIT_SYMBOLS[SUITS.index(code[1])]


def explain(
    view: View, action: Action, searched: bool = True, advice: Advice | None = None
) -> Reason:
    """Why ``action`` for the seat whose ``view`` this is (the view of a seat that must act).
    ``searched``: the strong bot's search chose it (else a quick rule did, and no reason may
    cite the search). ``advice``: what the search found; an action other than its usual play
    (the rule of thumb) is explained against that play, with the fact that sets them apart
    and the figures, so a reason never contradicts the rule it quotes elsewhere."""
    if view["game"] == "shithead":
        unusual = _sh_unusual(view, action, advice) if advice is not None else None
        reason = unusual or _shithead(view, action)
    else:
        reason = _sheepshead(view, action)
    if not searched and reason.key in SEARCH_KEYS:
        return Reason("hint.quick")
    return reason


# ------------------------------------------------------------------------------ Shithead

#: SH-1.1: ordinary ranks low to high (2 and 10 are special, SH-1.2).
_ORDER = "3456789JQKA"
_SPECIAL = "2T"


def _codes(cards: Sequence[int]) -> list[str]:
    return [CODES[c] for c in cards]


def _requirement(view: ShitheadView) -> str | None:
    """The rank of the card to beat (SH-4.1; under glass 3s the topmost other card, SH-7.4);
    ``None`` when anything goes (empty pile, or a 2 to beat, SH-1.3)."""
    pile = view["pile"] or []
    top = view.get("to_beat", pile[-1] if pile else None)
    if not top or top[0] == "2":
        return None
    return top[0]


def _top_run(pile: Sequence[str]) -> tuple[str | None, int]:
    """The rank on top of the pile and how many of it lie there in a row (SH-4.4)."""
    if not pile:
        return None, 0
    rank = pile[-1][0]
    n = 0
    for c in reversed(pile):
        if c[0] != rank:
            break
        n += 1
    return rank, n


def _held(view: ShitheadView, seat: int) -> int:
    s = view["seats"][seat]
    return int(s["hand_count"]) + len(s["face_up"]) + sum(1 for d in s["face_down"] if d)


def _next_nearly_out(view: ShitheadView) -> bool:
    """The next active seat holds two cards or fewer and the stock is gone."""
    seats = view["seats"] or []
    if view["stock"] or not seats:
        return False
    n = len(seats)
    me = seat_of(view)
    for k in range(1, n):
        s = (me + k) % n
        if not seats[s]["out"]:
            return _held(view, s) <= 2
    return False


def _legal_plays(view: ShitheadView) -> list[list[str]]:
    return [list(a.get("cards", [])) for a in view["legal"] if a["kind"] == "play"]


def _value(rank: str) -> int:
    """How much a rank is worth face up for the end of the game: 10, then 2, then high to
    low."""
    return {"T": 100, "2": 90}.get(rank, _ORDER.index(rank) if rank in _ORDER else -1)


def _shithead(view: ShitheadView, action: Action) -> Reason:
    codes = _codes(action.cards)
    pile: list[str] = list(view["pile"] or [])
    match action.kind:
        case "ready":
            return _sh_ready(view)
        case "swap":  # (hand card, face-up card): the hand card goes up (SH-2.3)
            return _sh_swap(codes[0], codes[1])
        case "flip":  # SH-5.4
            down = view["seats"][seat_of(view)]["face_down"]
            if sum(1 for d in down if d) == 1:
                return Reason("hint.sh_flip_last")
            return Reason("hint.sh_flip", {"n": action.slot + 1})
        case "pickup" if codes:  # SH-5.2
            return Reason("hint.sh_give_up", {"card": codes[0]})
        case "pickup":  # SH-4.6
            return _sh_pickup(view, pile)
        case _:
            return _sh_play(view, codes, pile)


def _sh_swap(card: str, other: str) -> Reason:
    """A swap (SH-2.3): ``card`` from the hand goes face up, ``other`` comes into the hand."""
    params: Params = {"card": card, "other": other}
    up, down = _value(card[0]), _value(other[0])
    if up > down:
        return Reason("hint.sh_swap", params)
    if up == down:  # the same rank, or two of a kind in value: the table is as strong
        return Reason("hint.sh_swap_same", params)
    if other[0] in _SPECIAL:  # SH-1.2: it goes on anything, from the hand at any time
        return Reason("hint.sh_swap_special", params)
    return Reason("hint.sh_swap_play_sooner", params)


def _sh_ready(view: ShitheadView) -> Reason:
    me = view["seats"][seat_of(view)]
    hand = [c[0] for c in view["hand"] or []]
    up = [c[0] for c in me["face_up"]]
    if not up or not hand or min(_value(r) for r in up) >= max(_value(r) for r in hand):
        return Reason("hint.sh_ready")
    best = max(me["face_up"], key=lambda c: _value(c[0]))
    return Reason("hint.sh_ready_best", {"card": best})


def _sh_pickup(view: ShitheadView, pile: list[str]) -> Reason:
    beat = view.get("to_beat", pile[-1] if pile else None)  # under glass 3s: below them
    top = beat[0] if beat else ""
    plays = _legal_plays(view)
    if not plays:
        return Reason("hint.sh_pickup_forced", {"top": top})
    if all(p[0][0] in _SPECIAL for p in plays):
        return Reason("hint.sh_pickup_keep", {"top": top})
    # what playing would cost instead: the lowest card that goes on the pile
    cheapest = min((p[0][0] for p in plays if p[0][0] not in _SPECIAL), key=_value)
    if len(pile) <= SMALL_PILE:
        return Reason("hint.sh_pickup_small_pile", {"n": len(pile), "usual": cheapest})
    if _requirement(view) is None:  # a 2 to beat: anything goes (SH-1.3)
        return Reason("hint.sh_pickup_rather_any", {"usual": cheapest})
    return Reason("hint.sh_pickup_rather", {"top": top, "usual": cheapest})


def _sh_play(view: ShitheadView, codes: list[str], pile: list[str]) -> Reason:
    rank = codes[0][0]
    ranks = " ".join(c[0] for c in codes)
    req = _requirement(view)
    rules = rules_of(view)
    run_rank, run = _top_run(pile)
    if (run if rank == run_rank else 0) + len(codes) >= 4:  # SH-4.4
        return Reason("hint.sh_play_four", {"ranks": ranks})
    if rank == "T":  # SH-4.3
        return Reason("hint.sh_burn")
    plays = _legal_plays(view)
    special = _SPECIAL + "3" if rules.three_invisible else _SPECIAL
    ordinary = sorted({p[0][0] for p in plays if p[0][0] not in special}, key=_ORDER.index)
    if rank == "8" and rules.eight_skips and _next_nearly_out(view):  # SH-7.3
        return Reason("hint.sh_skip")
    if rank == "3" and rules.three_invisible:  # SH-7.4
        return Reason("hint.sh_glass")
    if rank == "2":  # SH-1.3
        if req is not None and not ordinary:
            return Reason("hint.sh_two", {"top": req})
        if req is None:  # on an empty pile or a 2: the 2 asks nothing of the next player
            return Reason("hint.sh_two_open", {"ranks": ranks})
        return Reason("hint.sh_two_reset", {"ranks": ranks, "top": req, "usual": ordinary[0]})
    lowest = bool(ordinary) and rank == ordinary[0]
    if lowest and view["source"] == "face_up":  # SH-5.1
        return Reason("hint.sh_play_face_up", {"ranks": ranks})
    if lowest and not pile:
        return Reason("hint.sh_open_low", {"ranks": ranks})
    if lowest and req is None:
        return Reason("hint.sh_play_low_any", {"ranks": ranks})
    if lowest and req == "7" and rules.seven_lower:  # SH-7.2
        return Reason("hint.sh_play_low_seven", {"ranks": ranks})
    # SH-1.2, SH-4.2: 2s and 10s (glass 3s, SH-7.4) go on anything: kept for when nothing does
    saved = [c for c in view["hand"] or [] if c[0] in special]
    if lowest and req is not None and saved and view["source"] == "hand":
        return Reason("hint.sh_save_special", {"ranks": ranks, "cards": " ".join(saved)})
    if lowest and req is not None:
        return Reason("hint.sh_play_low", {"ranks": ranks, "top": req})
    seven_blocks = rules.seven_lower and rank == "7"  # SH-7.2: only five ranks may follow
    if ordinary and (rank == ordinary[-1] or seven_blocks) and _next_nearly_out(view):
        return Reason("hint.sh_block", {"ranks": ranks})
    return _sh_play_higher(view, codes, ordinary, req)


def _sh_play_higher(
    view: ShitheadView, codes: list[str], ordinary: list[str], req: str | None
) -> Reason:
    """A play that is not the usual lowest card: the fact that sets it apart (how many cards
    go, or which lower card stays in hand for a lower pile)."""
    ranks = " ".join(c[0] for c in codes)
    lower = ordinary[0] if ordinary and ordinary[0] != codes[0][0] else None
    held = [c for c in view["hand"] or [] if lower is not None and c[0] == lower]
    if lower is None:  # only specials besides (SH-1.2): this is the one ordinary rank
        return Reason("hint.sh_play_only_ordinary", {"ranks": ranks})
    if len(codes) > max(1, len(held)):  # SH-4.1: several cards of one rank go in one turn
        return Reason("hint.sh_play_set", {"ranks": ranks, "n": len(codes), "usual": lower})
    if req is None:
        return Reason("hint.sh_play_higher_any", {"ranks": ranks, "usual": lower})
    return Reason("hint.sh_play_higher", {"ranks": ranks, "top": req, "usual": lower})


#: A pile this small costs little to take (a reason says so).
SMALL_PILE = 3


def _next_seat(view: ShitheadView) -> int | None:
    seats = view["seats"] or []
    me = seat_of(view)
    for k in range(1, len(seats)):
        s = (me + k) % len(seats)
        if not seats[s]["out"]:
            return s
    return None


def _beats(card: str, rank: str, seven_lower: bool) -> bool:
    """Whether ``card`` may go on a card of ``rank`` (SH-4.1, SH-1.2; SH-7.2 under a 7)."""
    r = card[0]
    if r in _SPECIAL:
        return True
    if seven_lower and rank == "7":
        return r in "34567"
    return _ORDER.index(r) >= _ORDER.index(rank) if rank in _ORDER else True


def _sh_unusual(view: ShitheadView, action: Action, advice: Advice) -> Reason | None:
    """A search's choice other than the usual play, named against it: what sets them apart
    (what the next player is known to hold, that they are nearly out, how many cards go, what
    is kept for later) and both chances of losing; ``None`` for the usual play itself."""
    usual = advice.usual
    mine, theirs = advice.loss(action), advice.loss(usual)
    if action == usual or mine is None or theirs is None or usual.kind != "play":
        return None
    figures: Params = {"loss": round(100 * mine), "other_loss": round(100 * theirs)}
    usual_codes = _codes(usual.cards)
    other = " ".join(c[0] for c in usual_codes)
    pile = view["pile"] or []
    if action.kind == "pickup":
        key = "hint.sh_pickup_small" if len(pile) <= SMALL_PILE else "hint.sh_pickup_keep_card"
        return Reason(key, {"usual": other, **figures})
    if action.kind != "play":
        return None
    codes = _codes(action.cards)
    ranks = " ".join(c[0] for c in codes)
    rank, usual_rank = codes[0][0], usual_codes[0][0]
    params: Params = {"ranks": ranks, "usual": other, **figures}
    if rank == usual_rank:
        if len(codes) < len(usual_codes):
            return Reason("hint.sh_split", params)
        return Reason("hint.sh_unusual_set", {**params, "n": len(codes)})
    rules = rules_of(view)
    special = _SPECIAL + "3" if rules.three_invisible else _SPECIAL
    if rank in special and usual_rank not in special:
        return Reason("hint.sh_keep_for_later", params)
    nxt = _next_seat(view)
    known = list(view["seats"][nxt]["known_in_hand"]) if nxt is not None else []
    on_usual = [c for c in known if _beats(c, usual_rank, rules.seven_lower)]
    on_mine = [c for c in known if _beats(c, rank, rules.seven_lower)]
    if on_usual and len(on_mine) < len(on_usual):
        stopped = " ".join(c for c in on_usual if c not in on_mine)
        return Reason("hint.sh_unusual_known", {**params, "cards": stopped})
    if _next_nearly_out(view):
        return Reason("hint.sh_unusual_block", params)
    if len(codes) > len(usual_codes):
        return Reason("hint.sh_unusual_set", {**params, "n": len(codes)})
    return Reason("hint.sh_unusual", params)


# ------------------------------------------------------------------------------ Sheepshead

_TRUMP_CODES = frozenset(CODES[c] for c in TRUMPS)
_BLACK_QUEENS = ("QC", "QS")


def _trumps(cards: Sequence[str]) -> list[str]:
    return [c for c in cards if c in _TRUMP_CODES]


def _suit(code: str) -> int:
    """The suit class (SS-5.2: trumps are one suit)."""
    return SUIT_CLASS[parse_card(code)]


def _points(cards: Sequence[str]) -> int:
    return sum(POINTS[parse_card(c)] for c in cards)


def _sheepshead(view: SheepsheadView, action: Action) -> Reason:
    codes = _codes(action.cards)
    hand: list[str] = list(view["hand"] or [])
    match action.kind:
        case "pick" | "pass":
            return _ss_bid(view, action.kind, hand)
        case "bury":
            return _ss_bury(hand, codes)
        case "call":
            return _ss_call(hand, codes[0])
        case "call_unknown":  # SS-4.3
            return Reason("hint.ss_call_unknown", {"ace": codes[0], "card": codes[1]})
        case "alone":  # SS-4.4
            if not any(a["kind"] in ("call", "call_unknown") for a in view["legal"]):
                return Reason("hint.ss_alone_forced")
            trumps = _trumps(hand)
            queens = sum(1 for c in trumps if c[0] == "Q")
            return Reason("hint.ss_alone_strong", {"n": len(trumps), "queens": queens})
        case "jd_partner":  # SS-10.2
            return Reason("hint.ss_jd_partner")
        case "crack" | "recrack" | "no_crack":  # SS-10.4
            return Reason(f"hint.ss_{action.kind}", {"n": len(_trumps(hand))})
        case _:
            return _ss_play(view, hand, codes[0])


def _ss_bid(view: SheepsheadView, kind: str, hand: list[str]) -> Reason:
    trumps = _trumps(hand)
    n = len(trumps)
    queens = sum(1 for c in trumps if c[0] == "Q")
    if kind == "pick":
        if all(q in hand for q in _BLACK_QUEENS):
            return Reason("hint.ss_pick_black_queens", {"n": n})
        if len(view["passed"] or ()) == view["players"] - 1:  # else a leaster, SS-3.3
            return Reason("hint.ss_pick_last")
        if n >= 4:
            return Reason("hint.ss_pick_trumps", {"n": n, "queens": queens})
        return Reason("hint.ss_pick_search", {"n": n})
    if n <= 2:
        return Reason("hint.ss_pass_few", {"n": n})
    if queens == 0:
        return Reason("hint.ss_pass_weak", {"n": n})
    return Reason("hint.ss_pass_search", {"n": n})


def _ss_bury(hand: list[str], buried: list[str]) -> Reason:
    """Bury (SS-3.2): the picker's hand holds the blind here; buried points are the picker's."""
    points = _points(buried)
    keep = [c for c in hand if c not in buried]
    pair = " ".join(buried)
    if _trumps(buried):
        return Reason("hint.ss_bury_search", {"cards": pair})
    emptied = sorted({_suit(c) for c in buried} - {_suit(c) for c in keep})
    if emptied:
        suit = SUITS[emptied[0]]
        if points:
            return Reason(
                "hint.ss_bury_void_points", {"cards": pair, "suit": suit, "points": points}
            )
        return Reason("hint.ss_bury_void", {"cards": pair, "suit": suit})
    if points >= 10:
        return Reason("hint.ss_bury_points", {"cards": pair, "points": points})
    return Reason("hint.ss_bury_keep", {"cards": pair})


def _ss_call(hand: list[str], called: str) -> Reason:
    if called[0] == "T":  # SS-4.2
        return Reason("hint.ss_call_ten", {"card": called})
    suit = _suit(called)
    holds = sorted((c for c in hand if _suit(c) == suit), key=lambda c: STRENGTH[parse_card(c)])
    if not holds:  # not an ordinary call (SS-4.1 needs a hold card)
        return Reason("hint.ss_call", {"card": called})
    return Reason("hint.ss_call_ace", {"card": called, "hold": holds[0]})  # SS-4.1, SS-6.2


def _played(view: SheepsheadView) -> set[str]:
    """Every card played face up so far in this hand."""
    seen: set[str] = set()
    for trick in [*view["tricks"], view["trick"]]:
        seen.update(p["card"] for p in trick["cards"] if p["card"])
    return seen


def _my_side(view: SheepsheadView, seat: int) -> bool | None:
    """Whether ``seat`` plays on this view's seat's side; ``None`` while the view cannot tell
    (the partner still secret)."""
    me = view["seat"]
    if seat == me:
        return True
    picker = view["picker"]
    if view["leaster"] or picker is None:
        return False
    partner = view["partner"]
    if me == picker:
        if view["alone"]:
            return False
        return None if partner is None else seat == partner
    if view["you_are_partner"] or me == partner:
        return bool(seat == picker)
    if seat == picker:
        return False
    if view["alone"]:
        return True
    return None if partner is None else bool(seat != partner)


def _ss_play(view: SheepsheadView, hand: list[str], card: str) -> Reason:
    legal = [a["cards"][0] for a in view["legal"] if a["kind"] == "play"]
    plays = list(view["trick"]["cards"])
    if len(legal) == 1:
        return Reason("hint.ss_only_card", {"card": card})
    if not any(p["card"] for p in plays):
        return _ss_lead(view, hand, card)
    face_down = next((i for i, p in enumerate(plays) if not p["card"]), -1)
    ints = [parse_card(p["card"]) if p["card"] else 0 for p in plays]
    winner = trick_winner_index(ints, face_down)  # never the face-down card
    best, beat = plays[winner], CODES[ints[winner]]
    led = SUIT_CLASS[ints[next(i for i, p in enumerate(plays) if p["card"])]]

    def wins(c: str) -> bool:
        return trick_winner_index([*ints, parse_card(c)], face_down) == len(plays)

    mine = parse_card(card)
    last = len(plays) == view["players"] - 1
    cheapest = POINTS[mine] == min(_points([c]) for c in legal)
    if view["leaster"]:  # SS-8
        if not wins(card) and cheapest:
            return Reason("hint.ss_leaster_duck", {"card": card})
        return Reason("hint.ss_play", {"card": card})
    if wins(card):
        if last and face_down < 0:
            taken = _points([CODES[c] for c in ints]) + POINTS[mine]
            return Reason("hint.ss_follow_win_last", {"card": card, "points": taken})
        if SUIT_CLASS[mine] == TRUMP and led != TRUMP and not any(_suit(c) == led for c in hand):
            return Reason("hint.ss_trump_in", {"card": card, "suit": SUITS[led]})  # SS-5.2
        return Reason("hint.ss_follow_win", {"card": card, "beat": beat})
    if POINTS[mine] > 0 and _my_side(view, best["seat"]) is True:
        me = view["seat"]
        mate = view["picker"] if view["you_are_partner"] else None
        if me == view["picker"]:
            mate = view["partner"]
        partner_wins = mate is not None and best["seat"] == mate  # not a fellow defender
        return Reason(
            "hint.ss_schmear_partner" if partner_wins else "hint.ss_schmear", {"card": card}
        )
    if cheapest and not any(wins(c) for c in legal):
        return Reason("hint.ss_duck", {"card": card, "beat": beat})
    if all(_suit(c) == led for c in legal) and len(legal) < len(hand):  # SS-5.2
        return Reason("hint.ss_follow_suit", {"card": card})
    return Reason("hint.ss_play", {"card": card})


def _ss_lead(view: SheepsheadView, hand: list[str], card: str) -> Reason:
    called = view["called"]
    played = _played(view)
    if card in _TRUMP_CODES:
        gone = played | set(view["buried"] or ())
        left = [CODES[c] for c in TRUMPS if CODES[c] not in gone]
        if len(left) >= 2 and left[0] in hand and left[1] in hand:
            return Reason("hint.ss_lead_top_trumps")
        if view["you_are_partner"]:  # the convention: the partner leads trump
            return Reason("hint.ss_partner_lead_trump")
        if view["picker"] == view["seat"]:
            return Reason("hint.ss_lead_trump")
        return Reason("hint.ss_lead", {"card": card})
    if called and not view["called_suit_led"] and _suit(card) == _suit(called):
        if card == called:  # SS-6.2: the partner leads the called card itself
            return Reason("hint.ss_lead_called_card", {"card": card})
        return Reason("hint.ss_lead_called", {"card": card, "called": called})  # SS-6.2
    if parse_card(card) in FAIL_ACES and not any(_suit(c) == _suit(card) for c in played):
        return Reason("hint.ss_lead_ace", {"card": card, "suit": card[1]})
    defender = view["picker"] not in (None, view["seat"]) and not view["you_are_partner"]
    if defender and not view["leaster"] and _trumps(hand):  # the convention: fail, not trump
        return Reason("hint.ss_defender_lead_fail", {"card": card})
    if POINTS[parse_card(card)] == 0:
        return Reason("hint.ss_lead_low", {"card": card})
    return Reason("hint.ss_lead", {"card": card})
