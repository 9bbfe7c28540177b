"""Bad input never crashes anything and never changes state: typed errors to the sender."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.typing import Origin

from clients import CardroomClient, CardroomError
from protocol.views import shithead_view
from server.net.server import CardroomServer, ServerConfig
from tests.support.http import http_get
from tests.support.server import act_fresh, make_config


async def started_room(server: CardroomServer, name: str) -> CardroomClient:
    client = await CardroomClient.connect(server.url)
    await client.create("shithead", seats=2, name=name)
    await client.host("fill_bots", level="random")
    await client.host("start")
    # settled: the bot is ready and only this seat is left to act
    await client.wait_state(lambda s: s.view["phase"] == "swap" and s.view["to_act"] == [0])
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
        await act_fresh(ann, {"kind": "play", "cards": ["2C"]})
    assert illegal.value.code == "wrong_phase"
    with pytest.raises(CardroomError) as odd:
        await act_fresh(ann, {"kind": "dance"})
    assert odd.value.code == "unknown_action"
    # frames the protocol refuses
    assert await error_for(ann, "not json at all") == "bad_json"
    assert await error_for(ann, '{"type": "teleport", "id": 1}') == "unknown_type"
    no_action = json.dumps({"type": "act", "id": 2, "room": code})
    assert await error_for(ann, no_action) == "invalid_message"
    bad_card = {
        "type": "act",
        "id": 3,
        "room": code,
        "version": version,
        "action": {"kind": "play", "cards": ["1X"]},
    }
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
        assert not_host.value.code == "not_host"
    with pytest.raises(CardroomError) as missing:
        await ann.join("ZZZZZ", name="Ann")
    assert missing.value.code == "room_not_found"  # checked before membership
    assert room.record() == record and room.version == version
    # the other room is unaffected and plays on
    other_state = other.state
    assert other_state is not None
    ack = await other.act({"kind": "ready"}, version=other_state.version)
    assert ack.version == other_state.version + 1
    await ann.close()
    await other.close()


async def test_acting_out_of_turn_is_refused(server: CardroomServer) -> None:
    async with (
        CardroomClient.connect(server.url) as ann,
        CardroomClient.connect(server.url) as bob,
    ):
        await ann.create("shithead", seats=2, name="Ann")
        await bob.join(ann.room or "", name="Bob")
        await ann.host("start")
        await act_fresh(ann, {"kind": "ready"})
        await act_fresh(bob, {"kind": "ready"})
        state = await ann.wait_state(lambda s: s.view["phase"] == "play")
        if shithead_view(state.view)["turn"] == 1:
            waiting, other = ann, state
        else:
            waiting = bob
            other = await bob.wait_state(lambda s: s.version == state.version)
        room = server.manager.rooms[ann.room or ""].core
        record = room.record()
        card = (other.view["hand"] or [])[0]
        with pytest.raises(CardroomError) as err:
            await waiting.act({"kind": "play", "cards": [card]}, version=state.version)
        assert err.value.code == "not_your_turn"
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


@pytest.mark.slow
async def test_flood_is_rate_limited_and_garbage_closes_with_1008() -> None:
    config = ServerConfig(port=0, rate=20.0, burst=40.0, rooms=make_config().rooms)
    async with CardroomServer(config) as server, connect(server.url) as ws:
        await ws.send(json.dumps({"type": "hello", "id": 0, "protocol": 1}))
        for i in range(120):
            await ws.send(json.dumps({"type": "ping", "id": i}))
        replies = []
        with pytest.raises((asyncio.TimeoutError, TimeoutError)):
            while True:
                replies.append(json.loads(await asyncio.wait_for(ws.recv(), 1.0)))
        limited = [r for r in replies if r.get("code") == "rate_limited"]
        pongs = sum(r["type"] == "pong" for r in replies)
        assert limited and 30 <= pongs < 120
        assert isinstance(limited[0]["ref"], int)  # the refused request is named
        # a flood that goes on is cut off
        with pytest.raises(ConnectionClosed) as flooded:
            for i in range(1000):
                await ws.send(json.dumps({"type": "ping", "id": i}))
            while True:
                await asyncio.wait_for(ws.recv(), 2.0)
        assert flooded.value.rcvd is not None and flooded.value.rcvd.code == 1008
    async with CardroomServer(config) as server, connect(server.url) as ws:
        for _ in range(config.strikes):  # exactly the limit of bad frames in a row
            await ws.send("garbage")
        replies = []
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                replies.append(json.loads(await asyncio.wait_for(ws.recv(), 2.0)))
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008
        codes = [r["code"] for r in replies]
        assert codes == ["bad_json"] * config.strikes + ["policy_violation"]


async def test_origin_allow_list() -> None:
    config = ServerConfig(
        port=0, origins=("https://cards.example", None), rooms=make_config().rooms
    )
    async with CardroomServer(config) as srv:
        async with connect(srv.url, origin=Origin("https://cards.example")) as ws:
            await ws.send(json.dumps({"type": "hello", "id": 1, "protocol": 1}))
            assert json.loads(await ws.recv())["type"] == "welcome"
        with pytest.raises(InvalidStatus) as refused:
            async with connect(srv.url, origin=Origin("https://evil.example")):
                pass
        assert refused.value.response.status_code == 403


async def test_health_and_metrics_over_http(server: CardroomServer) -> None:
    ann = await started_room(server, "Ann")
    await act_fresh(ann, {"kind": "ready"})
    with pytest.raises(CardroomError) as refused:
        await act_fresh(ann, {"kind": "dance"})
    assert refused.value.code == "unknown_action"

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


async def test_plain_http_pages(tmp_path: Path) -> None:
    bare = ServerConfig(port=0, web_root=None, rooms=make_config().rooms)
    async with CardroomServer(bare) as server:
        status, body = await asyncio.to_thread(http_get, server.port, "/")
        assert status == 200 and "hello" in body  # no web client installed: what this server is
    (tmp_path / "web").mkdir()
    (tmp_path / "web" / "index.html").write_text("<h1>Cardroom</h1>")
    (tmp_path / "secret.txt").write_text("not for the web")
    config = ServerConfig(port=0, web_root=tmp_path / "web", rooms=make_config().rooms)
    async with CardroomServer(config) as web:
        status, body = await asyncio.to_thread(http_get, web.port, "/")
        assert status == 200 and "<h1>Cardroom</h1>" in body
        status, _ = await asyncio.to_thread(http_get, web.port, "/%2e%2e/secret.txt")
        assert status == 404
        status, _ = await asyncio.to_thread(http_get, web.port, "/missing.js")
        assert status == 404


async def test_a_client_too_slow_to_keep_up_is_dropped() -> None:
    # The outbox bounds what a room queues for one client; a client that lets it fill up is
    # closed (1013) instead of holding the room up. Here the outbox holds two frames and the
    # start of a game queues three at once for the host (ack, room, state).
    config = ServerConfig(port=0, outbox=2, rooms=make_config().rooms)
    async with CardroomServer(config) as srv, connect(srv.url) as ws:
        await ws.send(json.dumps({"type": "hello", "id": 1, "protocol": 1}))
        await ws.send(
            json.dumps({"type": "create", "id": 2, "game": "shithead", "seats": 2, "name": "Ann"})
        )
        for _ in range(3):  # welcome, joined, room
            await asyncio.wait_for(ws.recv(), 5)
        code = next(iter(srv.manager.rooms))
        await ws.send(json.dumps({"type": "host", "id": 3, "room": code, "op": "start"}))
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                await asyncio.wait_for(ws.recv(), 5)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1013
