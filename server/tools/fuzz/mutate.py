"""Hostile frames: mutations of valid frames (taken from real games or drawn from the schema)
and plain garbage. Every function draws from the ``random.Random`` it is given, so a run is
reproducible from its seed.

>>> import random
>>> rng = random.Random(1)
>>> known = Known(codes=["ABCDE"], tokens={"ABCDE": ["t" * 32]}, versions={"ABCDE": 3})
>>> frame = {"type": "act", "id": 1, "room": "ABCDE", "version": 3, "action": {"kind": "ready"}}
>>> all(isinstance(mutate(frame, rng, known), str) for _ in range(200))
True
"""

from __future__ import annotations

import json
import random
import string
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

#: A client frame as data, of any shape: the mutations break it on purpose.
Frame = dict[str, Any]

#: Strings that have hurt servers: controls, bidi overrides, a NUL, look-alike bot names,
#: non-ASCII tokens, surrogates that cannot be encoded, very long words.
NASTY_STRINGS = [
    "",
    " ",
    "\x00",
    "a\x00b",
    "\u202eevil\u202c",
    "Bot 2",
    "bot 1",
    "éééééééé",
    "\ud800",
    "\ud800\udc00" * 4,
    "💥" * 10,
    "\n\r\t",
    "null",
    "__proto__",
    "../../etc/passwd",
    "%s%n%x",
    "A" * 65,
    "Z" * 300,
    "1e309",
]
NASTY_NUMBERS: list[Any] = [
    -1,
    0,
    1,
    5,
    6,
    2**31,
    2**63,
    -(2**63) - 1,
    2**70,
    1.5,
    -0.0,
    1e308,
    True,
    False,
]


@dataclass
class Known:
    """What the fuzzer has learned from real rooms: codes, tokens and versions to misuse."""

    codes: list[str] = field(default_factory=list)
    tokens: dict[str, list[str]] = field(default_factory=dict)  # room code -> seat tokens
    versions: dict[str, int] = field(default_factory=dict)
    samples: list[Frame] = field(default_factory=list)  # valid frames sent in real games
    added: int = 0

    def add_sample(self, frame: Frame, keep: int = 2000) -> None:
        """Keep the latest ``keep`` samples (older ones replaced in turn)."""
        if len(self.samples) < keep:
            self.samples.append(frame)
        else:
            self.samples[self.added % keep] = frame
        self.added += 1


def deep(depth: int, kind: str = "list") -> Any:
    """A value nested ``depth`` levels deep (lists or objects)."""
    value: Any = 0
    for _ in range(depth):
        value = [value] if kind == "list" else {"a": value}
    return value


def wrong_value(rng: random.Random) -> Any:
    """A value of a random Frame type, often a hostile one."""
    pick = rng.randrange(9)
    if pick == 0:
        return rng.choice(NASTY_STRINGS)
    if pick == 1:
        return rng.choice(NASTY_NUMBERS)
    if pick == 2:
        return None
    if pick == 3:
        return [rng.choice(NASTY_NUMBERS) for _ in range(rng.randrange(4))]
    if pick == 4:
        return {rng.choice(NASTY_STRINGS): rng.choice(NASTY_NUMBERS)}
    if pick == 5:
        return deep(rng.choice([5, 30, 120, 300, 600]), rng.choice(["list", "dict"]))
    if pick == 6:
        return "x" * rng.choice([100, 1000, 3000, 5000])
    if pick == 7:
        return list(range(rng.choice([10, 100, 1000])))
    return "".join(rng.choice(string.printable) for _ in range(rng.randrange(1, 30)))


def _set_room(frame: Frame, rng: random.Random, known: Known) -> None:
    if known.codes:
        frame["room"] = rng.choice(known.codes)
    if rng.random() < 0.3:
        frame["room"] = rng.choice(["abcde", " ABCDE ", "ABCD", "ABCDEF", "00000", "IIIII"])


def _set_version(frame: Frame, rng: random.Random, known: Known) -> None:
    current = known.versions.get(str(frame.get("room")), 0)
    frame["version"] = rng.choice(
        [current - 1, current + 1, current + 1000, 0, -1, 2**31, 2**63, current - 5]
    )


def _set_token(frame: Frame, rng: random.Random, known: Known) -> None:
    """Another room's token, a damaged one, or a non-ASCII one: never this room's own."""
    room = str(frame.get("room"))
    others = [t for code, ts in known.tokens.items() if code != room for t in ts]
    own = known.tokens.get(room, [])
    choices: list[str] = [*others[:20], "éééééééé", "\x00" * 10, "a" * 129, "short"]
    if own:
        token = rng.choice(own)
        choices += [token[:-1] + ("A" if token[-1] != "A" else "B"), token.upper(), token[:8]]
    frame["token"] = rng.choice(choices)
    frame["type"] = "resume"


