"""House rules (SH-7, SS-10) in the terminal: typed on the start screen (or ``--rules``) in the
table's own words ("7 plays lower, 3 is glass", or the wire's names), and the rules in force as
a short line. The server validates them (an unknown one is refused before the room exists).

>>> parse_rules("7 plays lower, 3 is glass")
{'seven_lower': True, 'three_invisible': True}
>>> parse_rules("J♦ partner, doubler, cracking") == {
...     "partner": "jack_of_diamonds", "no_pick": "doubler", "crack": True}
True
>>> parse_rules("seven_lower eight_skips")
{'seven_lower': True, 'eight_skips': True}
>>> parse_rules("partner=jack_of_diamonds, no_pick=doubler crack")
{'partner': 'jack_of_diamonds', 'no_pick': 'doubler', 'crack': True}
>>> rules_text({"seven_lower": True, "eight_skips": False, "three_invisible": True})
'7 plays lower · 3 is glass'
>>> rules_text({"partner": "called_ace", "no_pick": "leaster", "crack": False})
'book rules'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import cast

#: Each option value that differs from the book, as the table names it.
_LABELS: dict[tuple[str, object], str] = {
    ("seven_lower", True): "7 plays lower",
    ("eight_skips", True): "8 skips",
    ("three_invisible", True): "3 is glass",
    ("partner", "jack_of_diamonds"): "J♦ partner",
    ("no_pick", "doubler"): "doubler",
    ("no_pick", "forced"): "dealer must pick",
    ("crack", True): "cracking",
}

#: Other words a player may type for them.
_ALIASES: dict[str, tuple[str, object]] = {
    "jd partner": ("partner", "jack_of_diamonds"),
    "jack of diamonds partner": ("partner", "jack_of_diamonds"),
    "jack of diamonds": ("partner", "jack_of_diamonds"),
    "dealer picks": ("no_pick", "forced"),
    "crack": ("crack", True),
}

_LONGEST = 4  # words in the longest phrase above

#: What the start screen's field takes, said under it: the rules as the table names them.
RULES_HELP = (
    "Shithead: 7 plays lower, 8 skips, 3 is glass · Sheepshead: J♦ partner (or jd partner), "
    "doubler or dealer must pick, cracking"
)


def parse_rules(text: str) -> dict[str, bool | str]:
    """Words separated by spaces or commas: ``name`` turns an option on, ``name=value`` sets
    it (``true`` / ``false`` for a toggle)."""
    out: dict[str, bool | str] = {}
    # the table's own words ("7 plays lower"), the longest phrase at each place, else a name
    phrases = {label.lower(): kv for kv, label in _LABELS.items()} | _ALIASES
    words = text.replace(",", " ").split()
    at = 0
    while at < len(words):
        for size in range(_LONGEST, 0, -1):
            phrase = " ".join(words[at : at + size]).lower()
            if phrase in phrases:
                key, value = phrases[phrase]
                out[key] = cast(bool | str, value)
                at += size
                break
        else:
            key, sep, value = words[at].partition("=")
            if not sep or value.lower() in ("true", "on", "yes"):
                out[key] = True
            elif value.lower() in ("false", "off", "no"):
                out[key] = False
            else:
                out[key] = value
            at += 1
    return out


def rules_text(options: Mapping[str, object]) -> str:
    """The options in force that differ from the book, or ``book rules``."""
    shown = [_LABELS[(k, v)] for k, v in options.items() if (k, v) in _LABELS]
    return " · ".join(shown) or "book rules"
