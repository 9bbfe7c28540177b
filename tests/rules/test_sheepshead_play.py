"""Sheepshead trick play and the obligations of the called suit (SS-5, SS-6)."""

from __future__ import annotations

import random

import pytest

from protocol.cards import card_code, parse_card, parse_cards
from server.rules.base import IllegalAction
from server.rules.sheepshead import Sheepshead
from server.rules.sheepshead_cards import SUIT_CLASS
from tests.rules.ss_helpers import act, main_deal, new, play, recorded


def legal_cards(game: Sheepshead, seat: int) -> set[int]:
    return {a.cards[0] for a in game.legal_actions(seat)}


def refused(game: Sheepshead, seat: int, text: str) -> str:
    before = (game.view(None), [game.view(s) for s in range(5)], list(game.log))
    with pytest.raises(IllegalAction) as err:
        act(game, seat, text)
    assert (game.view(None), [game.view(s) for s in range(5)], list(game.log)) == before
    return err.value.code


def second_deal() -> Sheepshead:
    """Dealer 0; seat 1 picks, buries 9S TS, calls AH; the partner (seat 3) holds AH 9H KH."""
    game = new(
        {
            1: "QC QS 7H 8S 9S TS",
            2: "AC TC KC 9C 8C 7C",
            3: "AH 9H KH AS 7D 7S",
            4: "TH 8H QH QD JC JS",
            0: "JH JD TD 9D 8D KS",
        },
        blind="AD KD",
    )
    act(game, 1, "pick")
    act(game, 1, "bury 9S TS")
    act(game, 1, "call AH")
    return game


def test_dealers_left_leads_first_and_winner_leads_next() -> None:
    # rule SS-5.1
    game = main_deal()
    assert game.to_act() == (1,)
    events = play(game, "8S", "AS", "7C", "KS", "7D")
    trick = next(e for e in events if e.kind == "trick")
    assert trick.seat == 0 and trick.data is not None and trick.data["points"] == 15
    assert game.to_act() == (0,)
    # In a leaster too, the dealer's left leads.
    leaster = Sheepshead.new(5, dealer=3, seed=1)
    for seat in (4, 0, 1, 2, 3):
        act(leaster, seat, "pass")
    assert leaster.to_act() == (4,)


def test_must_follow_suit_and_all_trumps_are_one_suit() -> None:
    # rule SS-5.2
    game = main_deal()
    # Spades led: seat 2 holds AS 7S and must play one of them.
    play(game, "8S")
    assert legal_cards(game, 2) == set(parse_cards("AS 7S"))
    assert refused(game, 2, "play TC") == "must_follow_suit"
    play(game, "AS", "7C", "KS", "7D")
    # Trump led (JD): the picker must follow with a trump; AD and KD are trumps.
    play(game, "JD")
    assert legal_cards(game, 1) == set(parse_cards("QC QS AD KD"))
    assert refused(game, 1, "play 7H") == "must_follow_suit"
    # A player without the led suit may play any card (seat 0 after a spade lead).
    play(game, "KD", "QH", "8C", "JS")


def test_highest_trump_wins_else_highest_of_suit_led() -> None:
    # rule SS-5.3
    game = main_deal()
    events = play(game, "8S", "AS", "7C", "KS", "7D")
    assert [e.seat for e in events if e.kind == "trick"] == [0]  # 7D beats AS
    events = play(game, "JD", "KD", "QH", "8C", "JS")
    assert [e.seat for e in events if e.kind == "trick"] == [2]  # QH highest trump
    # No trump in the trick: the highest card of the suit led wins, off-suit aces do not.
    other = second_deal()
    events = play(other, "8S", "AC", "AS", "8H", "KS")
    assert [e.seat for e in events if e.kind == "trick"] == [3]


def test_partner_keeps_called_card_and_picker_keeps_last_hold_card() -> None:
    # rule SS-6.1
    game = main_deal()
    # The picker may lead the hold card: leading the called suit counts as leading it.
    assert parse_card("7H") in legal_cards(game, 1)
    play(game, "8S", "AS")
    # Partner (seat 3) cannot follow spades and may not throw off the called ace.
    assert legal_cards(game, 3) == set(parse_cards("9H 7C 8C 9C KC"))
    assert refused(game, 3, "play AH") == "must_keep_called_card"
    play(game, "7C", "KS", "7D")
    play(game, "JD", "KD", "QH", "8C", "JS")
    # Clubs led; the picker is void in clubs and may not throw off 7H, its last heart.
    play(game, "TC", "9C", "8H", "9D")
    assert legal_cards(game, 1) == set(parse_cards("QC QS AD"))
    assert refused(game, 1, "play 7H") == "called_suit_hold"
    play(game, "QC")
    assert game.to_act() == (1,)


def test_partner_must_play_called_card_when_called_suit_first_led() -> None:
    # rule SS-6.2
    game = main_deal()
    play(game, "8S", "AS", "7C", "KS", "7D")
    play(game, "JD", "KD", "QH", "8C", "JS")
    play(game, "TC", "9C", "8H", "9D", "QC")
    # The picker leads the called suit for the first time; the partner holds AH and 9H.
    play(game, "7H", "AC")
    assert legal_cards(game, 3) == {parse_card("AH")}
    assert refused(game, 3, "play 9H") == "must_play_called_card"
    events = play(game, "AH")
    assert [e.kind for e in events] == ["played", "partner_revealed"]
    assert game.view(None)["partner"] == 3


