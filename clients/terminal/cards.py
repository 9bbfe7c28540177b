"""Cards as coloured text: rank and suit symbol, red for hearts and diamonds.

>>> label("TD"), label("AS")
('10♦', 'A♠')
>>> card_text("TD").style
'bold red'
>>> cards_text(["7C", "7H"]).plain
'7♣ 7♥'
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.text import Text

RANK_LABELS = {"T": "10"}
SUIT_SYMBOLS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
RED = "bold red"
BLACK = "bold bright_white"
#: A card lying face down, and an empty place (one column each: rows of them stay narrow).
BACK = Text("▮", style="bold blue")
NONE = Text("·", style="dim")


def label(code: str) -> str:
    """``"TD"`` → ``"10♦"``."""
    return RANK_LABELS.get(code[0], code[0]) + SUIT_SYMBOLS[code[1]]


def card_style(code: str) -> str:
    return RED if code[1] in "DH" else BLACK


def card_text(code: str | None, extra: str = "") -> Text:
    """One card (``None``: a card lying face down), optionally with an extra style."""
    if code is None:
        return BACK.copy()
    return Text(label(code), style=f"{card_style(code)} {extra}".strip())


def cards_text(codes: Iterable[str | None], sep: str = " ") -> Text:
    """Several cards, separated by ``sep``."""
    return Text(sep).join(card_text(c) for c in codes)
