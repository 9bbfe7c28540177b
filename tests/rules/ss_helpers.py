"""Helpers for the Sheepshead tests: decks from hands, scripted actions, recorded hands."""

from __future__ import annotations

from protocol.cards import CODES, parse_card, parse_cards
from protocol.views import DoneTrick
from server.rules.base import Action, Event
from server.rules.sheepshead import Sheepshead
from server.rules.sheepshead_cards import DECK32, POINTS
from tests.rules.sheepshead_fixtures import HANDS


def deck_for(hands: dict[int, str], blind: str = "", dealer: int = 0) -> list[int]:
    """A deck (top first) dealing ``hands[seat]`` (six codes) to each seat and ``blind``.

    Seats or blind cards left out are filled with the remaining cards in increasing order.
    The deal order is the module's: six cards to the dealer's left, six to the next seat, …,
    then the two blind cards.
    """
    used = [c for text in hands.values() for c in parse_cards(text)] + parse_cards(blind)
    assert len(used) == len(set(used)), "a card given twice"
    rest = [c for c in DECK32 if c not in used]
    deck: list[int] = []
    for i in range(5):
        seat = (dealer + 1 + i) % 5
        cards = parse_cards(hands.get(seat, ""))
        while len(cards) < 6:
            cards.append(rest.pop(0))
        assert len(cards) == 6
        deck.extend(cards)
    blind_cards = parse_cards(blind)
    while len(blind_cards) < 2:
        blind_cards.append(rest.pop(0))
    deck.extend(blind_cards)
    assert sorted(deck) == sorted(DECK32)
    return deck


def new(hands: dict[int, str], blind: str = "", dealer: int = 0) -> Sheepshead:
    """A hand dealt from :func:`deck_for`."""
    return Sheepshead.new(5, dealer, deck=deck_for(hands, blind, dealer))


def main_deal(call: str = "call AH") -> Sheepshead:
    """Dealer 0; seat 1 picks, buries 9S TS and (unless ``call`` is empty) calls AH; seat 3 is
    the partner (AH 9H, no trump)."""
    game = new(
        {
            1: "QC QS 7H 9S TS 8S",
            2: "AS TC AC 7S QH JC",
            3: "AH 9H 7C 8C 9C KC",
            4: "KS TH KH 8H QD JS",
            0: "JH JD TD 9D 8D 7D",
        },
        blind="AD KD",
    )
    act(game, 1, "pick")
    act(game, 1, "bury 9S TS")
    if call:
        act(game, 1, call)
    return game


def act(game: Sheepshead, seat: int, text: str) -> list[Event]:
    """Apply ``text`` (e.g. ``"play QC"``) for ``seat``."""
    return game.apply(seat, Action.from_str(text))


def play(game: Sheepshead, *codes: str) -> list[Event]:
    """Play ``codes`` one by one, each by the seat whose turn it is."""
    events: list[Event] = []
    for code in codes:
        seat = game.to_act()[0]
        events += game.apply(seat, Action("play", (parse_card(code),)))
    return events


def parse_log(text: str) -> list[tuple[int, Action]]:
    """``"1 pick|1 bury 7C 8C|…"`` as a list of ``(seat, action)``."""
    out = []
    for entry in text.split("|"):
        seat, _, action = entry.partition(" ")
        out.append((int(seat), Action.from_str(action)))
    return out


def recorded(name: str, upto: int | None = None) -> Sheepshead:
    """Replay the recorded hand ``name`` (its first ``upto`` actions if given)."""
    dealer, deck, log = HANDS[name]
    game = Sheepshead.new(5, dealer, deck=parse_cards(deck))
    for seat, action in parse_log(log)[:upto]:
        game.apply(seat, action)
    return game


def trick_points(trick: DoneTrick) -> int:
    """Points of a trick from the view (over: every card shown)."""
    return sum(POINTS[CODES.index(c["card"] or "")] for c in trick["cards"])


def side_points_from_view(game: Sheepshead, side: set[int]) -> tuple[int, int]:
    """Card points and tricks taken by ``side``, counted from the final view's tricks."""
    view = game.view(None)
    tricks = [t for t in view["tricks"] if t["winner"] in side]
    return sum(trick_points(t) for t in tricks), len(tricks)
