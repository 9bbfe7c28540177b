"""Hostile frames: mutations stay sendable text, cover every hostile family the fuzzer sends,
and never hand a room its own seat token from outside."""

from __future__ import annotations

import json
import random

from server.tools.fuzz.mutate import Known, defuse, garbage, mutate

ACT = {"type": "act", "id": 1, "room": "ABCDE", "version": 7, "action": {"kind": "ready"}}


def known() -> Known:
    return Known(
        codes=["ABCDE", "FGHJK"],
        tokens={"ABCDE": ["a" * 32], "FGHJK": ["b" * 32]},
        versions={"ABCDE": 7, "FGHJK": 3},
    )


def test_mutations_are_text_and_cover_the_families() -> None:
    rng = random.Random(3)
    seen = set()
    for _ in range(3000):
        text = mutate(ACT, rng, known())
        assert isinstance(text, str)
        text.encode()  # valid UTF-8: bad UTF-8 is sent on purpose elsewhere
        try:
            data = json.loads(text.lstrip("\ufeff"))
        except ValueError:
            seen.add("not json")
            continue
        if not isinstance(data, dict):
            continue
        if not isinstance(data.get("type"), str):
            seen.add("type not a string")
        if "action" not in data or "id" not in data:
            seen.add("missing field")
        if set(data) - {"type", "id", "room", "version", "action", "token"}:
            seen.add("extra field")
        if data.get("room") == "FGHJK":
            seen.add("another room's code")
        if isinstance(data.get("version"), int) and data["version"] not in (7, 3):
            seen.add("stale or future version")
        if data.get("token") == "b" * 32:
            seen.add("another room's token")
        if len(text) > 4096:
            seen.add("huge")
        if "[[[[[[[[[[" in text or '{"a": {"a": {"a"' in text:
            seen.add("deep")
    assert seen >= {
        "type not a string",
        "missing field",
        "extra field",
        "another room's code",
        "stale or future version",
        "another room's token",
        "huge",
        "deep",
    }


def test_a_room_never_gets_its_own_token_from_outside() -> None:
    frame = {"type": "resume", "id": 1, "room": " abcde ", "token": "a" * 32}
    defuse(frame, known())
    assert frame["token"] != "a" * 32
    rng = random.Random(1)
    for _ in range(2000):
        data = json.loads(mutate({**ACT, "type": "resume"}, rng, known()).lstrip("\ufeff") or "0")
        if isinstance(data, dict) and isinstance(data.get("room"), str):
            own = known().tokens.get(data["room"].strip().upper(), [])
            assert data.get("token") not in own


def test_garbage_has_binary_and_broken_text() -> None:
    rng = random.Random(4)
    frames = [garbage(rng, ACT) for _ in range(500)]
    assert any(isinstance(f, bytes) for f in frames)
    texts = [f for f in frames if isinstance(f, str)]
    broken = 0
    for text in texts:
        try:
            if not isinstance(json.loads(text), dict):
                broken += 1
        except ValueError:
            broken += 1
    assert broken > 0.8 * len(texts)