def _set_cards(frame: Frame, rng: random.Random, known: Known) -> None:
    action = frame.setdefault("action", {"kind": "play"})
    if not isinstance(action, dict):
        return
    action["cards"] = rng.choice(
        [
            ["10D"],
            ["1X"],
            ["AS", "AS"],
            ["as", " kd "],
            ["AS"] * 9,
            [None],
            "AS",
            [["AS"]],
            ["AS", 7],
        ]
    )


def _drop_field(frame: Frame, rng: random.Random, known: Known) -> None:
    if frame:
        del frame[rng.choice(sorted(frame))]


def _extra_field(frame: Frame, rng: random.Random, known: Known) -> None:
    frame[rng.choice(["extra", "admin", "seat", "token", "__class__", "x" * 40])] = wrong_value(rng)


def _wrong_type(frame: Frame, rng: random.Random, known: Known) -> None:
    if frame:
        frame[rng.choice(sorted(frame))] = wrong_value(rng)


def _bad_message_type(frame: Frame, rng: random.Random, known: Known) -> None:
    frame["type"] = rng.choice([[], {}, 1, None, True, "ACT", "act ", "welcome", "error", "x" * 70])


def _bad_id(frame: Frame, rng: random.Random, known: Known) -> None:
    frame["id"] = rng.choice(["", "x" * 65, [], {}, None, True, 1.5, 2**70, -1])


def _nested_action(frame: Frame, rng: random.Random, known: Known) -> None:
    action = frame.get("action")
    if isinstance(action, dict):
        action[rng.choice(["kind", "cards", "slot", "more"])] = wrong_value(rng)
    else:
        frame["action"] = wrong_value(rng)


def _deep_options(frame: Frame, rng: random.Random, known: Known) -> None:
    """A create whose options nest deeply (such rooms once never closed)."""
    frame.update(type="create", game=rng.choice(["shithead", "sheepshead"]), name="Deep")
    frame["seats"] = 5 if frame["game"] == "sheepshead" else rng.randrange(2, 6)
    frame["options"] = deep(rng.choice([50, 300, 500]), rng.choice(["list", "dict"]))


MUTATIONS: list[Callable[[Frame, random.Random, Known], None]] = [
    _drop_field,
    _extra_field,
    _wrong_type,
    _wrong_type,
    _bad_message_type,
    _bad_id,
    _set_room,
    _set_room,
    _set_version,
    _set_token,
    _set_cards,
    _nested_action,
    _deep_options,
]


def mutate(frame: Frame, rng: random.Random, known: Known) -> str:
    """One to three mutations of a copy of ``frame``, as the text frame to send."""
    copy = json.loads(json.dumps(frame))
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        rng.choice(MUTATIONS)(copy, rng, known)
    defuse(copy, known)
    return encode(copy, rng)


def defuse(frame: Frame, known: Known) -> None:
    """Never send a room's own seat token to it from outside: that is the seat's owner
    coming back (accepted by design), not hostile input."""
    room = frame.get("room")
    if (
        frame.get("type") == "resume"
        and isinstance(room, str)
        and frame.get("token") in known.tokens.get(room.strip().upper(), [])
    ):
        frame["token"] = "not-this-rooms-token"


def encode(value: Any, rng: random.Random) -> str:
    """Frame text, sometimes in odd but legal spellings (spaces, escapes, duplicate keys)."""
    try:
        text = json.dumps(value, ensure_ascii=rng.random() < 0.5)
        text.encode()
    except UnicodeEncodeError:  # lone surrogates travel as Frame escapes, never as bad UTF-8
        text = json.dumps(value)
    except (ValueError, RecursionError):
        return "[" * 2000
    roll = rng.random()
    if roll < 0.05 and text.startswith("{") and len(text) > 2:
        return '{"type": "ping", ' + text[1:]  # a duplicate key: the last one wins
    if roll < 0.08:
        return "\ufeff" + text  # a byte-order mark
    if roll < 0.10:
        return "  \n" + text + "\n\t"
    return text


def garbage(rng: random.Random, valid: Frame | None = None) -> str | bytes:
    """A frame that is not a client message at all (binary, cut short, not an object, ...)."""
    pick = rng.randrange(10)
    if pick == 0:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200)))
    if pick == 1 and valid is not None:
        text = json.dumps(valid)
        return text[: rng.randrange(1, max(2, len(text)))]
    if pick == 2:
        return rng.choice(["[]", "1", "null", '"hello"', "true", "{}", "[{}]", "-0", "1e999"])
    if pick == 3:
        return "{" * rng.choice([10, 100, 1000, 2000])
    if pick == 4:
        return '{"type": NaN, "id": Infinity}'
    if pick == 5:
        return "x" * rng.choice([4097, 5000, 20000])
    if pick == 6:
        return '{"type": "hello", "id": 1, "protocol": 1'
    if pick == 7:
        return json.dumps({"type": "hello", "id": rng.randrange(10**6), "protocol": 1}) * 2
    if pick == 8:
        return "".join(chr(rng.randrange(1, 0x2FFF)) for _ in range(rng.randrange(1, 80)))
    return "\x00" * rng.randrange(1, 50)
