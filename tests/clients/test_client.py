"""The Python client against a small scripted WebSocket server (no ``server`` import): replies
by ``ref``, refusals, the room picture, reading positions, timeouts and closing."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import pytest
from pydantic import ValidationError
from websockets.asyncio.server import ServerConnection, serve

from clients import (
    CardroomClient,
    CardroomError,
    ClientStateError,
    ConnectionLost,
    ReplyTimeout,
    to_action_model,
)
from protocol import messages as m
from protocol.errors import ErrorCode
from protocol.views import EventWire, ShitheadView
from server.rules.shithead import Shithead

ROOM = "K7Q2M"


def _info(status: str = "lobby") -> m.RoomInfo:
    return m.RoomInfo(
        room=ROOM,
        game="shithead",
        status=status,  # type: ignore[arg-type]
        seats=[
            m.SeatInfo(seat=0, kind="human", name="Ann", connected=True, host=True),
            m.SeatInfo(seat=1, kind="bot", name="Bot 2", bot_level="random", connected=True),
        ],
        spectators=0,
        locked=False,
        turn_timer=None,
        options=m.ShitheadOptions(),
        games_played=0,
        totals=[0, 0],
    )


def error(code: str, message: str, ref: m.RequestId | None = None) -> m.Error:
    """An error frame with a code the real server sends (protocol/errors.py lists them all)."""
    return m.Error(code=ErrorCode(code), message=message, ref=ref)


class FakeServer:
    """Answers like a Cardroom server would, from a script; ``host lock`` is never answered."""

    def __init__(self) -> None:
        self.version = 0
        self.received: list[str] = []
        self.slow = False  # pause between an ack and its state

    def state(self, seat: int | None, events: list[EventWire] | None = None) -> str:
        view: ShitheadView = {
            **Shithead.new(2, 0, seed=1).view(seat),  # a real view, set to seat 0's turn
            "phase": "play",
            "to_act": [0],
            "seat": seat,
            "legal": [{"kind": "pickup"}] if seat == 0 else [],
        }
        return m.dump(
            m.State(room=ROOM, version=self.version, seat=seat, view=view, events=events or [])
        )

    async def handler(self, ws: ServerConnection) -> None:
        async for frame in ws:
            assert isinstance(frame, str)
            self.received.append(frame)
            try:
                json.loads(frame)
            except ValueError:  # what the real server answers a frame that is not JSON
                await ws.send(m.dump(error(code="bad_json", message="not JSON")))
                continue
            msg = m.parse_client(frame)  # the tests send only valid messages past this point
            for out in self.answer(msg):
                if out == "CLOSE":
                    await ws.close(1001, "going away")
                    return
                if out == "SLEEP":
                    await asyncio.sleep(0.05)
                    continue
                await ws.send(out)

    def answer(self, msg: m.ClientMessage) -> list[str]:
        if isinstance(msg, m.Hello):
            return [m.dump(m.Welcome(ref=msg.id, protocol=1, server="fake", games=["shithead"]))]
        if isinstance(msg, m.Create):
            return [
                m.dump(m.Joined(ref=msg.id, room=ROOM, seat=0, token="tok-0-secret")),
                m.dump(m.Room(room=_info())),
            ]
        if isinstance(msg, m.Join | m.Resume | m.Watch) and msg.room != ROOM:
            return [m.dump(error(code="room_not_found", message="no", ref=msg.id))]
        if isinstance(msg, m.Join | m.Resume):
            self.version = max(self.version, 1)
            return [
                m.dump(m.Joined(ref=msg.id, room=ROOM, seat=0, token="tok-0-secret")),
                m.dump(m.Room(room=_info("playing"))),
                self.state(0),
            ]
        if isinstance(msg, m.Watch):
            return [
                m.dump(m.Joined(ref=msg.id, room=ROOM, seat=None)),
                m.dump(m.Room(room=_info("playing"))),
                self.state(None),
            ]
        if isinstance(msg, m.Act):
            if msg.version != self.version:
                return [
                    m.dump(error(code="stale_version", message="moved on", ref=msg.id)),
                    self.state(0),
                ]
            self.version += 1
            event: EventWire = {"kind": msg.action.kind, "seat": 0}
            ack = m.dump(m.Ack(ref=msg.id, version=self.version))
            return [ack, *(["SLEEP"] if self.slow else []), self.state(0, [event])]
        if isinstance(msg, m.Host):
            if msg.op == "lock":
                return []
            if msg.op == "kick":
                return [
                    m.dump(m.Ack(ref=msg.id, version=self.version)),
                    m.dump(error(code="removed", message="the host removed you")),
                ]
            self.version += 1
            return [
                m.dump(m.Ack(ref=msg.id, version=self.version)),
                m.dump(m.Room(room=_info("playing"))),
                self.state(0),
            ]
        if isinstance(msg, m.Chat):
            line = m.ChatLine(room=ROOM, seat=0, name="Ann", text=msg.text, at=1.0)
            return [m.dump(m.Ack(ref=msg.id)), m.dump(line)]
        if isinstance(msg, m.Leave):
            return [m.dump(m.Ack(ref=msg.id))]
        if isinstance(msg, m.Ping):
            if msg.id == "bye":
                return [m.dump(m.Closing(reason="shutdown")), "CLOSE"]
            return [m.dump(m.Pong(ref=msg.id))]
        raise AssertionError(msg)


@pytest.fixture
async def fake() -> AsyncIterator[tuple[FakeServer, str]]:
    fake = FakeServer()
    async with serve(fake.handler, "127.0.0.1", 0) as server:
        port = server.sockets[0].getsockname()[1]
        yield fake, f"ws://127.0.0.1:{port}/"


async def test_connect_says_hello_and_tracks_the_room(fake: tuple[FakeServer, str]) -> None:
    server, url = fake
    async with CardroomClient.connect(url) as c:
        assert c.welcome is not None and c.welcome.server == "fake"
        joined = await c.create("shithead", 2, "Ann")
        assert (joined.room, c.room, c.seat, c.token) == (ROOM, ROOM, 0, "tok-0-secret")
        info = await c.wait_room()
        assert info.status == "lobby" and c.room_info == info
        ack = await c.host("start")
        assert ack.version == 1
        state = await c.wait_state()
        assert (state.version, c.version, c.view) == (1, 1, state.view)
        assert c.legal == [{"kind": "pickup"}] and c.my_turn
    assert json.loads(server.received[0])["type"] == "hello"


async def test_act_uses_the_latest_version_and_wait_state_sees_its_result(
    fake: tuple[FakeServer, str],
) -> None:
    server, url = fake
    async with CardroomClient.connect(url) as c:
        await c.join(ROOM, "Ann")
        await c.wait_state()
        for n in range(3):
            ack = await c.act({"kind": "pickup"})
            state = await c.wait_state()  # the state sent right after the ack
            assert ack.version == state.version == n + 2
            assert state.events == [{"kind": "pickup", "seat": 0}]
        assert json.loads(server.received[-1])["version"] == 3


async def test_wait_turn_never_acts_twice_on_one_state(fake: tuple[FakeServer, str]) -> None:
    server, url = fake
    server.slow = True
    async with CardroomClient.connect(url) as c:
        await c.join(ROOM, "Ann")
        for n in range(4):
            state = await c.wait_turn()
            assert state.version == n + 1
            await c.act(state.view["legal"][0])  # a reuse of the old state would be stale
        assert (await c.wait_turn()).version == 5


async def test_stale_version_raises_and_the_fresh_state_follows(
    fake: tuple[FakeServer, str],
) -> None:
    _, url = fake
    async with CardroomClient.connect(url) as c:
        await c.join(ROOM, "Ann")
        with pytest.raises(CardroomError) as info:
            await c.act("pickup", version=99)
        assert info.value.code == "stale_version"
        assert isinstance(info.value.request, m.Act)
        assert str(info.value) == "act pickup refused: stale_version: moved on"
        state = await c.wait_state()
        assert state.version == c.version == 1


async def test_refusals_and_local_validation(fake: tuple[FakeServer, str]) -> None:
    _, url = fake
    async with CardroomClient.connect(url) as c:
        with pytest.raises(ClientStateError):
            await c.chat("hi")  # no room yet
        with pytest.raises(ClientStateError):
            await c.act("pickup")  # no state yet
        with pytest.raises(CardroomError) as info:
            await c.watch("ZZZZZ")
        assert info.value.code == "room_not_found"
        with pytest.raises(ValidationError):
            await c.join("not a code", "Ann")  # refused before sending


async def test_messages_iterates_everything_including_replies(
    fake: tuple[FakeServer, str],
) -> None:
    _, url = fake
    c = await CardroomClient.connect(url, hello=False)
    seen: list[str] = []

    async def collect() -> None:
        async for msg in c.messages():
            seen.append(msg.type)

    task = asyncio.create_task(collect())
    await c.hello()
    await c.watch(ROOM)
    await c.chat("hello all")
    line = await c.wait_for(lambda msg: msg.type == "chat")
    assert isinstance(line, m.ChatLine) and line.text == "hello all"
    assert (await c.ping()).type == "pong"
    await c.close()
    await asyncio.wait_for(task, 5)
    assert seen == ["welcome", "joined", "room", "state", "ack", "chat", "pong"]


async def test_garbage_gets_an_unsolicited_error(fake: tuple[FakeServer, str]) -> None:
    _, url = fake
    async with CardroomClient.connect(url) as c:
        await c.send_raw("{not json")
        error = await c.wait_for(lambda msg: isinstance(msg, m.Error))
        assert isinstance(error, m.Error) and error.ref is None and error.code == "bad_json"


@pytest.mark.slow
async def test_timeouts(fake: tuple[FakeServer, str]) -> None:
    _, url = fake
    async with CardroomClient.connect(url) as c:
        await c.create("shithead", 2, "Ann")
        with pytest.raises(ReplyTimeout):
            await c.host("lock", timeout=0.2)  # never answered
        with pytest.raises(TimeoutError):
            await c.wait_for(lambda msg: msg.type == "closing", timeout=0.1)
        assert (await c.ping()).type == "pong"  # still usable


async def test_removed_forgets_the_room(fake: tuple[FakeServer, str]) -> None:
    _, url = fake
    async with CardroomClient.connect(url) as c:
        await c.join(ROOM, "Ann")
        await c.host("kick", seat=0)
        await c.wait_for(lambda msg: isinstance(msg, m.Error) and msg.code == "removed")
        assert (c.room, c.seat, c.token, c.state) == (None, None, None, None)


async def test_leave_forgets_the_room(fake: tuple[FakeServer, str]) -> None:
    _, url = fake
    async with CardroomClient.connect(url) as c:
        await c.join(ROOM, "Ann")
        await c.leave()
        assert c.room is None and c.view is None


async def test_server_closing(fake: tuple[FakeServer, str]) -> None:
    _, url = fake
    c = await CardroomClient.connect(url)
    with pytest.raises(ConnectionLost):
        await c.request(m.Ping(id="bye"), m.Pong)
    assert c.closing == "shutdown" and c.closed
    with pytest.raises(ConnectionLost):
        await c.wait_state()
    with pytest.raises(ConnectionLost):
        await c.ping()
    await c.close()
    await c.close()  # safe twice
    with pytest.raises(ClientStateError):
        await c.ping()


def test_action_forms() -> None:
    assert to_action_model("play 7d 7S").model_dump() == {
        "kind": "play",
        "cards": ["7D", "7S"],
        "slot": None,
    }
    assert to_action_model("flip #2").slot == 2
    assert to_action_model({"kind": "swap", "cards": ["3C", "AH"]}).cards == ["3C", "AH"]
    with pytest.raises(ValidationError):
        to_action_model("play 1D")
