"""The fuzzer's frames come from the protocol's own schema: every client message type, valid
under the protocol's models, and a message added to the schema is fuzzed with no new code."""

from __future__ import annotations

import copy
import json
from collections import Counter

import pytest

from protocol.messages import CLIENT_ADAPTER, parse_client
from server.tools.fuzz.strategies import client_frames, draw_many, from_schema, load_client_schema


@pytest.mark.slow
def test_every_client_message_type_is_drawn_and_valid() -> None:
    frames = client_frames(400, seed=5)
    kinds = Counter(f["type"] for f in frames)
    mapping = load_client_schema()["discriminator"]["mapping"]
    assert set(kinds) == set(mapping)
    valid = 0
    for frame in frames:
        try:
            parse_client(json.dumps(frame))
            valid += 1
        except ValueError:
            pass  # e.g. a name of spaces only: stripped to nothing by the model
    assert valid >= 0.95 * len(frames)


@pytest.mark.slow
def test_a_new_message_in_the_schema_is_fuzzed_without_new_code() -> None:
    schema = copy.deepcopy(load_client_schema())
    schema["$defs"]["Shout"] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "type": {"const": "shout"},
            "id": {"type": "integer"},
            "volume": {"type": "integer", "minimum": 1, "maximum": 11},
        },
        "required": ["id", "volume"],
    }
    schema["oneOf"].append({"$ref": "#/$defs/Shout"})
    shouts = [f for f in client_frames(300, seed=2, schema=schema) if f["type"] == "shout"]
    assert shouts
    assert all(1 <= f["volume"] <= 11 and set(f) == {"type", "id", "volume"} for f in shouts)


def test_the_committed_schema_is_the_models_schema() -> None:
    # the fuzzer reads protocol/schema.json: it must describe what the server parses
    assert load_client_schema() == CLIENT_ADAPTER.json_schema()


@pytest.mark.slow
def test_draws_are_reproducible_by_seed() -> None:
    strategy = from_schema({"type": "string", "pattern": "^[A-Z]{5}$"})
    assert draw_many(strategy, 30, seed=9) == draw_many(strategy, 30, seed=9)
