"""Seat tokens are secrets (they give the seat). They never appear in logs (not even when an
input that carries one fails), a room keeps only their SHA-256 (in memory and in its Redis
record), and every resume hands out a fresh one: the old one stops working, and of two devices
resuming with the same token only the first gets the seat."""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging

import pytest
from websockets.asyncio.client import connect

from clients import CardroomClient, CardroomError
from protocol import messages as m
from server.net.server import CardroomServer, ServerConfig
from server.rooms import play
from server.rooms.settings import RoomSettings
from server.store.redis_store import RedisStore
from server.tools.bench.redis_server import RedisServer
from tests.support.server import make_config


def test_the_repr_of_messages_that_carry_a_secret_hides_it() -> None:
    secret = "s3cret-seat-token-value"
    device = "device-token-never-logged"
    for msg in (
        m.Resume(id=1, room="ABCDE", token=secret),
        m.Joined(ref=1, room="ABCDE", seat=0, token=secret),
        m.Hello(id=1, protocol=1, device=device),
    ):
        assert secret not in repr(msg) and device not in repr(msg) and secret not in str(msg)
    assert secret in m.dump(m.Joined(ref=1, room="ABCDE", seat=0, token=secret))  # still sent


async def test_a_failed_resume_is_logged_without_its_token(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with CardroomServer(make_config()) as srv, CardroomClient.connect(srv.url) as ann:
        await ann.create("shithead", seats=2, name="Ann")
        code, token = ann.room or "", ann.token or ""
        await ann.close()

        def broken(*args: object) -> None:  # a bug while the resume is being handled
            raise RuntimeError("boom")

        monkeypatch.setattr(play, "refresh_deadline", broken)
        with caplog.at_level(logging.INFO):
            async with CardroomClient.connect(srv.url) as back:
                with pytest.raises(CardroomError) as failed:
                    await back.resume(code, token)
        assert failed.value.code == "internal_error"
        assert "Resume" in caplog.text  # the failed input is logged...
        assert token not in caplog.text  # ...without its secret


async def test_a_resume_rotates_the_token_and_the_old_one_stops_working() -> None:
    async with CardroomServer(make_config(token_overlap=0.0)) as srv:
        async with CardroomClient.connect(srv.url) as ann:
            await ann.create("shithead", seats=2, name="Ann")
            code, first = ann.room or "", ann.token or ""
        async with CardroomClient.connect(srv.url) as ann:
            joined = await ann.resume(code, first)
            second = joined.token or ""
            assert second and second != first
        async with CardroomClient.connect(srv.url) as thief:
            with pytest.raises(CardroomError) as old:
                await thief.resume(code, first)
            assert old.value.code == "bad_token"
        async with CardroomClient.connect(srv.url) as ann:
            assert (await ann.resume(code, second)).seat == 0
        # only the digest is kept in memory
        core = srv.manager.rooms[code].core
        assert first not in repr(core.record()) and second not in repr(core.record())


async def test_a_lost_answer_to_a_resume_does_not_lock_the_player_out() -> None:
    """The connection drops before the new token arrives: the old one resumes once more, for a
    short while and only while nobody holds the seat; then it is void like any other."""
    async with CardroomServer(make_config(token_overlap=30.0)) as srv:
        async with CardroomClient.connect(srv.url) as ann:
            await ann.create("shithead", seats=2, name="Ann")
            code, first = ann.room or "", ann.token or ""
        async with connect(srv.url) as lost:  # a resume whose answer is never read
            await lost.send(json.dumps({"type": "hello", "id": 1, "protocol": 1}))
            await lost.recv()
            await lost.send(json.dumps({"type": "resume", "id": 2, "room": code, "token": first}))
            while json.loads(await lost.recv())["type"] != "joined":
                pass  # (read here only to know it was handled; the client "lost" it)
        async with CardroomClient.connect(srv.url) as ann, CardroomClient.connect(srv.url) as b:
            joined = await ann.resume(code, first)  # the old token, again: the seat is hers
            assert joined.seat == 0 and joined.token not in (None, first)
            with pytest.raises(CardroomError) as held:  # while she holds it, it resumes nothing
                await b.resume(code, first)
            assert held.value.code == "bad_token"
            second = joined.token or ""
        async with CardroomClient.connect(srv.url) as ann:
            assert (await ann.resume(code, second)).seat == 0  # the current one: rotates again
        async with CardroomClient.connect(srv.url) as thief:
            with pytest.raises(CardroomError) as old:  # two resumes back: void
                await thief.resume(code, first)
            assert old.value.code == "bad_token"


async def test_two_devices_resuming_with_one_token_only_the_first_gets_the_seat() -> None:
    async with CardroomServer(make_config()) as srv:
        async with CardroomClient.connect(srv.url) as ann:
            await ann.create("shithead", seats=2, name="Ann")
            code, token = ann.room or "", ann.token or ""
        a = await CardroomClient.connect(srv.url)
        b = await CardroomClient.connect(srv.url)
        try:
            results = await asyncio.gather(
                a.resume(code, token), b.resume(code, token), return_exceptions=True
            )
            won = [r for r in results if isinstance(r, m.Joined)]
            lost = [r for r in results if isinstance(r, CardroomError)]
            assert len(won) == 1 and len(lost) == 1 and lost[0].code == "bad_token"
            winner = a if won[0] is results[0] else b
            assert winner.seat == 0 and winner.token == won[0].token
            room = await winner.wait_room()
            assert room.seats[0].connected and room.spectators == 0
        finally:
            await asyncio.gather(a.close(), b.close())


async def test_redis_keeps_only_the_tokens_digest(redis_server: RedisServer) -> None:
    config = ServerConfig(
        port=0, redis_url=redis_server.url, rate=1000.0, burst=1000.0, rooms=RoomSettings()
    )
    async with CardroomServer(config) as srv, CardroomClient.connect(srv.url) as ann:
        await ann.create("shithead", seats=2, name="Ann")
        code, token = ann.room or "", ann.token or ""
        store = RedisStore(redis_server.url)
        try:
            stored = await store.load(code)
        finally:
            await store.close()
        assert stored is not None
        seat = stored.record["seats"][0]
        assert token not in repr(stored.record)
        assert seat["token_sha256"] == hashlib.sha256(token.encode()).hexdigest()
