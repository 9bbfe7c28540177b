"""The hand: the player's cards in a row, a cursor moved with the arrow keys, a selection made
with Space (several cards of one rank in Shithead, two cards to bury in Sheepshead), played with
Enter."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widget import Widget

from clients.terminal.cards import card_text, label
from clients.terminal.moves import HandChoice
from protocol.messages import ActionModel


class HandBar(Widget, can_focus=True):
    """Two rows: the cards, then what the keys do now."""

    DEFAULT_CSS = """
    HandBar { height: 2; padding: 0 1; }
    HandBar:focus { background: $boost; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "move(-1)", "←", show=False),
        Binding("right", "move(1)", "→", show=False),
        Binding("home", "move(-99)", show=False),
        Binding("end", "move(99)", show=False),
        Binding("space", "select_card", "Select"),
        Binding("enter", "play", "Play"),
    ]

    class Chosen(Message):
        """The player chose an action with the hand."""

        def __init__(self, action: ActionModel) -> None:
            super().__init__()
            self.action = action

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.choice = HandChoice([])
        self.cursor = 0
        self.selected: list[str] = []
        self.hinted: set[str] = set()  # the cards of the hint on screen, marked

    def set_choice(self, choice: HandChoice) -> None:
        """New cards or a new turn: keep the cursor on the same card and the selection that
        is still possible."""
        current = self.choice.cards[self.cursor] if self.choice.cards else None
        self.choice = choice
        self.selected = [c for c in self.selected if choice.selectable(c)]
        if current in choice.cards:
            self.cursor = choice.cards.index(current)
        else:
            self.cursor = min(self.cursor, max(0, len(choice.cards) - 1))
        cards = choice.cards
        if choice.mode != "none" and cards and not choice.selectable(cards[self.cursor]):
            # start on a card that can be chosen
            firsts = [i for i, c in enumerate(cards) if choice.selectable(c)]
            self.cursor = firsts[0] if firsts else self.cursor
        self.refresh()

    def action_move(self, step: int) -> None:
        if self.choice.cards:
            self.cursor = max(0, min(len(self.choice.cards) - 1, self.cursor + step))
            self.refresh()

    def action_select_card(self) -> None:
        if self.choice.cards:
            self.selected = self.choice.toggle(self.selected, self.choice.cards[self.cursor])
            self.refresh()

    def action_play(self) -> None:
        selected = self.selected
        if not selected and self.choice.cards:
            selected = [self.choice.cards[self.cursor]]
        action = self.choice.action(selected)
        if action is None:
            self.notify("Not a move you can make now", severity="warning", timeout=2)
            return
        self.selected = []
        self.post_message(self.Chosen(action))
        self.refresh()

    def render(self) -> Text:
        cards = self.choice.cards
        line = Text(f"{self.choice.where}: ", style="bold")
        if not cards:
            empty = "every hand is hidden" if self.choice.where == "Watching" else "(no cards)"
            line.append(empty, style="dim")
        width = max(10, self.size.width - len(line.plain) - 2)
        start, end = _window(cards, self.cursor, width)
        if start > 0:
            line.append("… ", style="dim")
        for i in range(start, end):
            code = cards[i]
            extra = []
            if code in self.selected:
                extra.append("reverse")
            if code in self.hinted:
                extra.append("on dark_blue")
            if i == self.cursor and self.has_focus:
                extra.append("underline")
            if self.choice.mode != "none" and not self.choice.selectable(code):
                line.append(label(code), style="grey42")  # not playable now
            else:
                line.append_text(card_text(code, " ".join(extra)))
            line.append(" ")
        if end < len(cards):
            line.append("…", style="dim")
        hint = self.choice.hint(self.selected) if self.has_focus else ""
        if not hint and self.choice.mode != "none":
            hint = "Tab here to choose cards with the keyboard"
        return Text.assemble(line, "\n", (hint, "dim italic"))

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()


def _window(cards: list[str], cursor: int, width: int) -> tuple[int, int]:
    """The cards to show (``[start, end)``) so that the cursor's card is visible."""
    widths = [len(label(c)) + 1 for c in cards]
    if sum(widths) <= width:
        return 0, len(cards)
    start = cursor
    used = widths[cursor] if cards else 0
    end = cursor + 1
    while True:
        grown = False
        if end < len(cards) and used + widths[end] <= width - 2:
            used += widths[end]
            end += 1
            grown = True
        if start > 0 and used + widths[start - 1] <= width - 4:
            start -= 1
            used += widths[start]
            grown = True
        if not grown:
            return start, end
