"""Bad input never crashes anything and never changes state: typed errors to the sender."""

from __future__ import annotations

import asyncio
import json
import urllib.request

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from clients import CardroomClient, CardroomError
from server.net.server import CardroomServer, ServerConfig
from tests.server.conftest import make_config


async def started_room(server: CardroomServer, name: str) -> CardroomClient:
    client = await CardroomClient.connect(server.url)
    await client.create("shithead", seats=2, name=name)
    await client.host("fill_bots", level="random")
    await client.host("start")
    await client.wait_state(lambda s: s.view["phase"] == "swap")
    return client


async def error_for(client: CardroomClient, frame: str | bytes) -> str:
    await client.send_raw(frame)
    msg = await client.wait_for(lambda m: m.type == "error", timeout=5)
    return msg.code  # type: ignore[union-attr]


async def test_refusals_have_codes_and_change_nothing(server: CardroomServer) -> None:
    ann = await started_room(server, "Ann")
    other = await started_room(server, "Olga")
    code = ann.room or ""
    room = server.manager.rooms[code].core
    record, version = room.record(), room.version
    state = await ann.wait_state() if ann.state is None else ann.state
    # stale version: refused, and a fresh view follows
    with pytest.raises(CardroomError) as stale:
        await ann.act({"kind": "ready"}, version=state.version + 5)
    assert stale.value.code == "stale_version"
    fresh = await ann.wait_state()
    assert fresh.version == version
    # the rules' refusals pass through with their own codes
    with pytest.raises(CardroomError) as illegal:
        await ann.act({"kind": "play", "cards": ["2C"]})
    assert illegal.value.code == "wrong_phase"
    with pytest.raises(CardroomError) as odd:
        await ann.act({"kind": "dance"})
    assert odd.value.code == "unknown_action"
    # frames the protocol refuses
    assert await error_for(ann, "not json at all") == "bad_json"
    assert await error_for(ann, '{"type": "teleport", "id": 1}') == "unknown_type"
    assert await error_for(ann, '{"type": "act", "id": 2, "room": "%s"}' % code) == (
        "invalid_message"
    )
    bad_card = {"type": "act", "id": 3, "room": code, "version": version,
                "action": {"kind": "play", "cards": ["1X"]}}
    assert await error_for(ann, json.dumps(bad_card)) == "invalid_message"
    assert await error_for(ann, "x" * 5000) == "too_large"
    assert await error_for(ann, b"\x00\x01") == "binary_frame"
    # a spectator cannot act; acting for someone else is impossible: the seat is the sender's
    async with CardroomClient.connect(server.url) as eve:
        await eve.watch(code)
        with pytest.raises(CardroomError) as spectator:
            await eve.act({"kind": "ready"}, version=version)
        assert spectator.value.code == "not_seated"
        with pytest.raises(CardroomError) as not_host:
            await eve.host("start", room=code)
        assert not_host.value.code == "not_seated"
    with pytest.raises(CardroomError) as missing:
        await ann.join("ZZZZZ", name="Ann")
    assert missing.value.code in ("room_not_found", "already_in_room")
    assert room.record() == record and room.version == version
    # the other room is unaffected and plays on
    state = other.state
    assert state is not None
    ack = await other.act({"kind": "ready"}, version=state.version)
    assert ack.version == state.version + 1
    await ann.close()
    await other.close()


async def test_wrong_turn_is_refused(server: CardroomServer) -> None:
    async with CardroomClient.connect(server.url) as ann:
        await ann.create("sheepshead", seats=5, name="Ann", turn_timer=None)
        await ann.host("fill_bots", level="random")
        await ann.host("start")
        state = await ann.wait_state()
        while ann.seat in state.view["to_act"] or state.view["phase"] != "play":
            if ann.seat in state.view["to_act"]:
                await ann.act(state.view["legal"][0], version=state.version)
            state = await ann.wait_state()
        if state.view["phase"] == "play" and 0 not in state.view["to_act"]:
            room = server.manager.rooms[ann.room or ""].core
            record = room.record()
            with pytest.raises(CardroomError) as err:
                await ann.act({"kind": "play", "cards": [state.view["hand"][0]]},
                              version=room.version)
            assert err.value.code in ("not_your_turn", "stale_version")
            if err.value.code == "not_your_turn":
                assert room.record() == record


async def test_hello_first_and_protocol_versions(server: CardroomServer) -> None:
    async with CardroomClient.connect(server.url, hello=False) as c:
        with pytest.raises(CardroomError) as early:
            await c.watch("ABCDE")
        assert early.value.code == "hello_required"
        await c.send_raw('{"type": "hello", "id": "h", "protocol": 99}')
        err = await c.wait_for(lambda m: m.type == "error")
        assert err.code == "unsupported_protocol"  # type: ignore[union-attr]
        assert "1" in err.message  # type: ignore[union-attr]
        welcome = await c.hello()
        assert welcome.protocol == 1


async def test_flood_is_rate_limited_and_garbage_closes_with_1008(server: CardroomServer) -> None:
    async with connect(server.url) as ws:
        await ws.send(json.dumps({"type": "hello", "id": 0, "protocol": 1}))
        for i in range(200):
            await ws.send(json.dumps({"type": "ping", "id": i}))
        replies = []
        with pytest.raises((asyncio.TimeoutError, TimeoutError)):
            while True:
                replies.append(json.loads(await asyncio.wait_for(ws.recv(), 1.0)))
        codes = {r.get("code") for r in replies if r["type"] == "error"}
        pongs = sum(r["type"] == "pong" for r in replies)
        assert "rate_limited" in codes and pongs < 200
    async with connect(server.url) as ws:
        with pytest.raises(ConnectionClosed) as closed:
            for _ in range(50):
                await ws.send("garbage")
                await asyncio.sleep(0.01)
            await asyncio.wait_for(ws.recv(), 2.0)
            while True:
                await asyncio.wait_for(ws.recv(), 2.0)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008


async def test_origin_allow_list() -> None:
    config = ServerConfig(
        port=0, origins=("https://cards.example", None), rooms=make_config().rooms
    )
    async with CardroomServer(config) as srv:
        async with connect(srv.url, origin="https://cards.example") as ws:
            await ws.send(json.dumps({"type": "hello", "id": 1, "protocol": 1}))
            assert json.loads(await ws.recv())["type"] == "welcome"
        with pytest.raises(InvalidStatus) as refused:
            async with connect(srv.url, origin="https://evil.example"):
                pass
        assert refused.value.response.status_code == 403


async def test_health_and_metrics_over_http(server: CardroomServer) -> None:
    ann = await started_room(server, "Ann")
    await ann.act({"kind": "ready"})
    with pytest.raises(CardroomError):
        await ann.act({"kind": "dance"})

    def get(path: str) -> tuple[int, str]:
        with urllib.request.urlopen(f"http://127.0.0.1:{server.port}{path}", timeout=5) as r:
            return r.status, r.read().decode()

    status, body = await asyncio.to_thread(get, "/healthz")
    assert status == 200 and body.strip() == "ok"
    status, body = await asyncio.to_thread(get, "/metrics")
    assert status == 200
    assert "cardroom_rooms 1.0" in body
    assert 'cardroom_refusals_total{code="unknown_action"} 1.0' in body
    assert "cardroom_action_to_view_seconds_count" in body
    assert 'cardroom_actions_total{by="player",game="shithead"}' in body
    await ann.close()
