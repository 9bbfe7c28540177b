"""The table conventions of the strong Sheepshead bot: the convention policy its
playouts use, on hand-made positions; the prior that keeps the conventional card unless the
search is clearly sure; the sequential bidding that samples more only where the bid is close.
Everything is deterministic from a seed (no deadline: ``seconds=None``)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from protocol.cards import parse_card, parse_cards
from protocol.views import sheepshead_view
from server.bots import make_bot
from server.bots.sheepshead_bidding import Sequential
from server.bots.sheepshead_conventions import Convention, choose_conventional, convention, keeps
from server.bots.sheepshead_policy import Table
from server.bots.sheepshead_strong import (
    DEFAULT_BID_SEQUENTIAL,
    PRIOR_MARGIN,
    SheepsheadStrongBot,
)
from server.rules.base import Action
from server.rules.sheepshead import Sheepshead
from server.rules.sheepshead_cards import TRUMP as TRUMP_CLASS
from server.rules.sheepshead_cards import TRUMPS

TRUMP = frozenset(TRUMPS)


def table(
    seat: int,
    hand: str,
    *,
    picker: int = 0,
    friends: set[int] | None = None,
    trick: list[tuple[int, str]] | None = None,
    seen: str = "",
    picker_side: bool = False,
) -> Table:
    """A play-phase table for ``seat``: every card of ``hand`` legal unless the trick's suit
    must be followed (the tests pick hands where it need not)."""
    cards = parse_cards(hand)
    trick = trick or []
    played = [parse_card(c) for _, c in trick]
    friends = friends or set()
    return Table(
        seat=seat,
        hand=cards,
        legal=cards,
        trick_seats=[s for s, _ in trick],
        trick_cards=played,
        seen={*parse_cards(seen), *played},
        leaster=False,
        picker=picker,
        called=parse_card("AH"),
        called_suit_led=False,
        friends=frozenset(friends),
        foes=frozenset(set(range(5)) - friends - {seat}),
        tricks_won=[0] * 5,
        points_won=[0] * 5,
        picker_side=picker_side,
    )


def test_the_partner_on_lead_with_trump_leads_trump() -> None:
    # rule SS-6.2: the partner holds the called ace (AH); the picker is seat 0
    t = table(2, "AH 9S KC 7D JD 8H", friends={0}, picker_side=True)
    found = convention(t)
    assert found is not None
    assert found[0] is Convention.PARTNER_LEADS_TRUMP
    assert found[1] == frozenset(parse_cards("7D JD"))
    assert choose_conventional(t) in TRUMP


def test_a_defender_on_lead_at_the_first_trick_leads_fail() -> None:
    t = table(1, "QC QS 7D 9S KC 8H", seen="")
    found = convention(t)
    assert found is not None and found[0] is Convention.DEFENDER_LEADS_FAIL
    assert choose_conventional(t) not in TRUMP
    assert not keeps(t, parse_card("QC"))
    # With trump only there is no convention to keep.
    assert convention(table(1, "QC QS 7D", seen="")) is None


def test_points_go_onto_a_partners_sure_trick() -> None:
    # The picker (seat 0, known friend of the partner at seat 1) led the highest trump; the
    # partner has no trump (rule SS-5.2: any card may go) and schmears its ace.
    t = table(1, "AS 7S KC", friends={0}, trick=[(0, "QC")], picker_side=True)
    found = convention(t)
    assert found is not None and found[0] is Convention.SCHMEAR
    assert found[1] == frozenset({parse_card("AS")})
    assert choose_conventional(t) == parse_card("AS")


def test_no_schmear_onto_a_trick_a_foe_can_still_take() -> None:
    # The picker led the jack of diamonds: a foe after the partner may hold a higher trump.
    t = table(1, "AS 7S KC", friends={0}, trick=[(0, "JD")], picker_side=True)
    assert convention(t) is None


def position(seed: int, steps: int) -> Sheepshead:
    """A hand between five ``basic`` bots (seat ``s`` seeded ``s``) after ``steps`` actions."""
    g = Sheepshead.new(5, seed % 5, seed=seed)
    bots = [make_bot("basic", "sheepshead", seed=s) for s in range(5)]
    for _ in range(steps):
        seat = g.to_act()[0]
        g.apply(seat, bots[seat].choose(g.view(seat)))
    return g


def lead(g: Sheepshead, margin: float | None = None, *, searched: bool = False) -> int:
    """The strong bot's lead in ``g``; ``searched``: its search over every legal card, as it
    was before the lead conventions bound (the prior at ``margin`` its only guard)."""
    seat = g.to_act()[0]
    bot = SheepsheadStrongBot(
        5, seconds=None, prior_margin=PRIOR_MARGIN if margin is None else margin
    )
    view = g.view(seat)
    if searched:
        return bot.search(sheepshead_view(view), list(g.legal_cards(seat)))
    action = bot.choose(view)
    assert action.kind == "play"
    return action.cards[0]


@pytest.mark.parametrize(
    ("seed", "steps", "role"),
    [(46, 5, "defender"), (17, 13, "partner")],
)
def test_the_lead_conventions_bind_where_the_search_would_break_them(
    seed: int, steps: int, role: str
) -> None:
    g = position(seed, steps)
    seat = g.to_act()[0]
    assert g.trick_cards == [] and g.picker is not None
    if role == "defender":
        assert seat not in (g.picker, g.partner) and g.trick_number == 0
    else:
        assert seat == g.partner and any(c in TRUMP for c in g.hand(seat))
    # the search over every card breaks the convention ...
    searched = lead(g, margin=float("-inf"), searched=True)
    assert (searched in TRUMP) == (role == "defender")
    assert lead(g, margin=0.0, searched=True) == searched  # ... by a positive margin ...
    # ... smaller than the prior's, so the prior alone keeps the conventional lead ...
    assert (lead(g, searched=True) in TRUMP) == (role == "partner")
    # ... and the bot searches only the cards that keep it, whatever its prior
    for margin in (float("-inf"), None):
        assert (lead(g, margin) in TRUMP) == (role == "partner")


def pick_view_samples(seed: int, sequential: Sequential | None) -> tuple[Action, int]:
    """The first seat's pick decision on deal ``seed`` and how many samples it drew."""
    g = Sheepshead.new(5, 0, seed=seed)
    bot = SheepsheadStrongBot(1, seconds=None, bid_sequential=sequential)
    action = bot.choose(g.view(1))
    return action, bot.bidder.used


