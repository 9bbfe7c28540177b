"""The protocol's types are the doc's, not what pydantic can coerce: a house rule is a JSON
boolean, a count a JSON integer. Anything else is ``invalid_message`` and opens no room."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from websockets.asyncio.client import connect

from server.net.server import CardroomServer

CREATE = {"type": "create", "id": 2, "game": "shithead", "seats": 2, "name": "Ann"}


@pytest.mark.parametrize(
    "fields",
    [
        {"options": {"seven_lower": "yes"}},
        {"options": {"eight_skips": 1}},
        {"options": {"three_invisible": "true"}},
        {"game": "sheepshead", "seats": 3, "options": {"crack": "on"}},
        {"game": "sheepshead", "seats": 3, "options": {"crack": 1}},
        {"hints": "true"},
        {"daily": 0},
        {"seats": "2"},
        {"seats": 2.0},
        {"seats": True},
        {"turn_timer": "30"},
    ],
)
async def test_a_coercible_value_is_invalid(server: CardroomServer, fields: dict[str, Any]) -> None:
    async with connect(server.url) as ws:
        await ws.send(json.dumps({"type": "hello", "id": 1, "protocol": 1}))
        await ws.send(json.dumps({**CREATE, **fields}))
        replies = [json.loads(await asyncio.wait_for(ws.recv(), 5)) for _ in range(2)]
    assert replies[1]["type"] == "error", replies
    assert replies[1]["code"] == "invalid_message"
    assert server.manager.rooms == {}


async def test_the_same_with_json_booleans_opens_a_room(server: CardroomServer) -> None:
    async with connect(server.url) as ws:
        await ws.send(json.dumps({"type": "hello", "id": 1, "protocol": 1}))
        await ws.send(json.dumps({**CREATE, "options": {"seven_lower": True}, "hints": False}))
        replies = [json.loads(await asyncio.wait_for(ws.recv(), 5)) for _ in range(2)]
    assert replies[1]["type"] == "joined", replies
