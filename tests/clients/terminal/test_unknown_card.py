"""The Sheepshead picker's unknown card (SS-4.3) in the terminal hand: set aside out of the
hand, it is drawn at the end of it, and when it is the only card that may be played (SS-6.4)
Enter plays it. Before, the hand offered one card to play and showed none it could stand on:
Enter said "not a move you can make now" (the live keyboard test failed on such deals)."""

from __future__ import annotations

from clients.terminal.moves import HandChoice
from clients.terminal.widgets import HandBar
from protocol.messages import ActionModel
from protocol.views import SheepsheadView, sheepshead_view
from server.rooms.matches import Match
from server.rules.base import Action
from tests.clients.terminal.conftest import HandApp
from tests.support.web import scripted_deal


def _must_play_the_unknown_card() -> SheepsheadView:
    """A real view of seat 0, the picker who called under an unknown card, at the moment that
    card is its only legal play (every seat plays its first legal card until then)."""
    seed, bury = scripted_deal(lambda kinds: "call_unknown" in kinds)
    game = Match.create("sheepshead", 5, seed=seed).current
    game.apply(0, Action.from_str("pick"))
    game.apply(0, Action.from_str("bury " + " ".join(bury)))
    call = next(a for a in game.view(0)["legal"] if a["kind"] == "call_unknown")
    game.apply(0, Action.from_json(call))
    while not game.is_over():
        seat = game.to_act()[0]
        view = sheepshead_view(game.view(seat))
        if seat == 0 and view["legal"] == [{"kind": "play", "cards": [view["unknown_card"]]}]:
            return view
        game.apply(seat, game.legal_actions(seat)[0])
    raise AssertionError("the unknown card was never the only play")


async def test_the_unknown_card_is_in_the_hand_and_enter_plays_it_when_it_must_go() -> None:
    view = _must_play_the_unknown_card()  # rule SS-4.3, SS-6.4
    under = view["unknown_card"]
    assert under is not None and under not in (view["hand"] or [])
    choice = HandChoice.of(view)
    assert choice.mode == "one" and choice.cards[-1] == under and choice.selectable(under)
    app = HandApp(choice)
    async with app.run_test(size=(80, 4)) as pilot:
        hand = app.query_one(HandBar)
        assert hand.choice.cards[hand.cursor] == under  # the cursor starts on it
        await pilot.press("enter")
    assert app.chosen == [ActionModel(kind="play", cards=[under])]
