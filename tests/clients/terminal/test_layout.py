"""The tables fit their panel in an 80×24 terminal (48 columns, 14 rows) in every position of
whole random games of both games, from a seat and as a spectator; and the hand selects several
cards of one rank with the keyboard."""

from __future__ import annotations

import random

import pytest
from rich.text import Text

from clients.terminal import tables
from clients.terminal.cards import label
from clients.terminal.moves import HandChoice, game_moves
from clients.terminal.widgets import HandBar
from protocol.messages import (
    ActionModel,
    RoomInfo,
    SeatInfo,
    SheepsheadOptions,
    ShitheadOptions,
    State,
)
from protocol.views import ShitheadView, View, sheepshead_view, shithead_view
from server.bots import make_bot
from server.rules.base import Action, Game
from server.rules.sheepshead import Sheepshead
from server.rules.shithead import Shithead
from tests.clients.terminal.conftest import HandApp

WIDTH, HEIGHT = 48, 14
LONG = ["Bartholomew", "Ann", "Maximiliana Wolkenstein-", "Bot 4", "Zoë"]  # up to 24


def _info(game: str, players: int) -> RoomInfo:
    return RoomInfo(
        room="K7Q2M",
        game=game,  # type: ignore[arg-type]
        status="playing",
        seats=[
            SeatInfo(seat=i, kind="human", name=LONG[i], connected=True, host=i == 0)
            for i in range(players)
        ],
        spectators=3,
        locked=False,
        turn_timer=30,
        options=ShitheadOptions() if game == "shithead" else SheepsheadOptions(),
        games_played=4,
        totals=[-12, 7, 3, -1, 3][:players],
        match_length=10 if game == "sheepshead" else None,
    )


def _fits(text: Text, where: str) -> None:
    lines = text.plain.split("\n")
    assert len(lines) <= HEIGHT, f"{where}: {len(lines)} rows\n{text.plain}"
    wide = [line for line in lines if text.__class__(line).cell_len > WIDTH]
    assert not wide, f"{where}: too wide: {wide}"


def _random_game(game: Game, seed: int) -> list[View]:
    """Every view of seat 0 and of a spectator along one game of basic bots (random choices
    one time in four, for variety)."""
    rng = random.Random(seed)
    bot = make_bot("basic", game.view(None)["game"], seed=seed)
    views: list[View] = []
    while True:
        views += [game.view(0), game.view(None)]
        seats = game.to_act()
        if not seats:
            return views
        seat = rng.choice(seats)
        if rng.random() < 0.25:
            action = rng.choice(game.legal_actions(seat))
        else:
            action = bot.choose(game.view(seat))
        game.apply(seat, action)


@pytest.mark.slow
def test_the_shithead_table_fits_in_every_position() -> None:
    for players in (2, 5):
        info = _info("shithead", players)
        for seed in range(6):
            for view in _random_game(Shithead.new(players, 0, seed=seed), seed):
                _fits(
                    tables.shithead(shithead_view(view), info, view["seat"]), f"{players} players"
                )
    _fits(tables.lobby(_info("shithead", 5), 0), "lobby")


def test_the_sheepshead_table_fits_in_every_position() -> None:
    info = _info("sheepshead", 5)
    for seed in range(12):
        for view in _random_game(Sheepshead.new(5, 0, seed=seed), seed):
            _fits(
                tables.sheepshead(sheepshead_view(view), info, view["seat"], "Hand 5/10 ·"),
                "sheepshead",
            )
            if view["seat"] is not None:
                # every legal action is in the moves list
                listed = [m.action for m in game_moves(view)]
                for a in view["legal"]:
                    assert ActionModel.model_validate(a) in listed


def _shithead_turn() -> ShitheadView:
    """A real view in which seat 0 holds two or more cards of one rank and may play them."""
    for seed in range(200):
        game = Shithead.new(3, 0, seed=seed)
        for seat in range(3):
            game.apply(seat, Action.from_str("ready"))
        seat = game.to_act()[0]
        view = game.view(seat)
        if any(len(s) >= 2 for s in view["play_sets"]):
            return view
    raise AssertionError("no deal with a pair to play")


