"""The terminal client shows each rated seat's rating change under a finished rated game, and
nothing in an unrated room; the lines fit the table's panel."""

from __future__ import annotations

from clients.terminal import tables
from protocol.messages import RatingShift, RoomInfo, SeatInfo, ShitheadOptions
from protocol.views import shithead_view
from server.rules.shithead import Shithead

NAMES = ["Maximiliana Wolkenstein-", "Bartholomew", "Zoë", "Ann", "Bot 5"]


def info(ratings: list[RatingShift] | None) -> RoomInfo:
    return RoomInfo(
        room="K7Q2M",
        game="shithead",
        status="between",
        seats=[SeatInfo(seat=i, kind="human", name=n, connected=True) for i, n in enumerate(NAMES)],
        spectators=0,
        locked=False,
        turn_timer=None,
        options=ShitheadOptions(),
        games_played=1,
        totals=[0, 0, 1, 0, 0],
        rated=True,
        ratings=ratings,
    )


def over() -> Shithead:
    game = Shithead.new(5, 0, seed=3)
    while not game.is_over():
        seat = game.to_act()[0]
        game.apply(seat, game.legal_actions(seat)[0])
    return game


def shift(seat: int, before: int, after: int) -> RatingShift:
    return RatingShift(
        seat=seat,
        player=f"p{seat}",
        before=before,
        after=after,
        delta=after - before,
        mu=25,
        sigma=8,
    )


def test_the_changes_are_shown_once_recorded() -> None:
    view = shithead_view(over().view(0))
    assert "Ratings" not in tables.shithead(view, info(None), 0).plain
    shifts = [shift(0, 0, 138), shift(1, 40, 12), shift(4, 7, 7)]
    text = tables.shithead(view, info(shifts), 0).plain
    tail = text[text.index("Ratings:") :]
    assert "You 138 +138" in tail  # seat 0 is the viewer's own
    assert "Bartholom" in tail and " 12 -28" in tail and "Bot 5 7 0" in tail
    assert all(len(line) <= 46 for line in tail.split("\n"))
