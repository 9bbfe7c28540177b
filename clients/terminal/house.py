"""House rules (SH-7, SS-10) in the terminal: typed on the start screen (or ``--rules``) as
words, and the rules in force as a short line. Names and values are the wire's; the server
validates them (an unknown one is refused before the room exists).

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

#: What the start screen's field takes, said under it.
RULES_HELP = (
    "Shithead: seven_lower eight_skips three_invisible · Sheepshead: "
    "partner=jack_of_diamonds no_pick=doubler|forced crack"
)


def parse_rules(text: str) -> dict[str, bool | str]:
    """Words separated by spaces or commas: ``name`` turns an option on, ``name=value`` sets
    it (``true`` / ``false`` for a toggle)."""
    out: dict[str, bool | str] = {}
    for word in text.replace(",", " ").split():
        key, sep, value = word.partition("=")
        if not sep or value.lower() in ("true", "on", "yes"):
            out[key] = True
        elif value.lower() in ("false", "off", "no"):
            out[key] = False
        else:
            out[key] = value
    return out


def rules_text(options: Mapping[str, object]) -> str:
    """The options in force that differ from the book, or ``book rules``."""
    shown = [_LABELS[(k, v)] for k, v in options.items() if (k, v) in _LABELS]
    return " · ".join(shown) or "book rules"