def test_sequential_bidding_stops_early_on_a_clear_hand() -> None:
    # TS KS AC KH QH JH: two trumps, an easy pass
    action, used = pick_view_samples(9, DEFAULT_BID_SEQUENTIAL)
    assert action.kind == "pass"
    assert used == DEFAULT_BID_SEQUENTIAL.first


@pytest.mark.slow
def test_sequential_bidding_samples_more_on_a_close_hand() -> None:
    # 8D QS JS 9C KC JH: four trumps without an ace, first to speak: close
    _, used = pick_view_samples(8, DEFAULT_BID_SEQUENTIAL)
    assert used == DEFAULT_BID_SEQUENTIAL.cap(2) > DEFAULT_BID_SEQUENTIAL.first
    # Without it every bid draws the fixed budget, clear or not.
    assert pick_view_samples(9, None)[1] == pick_view_samples(8, None)[1] == 64


def test_a_table_narrowed_to_the_conventional_cards_keeps_everything_else() -> None:
    # the playouts narrow a table without dataclasses.replace: every other field must follow
    t = table(2, "AH 9S KC 7D JD 8H", friends={0}, trick=[(0, "QC")], seen="QS", picker_side=True)
    t.voids[3].add(TRUMP_CLASS)
    narrowed = t.with_legal(parse_cards("7D JD"))
    assert narrowed == replace(t, legal=parse_cards("7D JD"))
    assert narrowed.legal == parse_cards("7D JD") and t.legal == parse_cards("AH 9S KC 7D JD 8H")
