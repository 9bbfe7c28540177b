"""Sheepshead views: what each seat and a spectator may see, and when hidden cards show."""

from __future__ import annotations

import json

from protocol.cards import card_code, parse_card
from protocol.views import result_of
from server.rules.sheepshead import Sheepshead
from tests.rules.ss_helpers import act, main_deal, new, play, recorded


def test_seat_sees_own_hand_spectator_sees_none() -> None:
    # rule SS-2.1
    game = Sheepshead.new(5, dealer=0, seed=12)
    for seat in range(5):
        view = game.view(seat)
        assert view["hand"] == sorted(card_code(c) for c in game.hand(seat))
        others = {card_code(c) for s in range(5) if s != seat for c in game.hand(s)}
        assert not others & set(json.dumps(view).replace('"', " ").split())
    spectator = game.view(None)
    assert spectator["hand"] is None and spectator["legal"] == []
    assert spectator["blind"] is None
    assert game.view(1)["legal"] == [{"kind": "pick"}, {"kind": "pass"}]
    assert game.view(2)["legal"] == []


def test_only_picker_sees_blind_and_buried() -> None:
    # rule SS-3.2
    game = new({1: "QC QS 7H 9S TS 8S"}, blind="AD KD")
    assert all(game.view(s)["blind"] is None for s in range(5))
    act(game, 1, "pick")
    assert game.view(1)["blind"] == ["AD", "KD"]
    act(game, 1, "bury 9S TS")
    assert game.view(1)["buried"] == ["9S", "TS"]
    for seat in (0, 2, 3, 4, None):
        view = game.view(seat)
        assert view["buried"] is None and view["blind"] is None
        assert "9S" not in json.dumps(view) and "TS" not in json.dumps(view)
    assert game.view(None)["picker"] == 1 and game.view(None)["hand_counts"][1] == 6


def test_partner_learns_from_hand_everyone_when_called_card_played() -> None:
    # rule SS-4.1, SS-6.2
    game = main_deal()
    assert game.view(3)["you_are_partner"] is True
    for seat in (0, 1, 2, 4, None):
        assert game.view(seat)["you_are_partner"] is False
    assert all(game.view(s)["partner"] is None for s in (0, 1, 2, 3, 4, None))
    assert game.view(None)["called"] == "AH"
    play(game, "8S", "AS", "7C", "KS", "7D")
    play(game, "JD", "KD", "QH", "8C", "JS")
    play(game, "TC", "9C", "8H", "9D", "QC")
    play(game, "7H", "AC")
    assert game.view(None)["partner"] is None
    assert game.view(None)["called_suit_led"] is True
    play(game, "AH")
    assert all(game.view(s)["partner"] == 3 for s in (0, 1, 2, 3, 4, None))
    view = game.view(None)
    assert view["played_counts"] == [3, 4, 4, 4, 3]
    assert view["hand_counts"] == [3, 2, 2, 2, 3]
    assert [c["card"] for c in view["trick"]["cards"]] == ["7H", "AC", "AH"]
    assert view["tricks_won"] == [1, 1, 1, 0, 0]


def test_partner_hidden_until_last_trick() -> None:
    # rule SS-6.3, SS-4.1
    full = recorded("partner_revealed_last_trick")
    result = full.outcome()
    assert result is not None and result.partner is not None and result.called is not None
    game = recorded("partner_revealed_last_trick", upto=0)
    for seat, action in full.log:
        revealed = game.view(None)["partner"]
        if game.phase == "play" and (game.view(None)["trick"]["number"] or 0) < 6:
            assert revealed is None
            for s in range(5):
                assert game.view(s)["partner"] is None
                assert game.view(s)["you_are_partner"] is (s == result.partner)
        game.apply(seat, action)
    last = game.view(None)["tricks"][5]
    assert any(c["card"] == card_code(result.called) for c in last["cards"])
    assert game.view(None)["partner"] == result.partner


def test_unknown_card_seen_by_picker_only_until_hand_ends() -> None:
    # rule SS-6.4
    game = recorded("unknown_led")
    result = game.outcome()
    assert result is not None and result.unknown is not None
    code = card_code(result.unknown)
    partial = recorded("unknown_led", upto=0)
    for seat, action in game.log:
        if partial.phase == "play":
            assert partial.view(result.picker)["unknown_card"] == code
            for s in (*[x for x in range(5) if x != result.picker], None):
                assert code not in json.dumps(partial.view(s)), (s, partial.view(s))
        events = partial.apply(seat, action)
        for e in events:
            if e.kind != "hand_over":
                assert result.unknown not in e.cards
    # Once over, everything is revealed to everyone.
    view = game.view(None)
    assert view["unknown_card"] == code and view["buried"] is not None
    assert view["blind"] is not None and result_of(view)["units"] == list(result.units)
    assert any(c["card"] == code and c["face_down"] for t in view["tricks"] for c in t["cards"])


def test_views_are_plain_json() -> None:
    # rule SS-5.1
    game = Sheepshead.new(5, 1, seed=77)
    while not game.is_over():
        for seat in (*range(5), None):
            assert json.loads(json.dumps(game.view(seat))) == game.view(seat)
        seat = game.to_act()[0]
        game.apply(seat, game.legal_actions(seat)[-1])
    assert game.view(None)["phase"] == "over" and game.view(None)["to_act"] == []
    assert parse_card(game.view(None)["tricks"][0]["cards"][0]["card"]) >= 0