@pytest.mark.slow
async def test_the_hand_plays_several_cards_of_one_rank() -> None:
    view = _shithead_turn()
    choice = HandChoice.of(view)
    pair = next(s for s in view["play_sets"] if len(s) >= 2)[:2]
    app = HandApp(choice)
    async with app.run_test(size=(80, 4)) as pilot:
        hand = app.query_one(HandBar)
        await pilot.press("home")
        position = 0
        for card in pair:
            target = choice.cards.index(card)
            await pilot.press(*["right"] * (target - position), "space")
            position = target
        assert hand.selected == pair
        # a card of another rank starts a new selection: one rank at a time
        other = next((c for c in choice.cards if choice.selectable(c) and c[0] != pair[0][0]), None)
        if other is not None:
            assert choice.toggle(pair, other) == [other]
        await pilot.press("enter")
        assert app.chosen == [ActionModel(kind="play", cards=pair)]
        assert "reverse" not in str(hand.render().spans)  # the selection is cleared


def test_the_header_fits_and_keeps_what_matters_most() -> None:
    info = _info("sheepshead", 5).model_copy(update={"status": "paused", "games_played": 9})
    view = Sheepshead.new(5, 0, seed=1).view(None)
    state = State(room="K7Q2M", version=3, seat=None, view=view, deadline=1000.0)
    top = tables.top_line(info, state, None, "reconnecting", now=995.5)
    assert top.cell_len <= 78
    text = top.plain
    assert text.startswith("K7Q2M Sheepshead") and "reconnecting" in text and "0:04 left" in text
    mine = Shithead.new(2, 0, seed=1).view(0)
    state = State(room="K7Q2M", version=1, seat=0, view=mine, deadline=None)
    top = tables.top_line(_info("shithead", 2), state, 0, "online", now=0)
    assert "YOUR TURN" in top.plain and "online" in top.plain and "left" not in top.plain


@pytest.mark.slow
async def test_a_big_hand_scrolls_with_the_cursor_and_fits_one_row() -> None:
    cards = [r + s for r in "23456789TJQKA" for s in "CDH"]  # 39 cards after a big pickup
    view: ShitheadView = {
        **Shithead.new(2, 0, seed=1).view(0),  # a real view, its play turned to a big hand
        "game": "shithead",
        "phase": "play",
        "seat": 0,
        "turn": 0,
        "to_act": [0],
        "source": "hand",
        "hand": cards,
        "legal": [{"kind": "pickup"}],
        "play_sets": [["AC", "AD", "AH"]],
    }
    app = HandApp(HandChoice.of(view))
    async with app.run_test(size=(80, 4)) as pilot:
        hand = app.query_one(HandBar)
        for _ in range(2):
            row = hand.render().plain.split("\n")[0]
            assert Text(row).cell_len <= 78
            assert label(hand.choice.cards[hand.cursor]) in row  # the cursor's card shows
            await pilot.press(*["left"] * 20)
        await pilot.press("end")
        assert hand.cursor == len(cards) - 1 and "A♥" in hand.render().plain


@pytest.mark.slow
def test_the_tables_fit_with_house_rules_and_the_highest_stakes() -> None:
    # SH-7.5, SS-10.6: the rules in force, the card to beat, the multiplier and the cracks
    # are shown too; with the longest names and the highest stakes the tables still fit
    sh = ShitheadOptions(seven_lower=True, eight_skips=True, three_invisible=True)
    info = _info("shithead", 5).model_copy(update={"options": sh})
    for seed in range(4):
        for view in _random_game(Shithead.new(5, 0, seed=seed, options=sh), seed):
            _fits(tables.shithead(shithead_view(view), info, view["seat"]), "house shithead")
    _fits(tables.lobby(info, 0), "house lobby")
    for ss in (
        SheepsheadOptions(partner="jack_of_diamonds", no_pick="doubler", crack=True),
        SheepsheadOptions(partner="called_ace", no_pick="forced", crack=True),
    ):
        info = _info("sheepshead", 5).model_copy(update={"options": ss})
        _fits(tables.lobby(info, 0), "house lobby")
        for seed in range(8):
            carried = 2 if ss.no_pick == "doubler" else 1  # only the doubler carries stakes
            game = Sheepshead.new(5, 0, seed=seed, options=ss, multiplier=carried)
            for view in _random_game(game, seed):
                shown = tables.sheepshead(sheepshead_view(view), info, view["seat"], "Hand 5/10 ·")
                _fits(shown, f"house sheepshead {ss}")
