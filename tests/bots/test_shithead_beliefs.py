"""The strong Shithead bot's belief: a seat that took the pile once the stock was gone had no
card that would go on it (``basic`` picks up only then), so its unseen cards are dealt below."""

from __future__ import annotations

import random

import pytest

from protocol.cards import CODES, SEVEN, TEN, THREE, parse_card, parse_cards
from protocol.messages import ShitheadOptions
from server.bots import sampling
from server.bots.sampling import could_play_on, sample_shithead
from server.bots.shithead_strong import ShitheadStrongBot
from server.rules.base import Action
from server.rules.shithead import Shithead


@pytest.mark.parametrize(
    "rules",
    [
        ShitheadOptions(seven_lower=a, three_invisible=b)
        for a in (False, True)
        for b in (False, True)
    ],
    ids=str,
)
def test_could_play_on_follows_the_rules(rules: ShitheadOptions) -> None:
    # rule SH-1.3, SH-1.4, SH-4.1: 2s and 10s go on anything, anything goes on a 2, otherwise
    # an ordinary rank at least as high as the top card; rule SH-7.2, SH-7.4: a 7 that plays
    # lower takes 3 to 7, glass 3s go on anything (the belief's "goes on" is the core's)
    for top in range(52):
        if top >> 2 == TEN or (rules.three_invisible and top >> 2 == THREE):
            continue  # a 10 never stays on top (it burns); a glass 3 is never the card to beat
        for c in range(0, 52, 3):
            if c >> 2 == top >> 2:
                continue
            other = [CODES[x] for x in range(52) if x not in (c, top)][:3]
            g = Shithead.from_position(
                hands=[CODES[c], other[0]],
                face_up=["", other[1]],
                face_down=["", other[2]],
                pile=CODES[top],
                turn=0,
                options=rules,
            )
            playable = Action("play", (c,)) in g.legal_actions(0)
            assert could_play_on(c, top, rules) == playable, (rules, CODES[c], CODES[top])


def _after_a_forced_pickup() -> tuple[Shithead, ShitheadStrongBot]:
    """Seat 0 (strong) plays KH; seat 1 holds nothing that goes on it and takes the pile; seat
    2 opens the new pile; it is seat 0's turn again, with no stock."""
    g = Shithead.from_position(
        hands=["KH 5C", "3D 4D 8D", "9H 9C"],
        face_up=["AS", "AD", "AC"],
        face_down=["6S", "6D", "6C"],
        pile="QS",
        turn=0,
    )
    bot = ShitheadStrongBot(seed=1, iterations=8, horizon=20)
    bot.choose(g.view(0))  # this seat's turn: it notes the hand counts
    g.apply(0, Action("play", (parse_card("KH"),)))
    assert [a.kind for a in g.legal_actions(1)] == ["pickup"]
    g.apply(1, Action("pickup"))
    g.apply(2, Action("play", (parse_card("9H"),)))
    bot.choose(g.view(0))
    return g, bot


def test_strong_notes_the_top_of_a_pile_taken_after_the_stock() -> None:
    # rule SH-4.6: the pick-up ends seat 1's turn; the pile it took was topped by KH.
    _, bot = _after_a_forced_pickup()
    assert bot.picked_on == {1: parse_card("KH")}


def test_samples_follow_the_belief_only_when_it_is_on(monkeypatch: pytest.MonkeyPatch) -> None:
    g, bot = _after_a_forced_pickup()
    view = g.view(0)
    known = set(g.known[1])

    def unseen_cards(on: bool) -> list[int]:
        monkeypatch.setattr(sampling, "SHITHEAD_BELIEFS", on)
        rng = random.Random(3)
        cards = []
        for _ in range(40):
            sample = sample_shithead(view, rng, None, bot.picked_on)
            unseen = [c for c in sample.hands[1] if c not in known]
            assert len(unseen) == 3
            cards += unseen
        return cards

    top = parse_card("KH")
    assert not any(could_play_on(c, top) for c in unseen_cards(True))
    assert any(could_play_on(c, top) for c in unseen_cards(False))


def _pickup_on(
    seven: str, taker: str, rules: ShitheadOptions
) -> tuple[Shithead, ShitheadStrongBot]:
    """Seat 0 (strong) plays ``seven`` (one or more cards); seat 1, holding ``taker``, cannot go
    on it and takes the pile; seat 2 opens a new pile; seat 0 is to play again, no stock."""
    g = Shithead.from_position(
        hands=[f"{seven} 5C", taker, "4H 4C"],
        face_up=["AS", "AD", "AC"],
        face_down=["6S", "6D", "6C"],
        pile="5S",
        turn=0,
        options=rules,
    )
    bot = ShitheadStrongBot(seed=1, iterations=8, horizon=20)
    bot.choose(g.view(0))
    g.apply(0, Action("play", tuple(parse_cards(seven))))
    assert [a.kind for a in g.legal_actions(1)] == ["pickup"]
    g.apply(1, Action("pickup"))
    g.apply(2, Action("play", (parse_card("4H"),)))
    bot.choose(g.view(0))
    return g, bot


def test_the_belief_under_a_seven_that_plays_lower(monkeypatch: pytest.MonkeyPatch) -> None:
    # rule SH-7.2: seat 1 took a pile topped by a 7 that plays lower, so its unseen cards are
    # above 7 (ranks the book would let it play on a 7), not the 3s to 6s the book would deal
    rules = ShitheadOptions(seven_lower=True)
    g, bot = _pickup_on("7H", "9D JD KD", rules)
    seven = parse_card("7H")
    assert bot.picked_on == {1: seven}
    monkeypatch.setattr(sampling, "SHITHEAD_BELIEFS", True)
    view, known, rng = g.view(0), set(g.known[1]), random.Random(5)
    for _ in range(30):
        sample = sample_shithead(view, rng, None, bot.picked_on)
        unseen = [c for c in sample.hands[1] if c not in known]
        assert len(unseen) == 3
        assert all(c >> 2 > SEVEN and c >> 2 != TEN for c in unseen), [CODES[c] for c in unseen]
        assert all(could_play_on(c, seven) for c in unseen)  # the book's belief would differ


def test_the_belief_sees_through_glass_threes() -> None:
    # rule SH-7.4: a pile topped by a glass 3 on a 5 was refused for the 5, not for the 3
    rules = ShitheadOptions(three_invisible=True)
    _, bot = _pickup_on("3H", "4D 4S", rules)
    assert bot.picked_on == {1: parse_card("5S")}
