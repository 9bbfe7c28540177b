"""Hypothesis strategies derived from the protocol's own Schema Schema (``protocol/schema.json``,
generated from :mod:`protocol.messages`), so a new message or field is fuzzed with no new code.

Only the keywords pydantic emits are understood (``type``, ``const``, ``enum``, ``anyOf``,
``oneOf``, ``allOf``, ``$ref``, ``properties``/``required``/``additionalProperties``, ``items``,
lengths, bounds and ``pattern``); unknown keywords are ignored, so a frame drawn from a
schema that grew a new keyword may be refused by the server, which is still a fine frame to
send.

>>> frames = client_frames(20, seed=1)
>>> len(frames), all(isinstance(f, dict) and "type" in f for f in frames)
(20, True)
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st

from protocol.schema import SCHEMA_PATH

#: A node of the Schema Schema (protocol/schema.json), or an object drawn from one.
Schema = dict[str, Any]

#: Free Schema values, for ``additionalProperties: true`` objects and untyped schemas.
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


def load_client_schema() -> Schema:
    """The client-to-server union from the committed schema file."""
    schema: Schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))["client"]
    return schema


def from_schema(schema: Schema, root: Schema | None = None) -> st.SearchStrategy[Any]:
    """A strategy for values valid under ``schema`` (refs resolved against ``root``)."""
    root = schema if root is None else root
    if "$ref" in schema:
        return from_schema(_resolve(root, schema["$ref"]), root)
    if "const" in schema:
        return st.just(schema["const"])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return st.one_of([from_schema(s, root) for s in schema[key]])
    if "allOf" in schema:  # pydantic uses allOf to wrap one $ref
        return from_schema({k: v for s in schema["allOf"] for k, v in s.items()}, root)
    kind = schema.get("type")
    if isinstance(kind, list):
        return st.one_of([from_schema({**schema, "type": k}, root) for k in kind])
    match kind:
        case "object":
            return _object(schema, root)
        case "array":
            items = from_schema(schema.get("items", {}), root)
            return st.lists(
                items, min_size=schema.get("minItems", 0), max_size=schema.get("maxItems", 10)
            )
        case "string":
            return _string(schema)
        case "integer":
            return st.integers(_bound(schema, "minimum", 1), _bound(schema, "maximum", -1))
        case "number":
            return st.floats(schema.get("minimum"), schema.get("maximum"), allow_nan=False)
        case "boolean":
            return st.booleans()
        case "null":
            return st.none()
    return json_values


def _resolve(root: Schema, ref: str) -> Schema:
    node: Any = root
    for part in ref.removeprefix("#/").split("/"):
        node = node[part]
    resolved: Schema = node
    return resolved


def _bound(schema: Schema, key: str, step: int) -> int | None:
    """``minimum``/``maximum``, or the exclusive form moved one step inside."""
    if key in schema:
        value: int = schema[key]
        return value
    exclusive = "exclusiveMinimum" if key == "minimum" else "exclusiveMaximum"
    return schema[exclusive] + step if exclusive in schema else None


def _string(schema: Schema) -> st.SearchStrategy[str]:
    low, high = schema.get("minLength", 0), schema.get("maxLength")
    if "pattern" in schema:
        strategy: st.SearchStrategy[str] = st.from_regex(str(schema["pattern"]), fullmatch=True)
        return strategy.filter(lambda s: low <= len(s) and (high is None or len(s) <= high))
    return st.text(min_size=low, max_size=high if high is not None else 40)


def _object(schema: Schema, root: Schema) -> st.SearchStrategy[Schema]:
    props: Schema = schema.get("properties", {})
    # a ``const`` property is a union's discriminator (``type``): always sent
    required = set(schema.get("required", ())) | {k for k, v in props.items() if "const" in v}
    needed = {k: from_schema(v, root) for k, v in props.items() if k in required}
    optional = {k: from_schema(v, root) for k, v in props.items() if k not in required}
    fixed = st.fixed_dictionaries(needed, optional=optional)
    extra = schema.get("additionalProperties", not props)
    if extra is False or not extra:
        return fixed
    values = json_values if extra is True else from_schema(extra, root)
    more = st.dictionaries(st.text(min_size=1, max_size=8), values, max_size=3)
    return st.tuples(fixed, more).map(lambda pair: {**pair[1], **pair[0]})


def draw_many(strategy: st.SearchStrategy[Any], n: int, seed: int) -> list[Any]:
    """``n`` values of ``strategy`` (fewer if it has fewer distinct ones), reproducible by seed.

    Hypothesis draws them inside a ``@given`` run (its supported way outside a test), with
    shrinking, the example database and health checks off: we want volume, not minimal cases.
    """
    out: list[Any] = []

    @hypothesis_seed(seed)
    @settings(
        max_examples=n,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
        deadline=None,
        derandomize=False,
    )
    @given(strategy)
    def collect(value: Any) -> None:
        out.append(value)

    collect()
    return out[:n]


def client_frames(n: int, seed: int = 0, schema: Schema | None = None) -> list[Schema]:
    """``n`` client messages valid under the protocol's schema (every message type)."""
    schema = schema or load_client_schema()
    return draw_many(from_schema(schema), n, seed)
