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
#: What ends a bot identity's name wherever it sits (the ladder's tables, their replays, the
#: ladder): no person's name may hold it, so it cannot be put on.
BOT_MARK = "\N{GEAR}"  # in the fonts every desktop has (DejaVu Sans), unlike a robot emoji


def bot_name(name: str) -> str:
    """A bot identity's name as shown: ``name`` (checked by :func:`clean_name`) marked.

    >>> bot_name("Robin")
    'Robin \N{GEAR}'
    """
    return f"{name[: NAME_MAX - len(BOT_MARK) - 1]} {BOT_MARK}"


#: Cyrillic and Greek letters (case-folded) that look like a Latin one: names compare by the
#: Latin letter, so an all-Cyrillic "АРЕ" reads as "APE" (and "Вот 2" as a bot's name).
_LOOKALIKES = str.maketrans(
    {
        **dict(zip("авсеһіјкмнорѕтхуԁԛԝґ", "abcehijkmhopstxydqwr", strict=True)),
        **dict(zip("αβεηικμνορτυχζ", "abehikmvoptuxz", strict=True)),
        "ё": "e",
        "ї": "i",
        "\u03c2": "c",  # final sigma
    }
)
#: Scripts that one language writes together (Japanese; Korean with Hanja).
_TOGETHER = ({"CJK", "HIRAGANA", "KATAKANA"}, {"HANGUL", "CJK"})


def _key(name: str) -> str:
    """How names compare: compatibility-normalised, case-folded, inner spaces collapsed, and
    each Cyrillic or Greek letter that looks like a Latin one read as that letter."""
    return " ".join(unicodedata.normalize("NFKC", name).casefold().translate(_LOOKALIKES).split())


def scripts(name: str) -> set[str]:
    """The scripts of a name's letters, by their Unicode names' first word (digits, spaces and
    marks belong to none).

    >>> sorted(scripts("Ann 2")), sorted(scripts("\u0410nn")), sorted(scripts("山田たろう"))
    (['LATIN'], ['CYRILLIC', 'LATIN'], ['CJK', 'HIRAGANA'])
    """
    found = set()
    for ch in unicodedata.normalize("NFKC", name):
        if unicodedata.category(ch).startswith("L"):
            script = unicodedata.name(ch, "?").split()[0]
            if script not in ("MODIFIER", "?"):
                found.add(script)
    return found


def _mixed(name: str) -> bool:
    found = scripts(name)
    return len(found) > 1 and not any(found <= together for together in _TOGETHER)


def clean_name(name: str, taken: Iterable[str]) -> str:
    """``name`` NFC-normalised and trimmed, or a :class:`Refusal` (``bad_name``: empty, too long,
    control, format or bidi characters, letters of two scripts, a bot's name; ``name_taken``:
    someone in the room has it, compared without case and look-alike letter for letter)."""
    text = unicodedata.normalize("NFC", name).strip()
    if not text:
        raise Refusal(ErrorCode.BAD_NAME, "a name needs at least one visible character")
    if len(text) > NAME_MAX:
        raise Refusal(ErrorCode.BAD_NAME, f"names are at most {NAME_MAX} characters")
    for ch in text:
        # Cc: control (NUL, ESC...), Cf: format (bidi overrides, zero-width), Zl/Zp: line breaks
        if unicodedata.category(ch) in ("Cc", "Cf", "Co", "Cs", "Zl", "Zp"):
            raise Refusal(ErrorCode.BAD_NAME, "names may not hold control or direction characters")
    if _mixed(text):  # "Аnn" with a Cyrillic А passes for "Ann"
        raise Refusal(ErrorCode.BAD_NAME, "a name's letters are of one script")
    if BOT_MARK in text:
        raise Refusal(ErrorCode.BAD_NAME, "that mark is kept for bot identities")
    key = _key(text)
    if _BOTLIKE.match(key):
        raise Refusal(ErrorCode.BAD_NAME, "that name is kept for bots")
    if any(_key(other) == key for other in taken):
        raise Refusal(ErrorCode.NAME_TAKEN, "someone in this room has that name")
    return text
