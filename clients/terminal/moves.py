"""What the player can do now, read from the view and the room: the moves list (every legal
action, and the host's commands) and the hand's card selection. Nothing here knows a rule: the
view lists the legal actions (``legal``), the cards that go down together (``play_sets``) and the
cards that may be buried (``bury_from``).

>>> view = {"game": "shithead", "phase": "play", "seat": 0, "to_act": [0], "source": "hand",
...         "hand": ["7C", "7H", "9D"], "legal": [{"kind": "play", "cards": ["7C"]},
...         {"kind": "play", "cards": ["9D"]}, {"kind": "pickup"}],
...         "play_sets": [["7C", "7H"], ["9D"]]}
>>> [m.label.plain for m in game_moves(view)]
['Play 7♣', 'Play 7♣ 7♥', 'Play 9♦', 'Pick up the pile']
>>> hand = HandChoice.of(view)
>>> hand.toggle(["7C"], "7H"), hand.toggle(["7C"], "9D")
(['7C', '7H'], ['9D'])
>>> hand.action(["7C", "7H"])
ActionModel(kind='play', cards=['7C', '7H'], slot=None)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import get_args

import pytest
from rich.text import Text

from clients.terminal.cards import card_text, cards_text
from protocol.cards import RANKS, SUITS
from protocol.messages import ActionModel, BotLevel, HostOp, RoomInfo
from protocol.views import View

pytestmark = pytest.mark.slow

pytestmark = pytest.mark.slow

#: The levels a host may set, weakest first (those of the protocol).
BOT_LEVELS: tuple[BotLevel, ...] = get_args(BotLevel)


@dataclass(frozen=True)
class HostCommand:
    op: HostOp
    seat: int | None = None
    level: BotLevel | None = None


@dataclass(frozen=True)
class Move:
    """One line of the moves list: a game action, a host command, or leaving the room."""

    label: Text
    action: ActionModel | None = None
    host: HostCommand | None = None
    leave: bool = False


#: The last line of every moves list.
LEAVE = Move(Text("Leave the room", style="dim"), leave=True)


def play_sets(view: View) -> list[list[str]]:
    """The view's ``play_sets`` (Shithead): each list holds cards of one rank that may go down
    together now."""
    return [list(s) for s in view["play_sets"]] if view["game"] == "shithead" else []


#: The actions that name no card, as the moves list says them.
_PLAIN_ACTIONS = {
    "ready": "Ready: keep these face-up cards",
    "pick": "Pick up the blind",
    "pass": "Pass",
    "alone": "Go alone",
    "jd_partner": "Partner: whoever holds the jack of diamonds",  # SS-10.2
    "crack": "Crack: double the stakes",  # SS-10.4
    "recrack": "Re-crack: double the stakes again",
    "no_crack": "Do not double the stakes",
}


def action_label(a: ActionModel) -> Text:
    c = a.cards
    if a.kind in _PLAIN_ACTIONS:
        return Text(_PLAIN_ACTIONS[a.kind])
    match a.kind:
        case "swap":
            return Text.assemble("Swap ", card_text(c[0]), " in hand for ", card_text(c[1]), " up")
        case "play":
            return Text.assemble("Play ", cards_text(c))
        case "pickup" if c:
            return Text.assemble("Add ", cards_text(c), " and pick up the pile")
        case "pickup":
            return Text("Pick up the pile")
        case "flip":
            return Text(f"Turn over face-down card {(a.slot or 0) + 1}")
        case "bury":
            return Text.assemble("Bury ", cards_text(c))
        case "call":
            return Text.assemble("Call ", cards_text(c))
        case "call_unknown":
            return Text.assemble("Call ", card_text(c[0]), ", ", card_text(c[1]), " unknown")
    return Text(" ".join([a.kind, *c]))


def game_moves(view: View) -> list[Move]:
    """Every legal action of the view, Shithead's plays spelled out from ``play_sets`` (each
    rank with one card, two, ... all of them)."""
    legal = [ActionModel.model_validate(a) for a in view["legal"]]
    sets = play_sets(view)
    moves: list[Move] = []
    for cards in sets:
        for n in range(1, len(cards) + 1):
            action = ActionModel(kind="play", cards=cards[:n])
            moves.append(Move(action_label(action), action=action))
    for action in legal:
        if sets and action.kind == "play":
            continue  # listed from play_sets above
        moves.append(Move(action_label(action), action=action))
    return moves


def host_moves(info: RoomInfo | None, me: int | None) -> list[Move]:
    """The host's commands that make sense in the room's status (none for anyone else)."""
    if info is None or me is None or not any(s.host and s.seat == me for s in info.seats):
        return []
    status = info.status
    moves: list[Move] = []

    def add(label: str, op: HostOp, seat: int | None = None, level: BotLevel | None = None) -> None:
        moves.append(Move(Text(label, style="cyan"), host=HostCommand(op, seat, level)))

    if status == "lobby":
        add("Start the game (bots fill empty seats)", "start")
    if status == "between":
        add("Deal the next game", "next_game")
    if status in ("lobby", "between") and any(s.kind == "empty" for s in info.seats):
        add("Fill the empty seats with basic bots", "fill_bots", level="basic")
    for s in info.seats:
        where = f"seat {s.seat + 1}"
        if s.kind == "empty" and status in ("lobby", "between"):
            add(f"Add a basic bot to {where}", "add_bot", s.seat, "basic")
            add(f"Add a strong bot to {where}", "add_bot", s.seat, "strong")
        elif s.kind == "bot" and status not in ("over", "closed"):
            for other in BOT_LEVELS:
                if other != s.bot_level:  # never offer the level the bot already plays at
                    add(f"Make {s.name} ({where}) {other}", "set_bot_level", s.seat, other)
            if status == "lobby":
                add(f"Remove {s.name} from {where}", "remove_bot", s.seat)
        elif s.kind == "human" and s.seat != me and status not in ("over", "closed"):
            add(f"Kick {s.name} ({where})", "kick", s.seat)
    if status not in ("over", "closed"):
        add(
            "Unlock the room" if info.locked else "Lock the room",
            "unlock" if info.locked else "lock",
        )
    return moves


def _by_rank(code: str) -> tuple[int, int]:
    """The order the server sorts hands in: by rank (2 … A), then suit."""
    return RANKS.index(code[0]), SUITS.index(code[1])


@dataclass(frozen=True)
class HandChoice:
    """Which of the shown cards may be selected now, and the action a selection makes.

    ``mode`` is ``"play"`` (Shithead: cards of one set, any number), ``"one"`` (Sheepshead: one
    card to play), ``"bury"`` (two cards) or ``"none"``.
    """

    cards: list[str]
    where: str = "Hand"
    mode: str = "none"
    sets: list[list[str]] = field(default_factory=list)

    @classmethod
    def of(cls, view: View | None) -> HandChoice:
        if view is None:
            return cls([])
        seat = view["seat"]
        if seat is None:
            return cls([], "Watching")
        legal = [ActionModel.model_validate(a) for a in view["legal"]]
        if view["game"] == "shithead":
            cards = list(view["hand"] or [])
            where = "Hand"
            if view["source"] == "face_up" and view["turn"] == seat and not cards:
                cards, where = sorted(view["seats"][seat]["face_up"], key=_by_rank), "Face up"
            sets = play_sets(view)
            return cls(cards, where, "play" if sets else "none", sets)
        cards = list(view["hand"] or [])
        bury = list(view["bury_from"])
        if not bury:
            bury = sorted({c for a in legal if a.kind == "bury" for c in a.cards})
        if bury:
            return cls(cards, "Hand", "bury", [bury])
        plays = [a.cards[0] for a in legal if a.kind == "play" and a.cards]
        unknown = view["unknown_card"]
        if view["phase"] == "play" and unknown is not None and unknown not in cards:
            # SS-4.3: the picker's unknown card is set aside, not in the hand, and must be
            # played when its suit is led or at the last trick (SS-6.4): drawn at the end of
            # the hand, as on the web, so that Enter can play it (it had no card to stand on)
            cards.append(unknown)
        return cls(cards, "Hand", "one" if plays else "none", [[c] for c in plays])

    def selectable(self, code: str) -> bool:
        return any(code in s for s in self.sets)

    def toggle(self, selected: list[str], code: str) -> list[str]:
        """The selection after Space on ``code``."""
        if not self.selectable(code):
            return selected
        if code in selected:
            return [c for c in selected if c != code]
        if self.mode == "play":
            same = [c for c in selected if any(code in s and c in s for s in self.sets)]
            return [*same, code]
        if self.mode == "bury":
            return [*selected[-1:], code]
        return [code]

    def action(self, selected: list[str]) -> ActionModel | None:
        """The action a selection makes, if it is a whole legal one."""
        if not selected or not all(self.selectable(c) for c in selected):
            return None
        match self.mode:
            case "play" if any(set(selected) <= set(s) for s in self.sets):
                return ActionModel(kind="play", cards=selected)
            case "one" if len(selected) == 1:
                return ActionModel(kind="play", cards=selected)
            case "bury" if len(selected) == 2:
                return ActionModel(kind="bury", cards=selected)
        return None

    def hint(self, selected: list[str]) -> str:
        match self.mode:
            case "play":
                return "Space: select cards of one rank · Enter: play them"
            case "bury":
                return f"Space: choose two cards to bury ({len(selected)}/2) · Enter: bury"
            case "one":
                return "←/→ choose · Enter: play the card"
        return ""