def test_partner_leading_the_called_suit_first_leads_the_called_card() -> None:
    # rule SS-6.2
    game = second_deal()
    play(game, "8S", "7C", "AS", "8H", "KS")
    assert game.to_act() == (3,)
    assert legal_cards(game, 3) == set(parse_cards("AH 7D 7S"))
    assert refused(game, 3, "play 9H") == "must_play_called_card"
    events = play(game, "AH")
    assert events[-1].kind == "partner_revealed" and events[-1].seat == 3
    assert legal_cards(game, 4) == {parse_card("TH")}  # the others just follow suit
    # The same situation from a recorded hand: the partner leads the called card.
    rec = recorded("partner_leads_called")
    result = rec.outcome()
    assert result is not None and result.partner is not None and result.called is not None
    suit = SUIT_CLASS[result.called]
    first = next(
        t for t in rec.view(None)["tricks"] if SUIT_CLASS[parse_card(t["cards"][0]["card"])] == suit
    )
    assert first["leader"] == result.partner
    assert parse_card(first["cards"][0]["card"]) == result.called


def test_obligations_lapse_on_the_last_trick() -> None:
    # rule SS-6.3
    rng = random.Random(63)
    lapsed = 0
    for i in range(400):
        game = Sheepshead.new(5, i % 5, seed=rng.getrandbits(32))
        while not game.is_over():
            seat = game.to_act()[0]
            legal = game.legal_actions(seat)
            if game.phase == "pick":
                action = legal[0]
            elif game.phase == "call":
                calls = [a for a in legal if a.kind == "call"]
                action = calls[0] if calls else legal[-1]
            else:
                action = rng.choice(legal)
            view = game.view(seat)
            if game.phase == "play" and view["trick"]["number"] == 6:
                # Each seat plays the one card it has left, whatever it is.
                held = [card_code(c) for c in game.hand(seat)] or [view["unknown_card"] or ""]
                assert [a.to_str() for a in legal] == [f"play {held[0]}"]
                trick = view["trick"]["cards"]
                led = parse_card(trick[0]["card"]) if trick and trick[0]["card"] else None
                if (
                    game.called is not None
                    and legal[0].cards[0] == game.called
                    and led is not None
                    and SUIT_CLASS[led] != SUIT_CLASS[game.called]
                ):
                    lapsed += 1  # the partner throws off the called card on the last trick
            game.apply(seat, action)
    assert lapsed > 0


def unknown_deal(lead: str) -> Sheepshead:
    """Dealer 2; seat 1 picks, buries JS JH and calls AH setting QC aside as the unknown card.
    Seat 3 leads first; seat 4 is the partner."""
    game = new(
        {
            1: "AC QC QS QH QD JC",
            3: "7H 8H 9H AS TS KS",
            4: "AH TH KH 9S 8S 7S",
            0: "AD TD KD 9D 8D 7D",
            2: "TC KC 9C 8C 7C JD",
        },
        blind="JS JH",
        dealer=2,
    )
    for seat in (3, 4, 0):
        act(game, seat, "pass")
    act(game, 1, "pick")
    act(game, 1, "bury JS JH")
    act(game, 1, "call_unknown AH QC")
    play(game, lead)
    return game


def test_unknown_card_played_face_down_when_called_suit_led_and_never_wins() -> None:
    # rule SS-6.4
    game = unknown_deal("7H")
    assert refused(game, 4, "play TH") == "must_play_called_card"
    play(game, "AH", "7D")
    # The picker's only legal play is the unknown card, though it holds other trumps.
    assert [a.to_str() for a in game.legal_actions(1)] == ["play QC"]
    assert refused(game, 1, "play QS") == "unknown_card_locked"
    events = play(game, "QC")
    assert events == [events[0]] and events[0].cards == () and events[0].data == {"face_down": True}
    assert all("QC" not in str(game.view(s)) for s in (0, 2, 3, 4, None))
    events = play(game, "7C")
    trick = next(e for e in events if e.kind == "trick")
    # QC is the highest trump but face down it never wins; its 3 points go to the winner.
    assert trick.seat == 0
    assert trick.data == {"number": 1, "points": 11, "face_down": True}
    assert game.card_places()[parse_card("QC")] == "won:0"


def test_unknown_card_cannot_be_played_before_the_called_suit_is_led() -> None:
    # rule SS-6.4
    game = unknown_deal("AS")
    play(game, "7S", "7D")
    assert parse_card("QC") not in legal_cards(game, 1)
    assert legal_cards(game, 1) == set(parse_cards("AC QS QH QD JC"))
    assert refused(game, 1, "play QC") == "unknown_card_locked"


def test_unknown_card_goes_to_last_trick_when_called_suit_never_led() -> None:
    # rule SS-6.4
    game = recorded("unknown_never_led")
    result = game.outcome()
    assert result is not None and result.unknown is not None and result.called is not None
    view = game.view(None)
    suit = SUIT_CLASS[result.called]
    leads = [
        parse_card(next(c["card"] for c in t["cards"] if not c["face_down"]))
        for t in view["tricks"]
    ]
    assert all(SUIT_CLASS[c] != suit for c in leads[:5])
    last = view["tricks"][5]
    fd = [c for c in last["cards"] if c["face_down"]]
    assert len(fd) == 1 and fd[0]["seat"] == result.picker
    assert fd[0]["card"] == card_code(result.unknown)
    assert all(not c["face_down"] for t in view["tricks"][:5] for c in t["cards"])
    # Step through again: before the last trick the unknown card was never a legal play.
    replay = recorded("unknown_never_led", upto=0)
    for seat, action in game.log:
        if replay.phase == "play" and seat == result.picker:
            cards = {a.cards[0] for a in replay.legal_actions(seat)}
            if (replay.view(seat)["trick"]["number"] or 0) < 6:
                assert result.unknown not in cards
            else:
                assert cards == {result.unknown}
        replay.apply(seat, action)
