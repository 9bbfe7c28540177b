"""Player names: what a room accepts and how it compares them.

>>> clean_name("  Ann  ", [])
'Ann'
>>> clean_name("Bot 2", [])
Traceback (most recent call last):
...
server.rooms.refusal.Refusal: ('bad_name', 'that name is kept for bots')
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from protocol.errors import ErrorCode
from server.rooms.refusal import Refusal

#: Longest name, in characters after normalisation.
NAME_MAX = 24

# A name that reads as a bot's ("Bot", "bot 3", "BOT-2", fullwidth look-alikes after NFKC).
_BOTLIKE = re.compile(r"^bot[\W_]*\d*$")


def _key(name: str) -> str:
    """How names compare: compatibility-normalised, case-folded, inner spaces collapsed."""
    return " ".join(unicodedata.normalize("NFKC", name).casefold().split())


def clean_name(name: str, taken: Iterable[str]) -> str:
    """``name`` NFC-normalised and trimmed, or a :class:`Refusal` (``bad_name``: empty, too long,
    control, format or bidi characters, a bot's name; ``name_taken``: someone in the room has
    it, compared without case)."""
    text = unicodedata.normalize("NFC", name).strip()
    if not text:
        raise Refusal(ErrorCode.BAD_NAME, "a name needs at least one visible character")
    if len(text) > NAME_MAX:
        raise Refusal(ErrorCode.BAD_NAME, f"names are at most {NAME_MAX} characters")
    for ch in text:
        # Cc: control (NUL, ESC...), Cf: format (bidi overrides, zero-width), Zl/Zp: line breaks
        if unicodedata.category(ch) in ("Cc", "Cf", "Co", "Cs", "Zl", "Zp"):
            raise Refusal(ErrorCode.BAD_NAME, "names may not hold control or direction characters")
    key = _key(text)
    if _BOTLIKE.match(key):
        raise Refusal(ErrorCode.BAD_NAME, "that name is kept for bots")
    if any(_key(other) == key for other in taken):
        raise Refusal(ErrorCode.NAME_TAKEN, "someone in this room has that name")
    return text
