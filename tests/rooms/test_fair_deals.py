"""Fair deals through a real server (docs/protocol.md, "Fair deals"): no client can compute a
deal from what it sees, the commitment shown before a deal is SHA-256 of the seed the history
reveals, the players' contributions change the deal, and the daily deals stay secret until
their day is over."""

from __future__ import annotations

import asyncio
import datetime
import hashlib
import json
import random
import re
import urllib.error
import urllib.request
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

import pytest
from redis.asyncio import Redis

from clients import CardroomClient, CardroomError
from protocol import messages as m
from protocol.cards import CODES, card_codes
from protocol.messages import Ack, Contribute, Room, ServerMessage, State
from server.bots.base import hand_of
from server.net.server import CardroomServer
from server.rooms import core as room_core
from server.rooms.core import RoomCore
from server.rooms.inputs import CreateHost, Request
from server.rooms.outputs import Send
from server.rooms.seeds import Keys
from server.rooms.settings import RoomSettings
from server.rules.deal import DealProof, commitment, shuffle
from server.rules.sheepshead_cards import DECK32
from server.runtime import manager as room_manager
from server.store.memory import MemoryStore
from server.store.redis_client import global_key
from server.tools.bench.procs import free_port
from server.tools.bench.redis_server import RedisServer
from tests.support.redis_games import serving
from tests.support.results_api import get_json
from tests.support.room_core import whole
from tests.support.server import make_config, play_until_over

SECRET_A, SECRET_B = bytes(range(32)), bytes(range(1, 33))
MINE = bytes([7]) * 32  # a contribution a test sends itself


def today() -> datetime.date:
    return datetime.datetime.now(datetime.UTC).date()


def _get_at(port: int, path: str, token: str | None = None) -> tuple[int, Any]:
    auth = {"Authorization": f"Bearer {token}"} if token else {}
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers=auth)
    with urllib.request.urlopen(request, timeout=5) as r:
        return r.status, json.loads(r.read())


async def history_of(port: int, code: str, token: str) -> Any:
    """The room's history once its first game is in it (recorded just after the game ends)."""
    path = f"/api/rooms/{code}/history"
    for _ in range(100):  # a bound: 5 s
        status, body = await asyncio.to_thread(_get_at, port, path, token)
        if status == 200 and body["games"]:
            return body
        await asyncio.sleep(0.05)
    raise AssertionError(f"no game in {code}'s history")


async def get(server: CardroomServer, path: str) -> tuple[int, Any]:
    """GET in a thread: the server runs in this test's event loop."""
    return await asyncio.to_thread(get_json, server, path)


def server_with(secret: bytes | None, **rooms: Any) -> CardroomServer:
    config = make_config(**rooms)
    if secret is not None:
        config = replace(config, rooms=replace(config.rooms, keys=Keys(secret)))
    return CardroomServer(config, store=MemoryStore())


async def first_state(client: CardroomClient) -> State:
    return await client.wait_state(lambda s: s.version >= 1)


def old_daily_hand(day: datetime.date, hand: int, seat: int) -> set[str]:
    """Seat ``seat``'s cards in hand ``hand`` of the daily match as the date alone dealt them
    before fair deals (``sha256("sheepshead:DATE:i")`` into Python's ``random``): the attack."""
    digest = hashlib.sha256(f"sheepshead:{day.isoformat()}:{hand}".encode()).digest()
    deck = list(DECK32)
    random.Random(int.from_bytes(digest[:8], "big")).shuffle(deck)
    block = (seat - hand % 5 - 1) % 5  # SS-2: six cards a seat from the dealer's left
    return set(card_codes(deck[6 * block : 6 * block + 6]))


@pytest.fixture
async def server() -> AsyncIterator[CardroomServer]:
    async with server_with(None, idle_timeout=0.3) as srv:
        yield srv


async def test_the_daily_deal_is_not_the_one_the_date_gives(server: CardroomServer) -> None:
    # rule SS-9.2: every daily player gets the same hands, dealt from the server's secret
    async with CardroomClient.connect(server.url) as me:
        await me.create("sheepshead", seats=5, name="Ann", daily=True)
        info = await me.wait_room()
        assert info.next_deal is None  # a daily hand takes no contributions
        await me.host("start")
        state = await first_state(me)
    day = today()
    assert set(hand_of(state.view)) != old_daily_hand(day, 0, 0)  # the old attack misses
    status, daily = await get(server, "/api/daily")
    assert status == 200 and daily["date"] == day.isoformat()
    assert state.commitment == daily["commitments"][0]  # published when the day began
    assert daily["seeds"] is None  # not before the day is over
    assert len(daily["previous"]["seeds"]) == 10
    for hand, (seed, commit) in enumerate(
        zip(daily["previous"]["seeds"], daily["previous"]["commitments"], strict=True)
    ):
        assert commitment(bytes.fromhex(seed), hand % 5) == commit  # hand h dealt by seat h % 5
    assert (await get(server, f"/api/daily?date={day + datetime.timedelta(days=1)}"))[0] == 400
    assert (await get(server, "/api/daily?date=yesterday"))[0] == 400


async def frames_until_dealt(
    secret: bytes, monkeypatch: pytest.MonkeyPatch, value: bytes | None
) -> tuple[list[str], set[str], DealProof, list[str]]:
    """A Shithead room on a server with ``secret``, its code and nonce fixed: every frame the
    seat and a spectator got and every HTTP answer until the deal, the seat's first hand, the
    deal's proof and the deck (seat 0 contributes ``value``, seat 1 is a bot)."""
    monkeypatch.setattr(room_manager, "new_code", lambda: "FAIRD")
    monkeypatch.setattr(room_core, "new_nonce", lambda: "00" * 16)
    seen: list[str] = []
    async with (
        server_with(secret) as srv,
        CardroomClient.connect(srv.url) as ann,
        CardroomClient.connect(srv.url) as eve,
    ):
        ann.contribute = False
        await ann.create("shithead", seats=2, name="Ann")
        info = await ann.wait_room()
        assert info.next_deal is not None and info.next_deal.game == 0
        await eve.watch("FAIRD")
        if value is not None:
            msg = Contribute(id="c", room="FAIRD", game=0, value=value.hex())
            await ann.request(msg, Ack)
        for path in ("/api/daily", "/api/rooms/FAIRD/history", "/api/leaderboard?board=daily"):
            seen.append(json.dumps((await get(srv, path))[1]))
        await ann.host("fill_bots", level="random")
        before: list[ServerMessage] = [*ann.history, *eve.history]
        await ann.host("start")
        state = await first_state(ann)
        match = srv.manager.rooms["FAIRD"].core.match
        assert match is not None
        proof = match.proof(0)
        assert proof is not None
        deck = match.current.deal_record()["deck"]
    seen += [m.model_dump_json() for m in before]
    return seen, set(hand_of(state.view)), proof, deck


async def test_no_client_can_predict_a_deal_from_what_it_sees(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen, hand, proof, deck = await frames_until_dealt(SECRET_A, monkeypatch, MINE)
    assert proof.contributions == (MINE, None)  # the seat's value, the bot's none
    assert deck == card_codes(proof.deck(range(52)))  # the documented shuffle
    text = "\n".join(seen)
    assert proof.seed.hex() not in text  # the seed is nowhere before the deal
    assert SECRET_A.hex() not in text
    # no 32-byte value a client saw, taken as the seed, deals these cards
    for found in set(re.findall(r"[0-9a-f]{64}", text)):
        assert card_codes(shuffle(range(52), bytes.fromhex(found), [MINE, None])) != deck
    # the same visible inputs (code, nonce, contribution) under another secret: another deal
    _, hand_b, proof_b, deck_b = await frames_until_dealt(SECRET_B, monkeypatch, MINE)
    assert deck_b != deck and hand_b != hand and proof_b.seed != proof.seed
    # and under the same secret, the same deal: nothing else chose it
    assert (await frames_until_dealt(SECRET_A, monkeypatch, MINE))[3] == deck


async def test_a_contribution_changes_the_deal(monkeypatch: pytest.MonkeyPatch) -> None:
    _, _, with_value, deck = await frames_until_dealt(SECRET_A, monkeypatch, MINE)
    _, _, without, deck_none = await frames_until_dealt(SECRET_A, monkeypatch, None)
    assert without.seed == with_value.seed and without.contributions == (None, None)
    assert deck != deck_none


async def test_contributions_are_refused_when_no_deal_takes_them(server: CardroomServer) -> None:
    async with (
        CardroomClient.connect(server.url) as ann,
        CardroomClient.connect(server.url) as eve,
    ):
        ann.contribute = False
        await ann.create("shithead", seats=2, name="Ann")
        code = ann.room or ""
        await eve.watch(code)
        value = MINE.hex()
        with pytest.raises(CardroomError) as wrong_game:
            await ann.request(Contribute(id="a", room=code, game=1, value=value), Ack)
        assert wrong_game.value.code == "bad_contribution"
        with pytest.raises(CardroomError) as spectator:
            await eve.request(Contribute(id="b", room=code, game=0, value=value), Ack)
        assert spectator.value.code == "not_seated"
        await ann.request(Contribute(id="c", room=code, game=0, value=value), Ack)
        with pytest.raises(CardroomError) as twice:
            await ann.request(Contribute(id="d", room=code, game=0, value="00" * 32), Ack)
        assert twice.value.code == "bad_contribution"
        await ann.host("fill_bots", level="random")
        await ann.host("start")
        with pytest.raises(CardroomError) as playing:
            await ann.request(Contribute(id="e", room=code, game=1, value=value), Ack)
        assert playing.value.code == "bad_contribution"
        match = server.manager.rooms[code].core.match
        assert match is not None and match.proof(0) == DealProof(
            server.manager.rooms[code].core.source.keys.deal(
                code, server.manager.rooms[code].core.nonce, 0
            ),
            (MINE, None),
            match.dealer_of(0),
        )


async def played_shithead(server: CardroomServer) -> tuple[CardroomClient, list[State]]:
    """Ann (contributing on her own, as every client does) plays a game against a bot."""
    ann = await CardroomClient.connect(server.url)
    await ann.create("shithead", seats=2, name="Ann")
    await ann.wait_room(lambda r: r.next_deal is not None)
    await ann.host("fill_bots", level="random")
    await ann.host("start")
    await play_until_over(ann)
    states = [m for m in ann.history if isinstance(m, State)]
    return ann, states


async def test_the_history_reveals_the_committed_seed_and_verify_checks_it(
    server: CardroomServer, tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from server.tools import verify

    ann, states = await played_shithead(server)
    code, token = ann.room or "", ann.token or ""
    shown = [m.room.next_deal for m in ann.history if isinstance(m, Room) and m.room.next_deal]
    await ann.close()
    url = f"http://127.0.0.1:{server.port}/api/rooms/{code}/history"
    history = await history_of(server.port, code, token)
    (game,) = history["games"]
    proof = game["proof"]
    # the commitment before the deal, and in every state of the game, is SHA-256 of the seed
    assert {s.commitment for s in states} == {shown[0].commitment} == {proof["commitment"]}
    committed = bytes.fromhex(proof["seed"]) + bytes([game["deal"]["dealer"]])  # and its dealer
    assert hashlib.sha256(committed).hexdigest() == proof["commitment"]
    assert proof["contributions"][0] == ann.contributions[(code, 0)].hex()  # Ann's own value
    assert proof["contributions"][1] is None  # a bot's seat
    assert game["deal"]["deck"] == [CODES[c] for c in DealProof.from_json(proof).deck(range(52))]

    # cardroom verify: a real history, fetched from the real server
    seen = f"0={shown[0].commitment}"
    # --token=: a token may start with "-" (one in 64), which argparse takes for an option
    argv = [url, f"--token={token}", "--commitment", seen]
    assert await asyncio.to_thread(verify.main, argv) == 0
    assert "game 0: deal verified" in capsys.readouterr().out

    def check(changed: dict[str, Any], *extra: str) -> tuple[int, str]:
        path = tmp_path / "changed.json"
        path.write_text(json.dumps({**history, "games": [changed]}))
        code = verify.main([str(path), *extra])
        return code, capsys.readouterr().out

    deck = list(game["deal"]["deck"])
    deck[0], deck[1] = deck[1], deck[0]
    status, out = check({**game, "deal": {**game["deal"], "deck": deck}})
    assert status == 1 and "game 0: WRONG: the deal is not the shuffle" in out
    other = hashlib.sha256(b"another seed").digest()
    forged = {**proof, "seed": other.hex()}  # a new seed, the old commitment
    status, out = check({**game, "proof": forged})
    assert status == 1 and "do not hash to the commitment" in out
    forged = {**proof, "seed": other.hex(), "commitment": commitment(other, proof["dealer"])}
    status, out = check({**game, "proof": forged}, "--commitment", seen)
    assert status == 1 and "not the one shown before the deal" in out
    value = {**proof, "contributions": [None, None]}  # a contribution dropped afterwards
    status, out = check({**game, "proof": value})
    assert status == 1 and "WRONG" in out
    assert verify.main(["http://192.0.2.1/api/rooms/X/history"]) == 2  # loopback only


@pytest.mark.slow
async def test_a_closed_daily_room_keeps_its_history_until_the_day_is_over(
    server: CardroomServer,
) -> None:
    # rule SS-9.2: the day's deals are the same for everyone who has not played yet
    me = await CardroomClient.connect(server.url)
    await me.create("sheepshead", seats=5, name="Ann", daily=True)
    await me.host("start")
    await play_until_over(me)
    code, token = me.room or "", me.token or ""
    async with asyncio.timeout(10):
        while not await server.store.history(code):  # noqa: ASYNC110  # stored after the hand
            await asyncio.sleep(0.05)
    # its player, while the room is open, neither: the hand's record is the day's deal
    status, body = await asyncio.to_thread(get_json, server, f"/api/rooms/{code}/history", token)
    assert status == 403 and body["error"] == "daily_not_over"
    await me.close()
    async with asyncio.timeout(10):
        while code in server.manager.rooms:  # noqa: ASYNC110  # closed once idle (0.3 s)
            await asyncio.sleep(0.05)
    status, body = await get(server, f"/api/rooms/{code}/history")
    assert status == 403 and body["error"] == "daily_not_over"


async def test_bots_are_seeded_apart_from_the_deal(server: CardroomServer) -> None:
    ann, _ = await played_shithead(server)
    actor = server.manager.rooms[ann.room or ""]
    match = actor.core.match
    assert match is not None
    proof = match.proof(0)
    assert proof is not None
    deal_ints = {int.from_bytes(proof.seed[i : i + 8], "big") for i in range(25)}
    bot_seeds = {actor._bot_seed(seat) for seat in range(2)}
    assert actor.core.bot_seed not in deal_ints | {actor.core.seed}
    assert not bot_seeds & deal_ints
    # its own stream: another label of the same keys, not the deal's
    keys = actor.core.source.keys
    assert actor.core.bot_seed == keys.bots(actor.core.code, actor.core.nonce)
    assert keys.deal(actor.core.code, actor.core.nonce, 0) == proof.seed
    await ann.close()


@pytest.mark.slow
async def test_contributions_survive_a_sigkill_and_the_deal_replays(
    redis_server: RedisServer,
) -> None:
    """Real ``cardroom serve --redis`` processes, each given the same secret by its
    environment (Redis keeps none), so a fresh process deals and replays exactly the same
    cards."""
    from server.tools import verify

    port = free_port()
    url = f"ws://127.0.0.1:{port}/"
    values = {0: bytes([1]) * 32, 1: bytes([2]) * 32}
    async with serving(port, redis_server.url) as first:
        ann = await CardroomClient.connect(url)
        bob = await CardroomClient.connect(url)
        ann.contribute = bob.contribute = False
        await ann.create("shithead", seats=2, name="Ann")
        code = ann.room or ""
        await bob.join(code, name="Bob")
        for seat, client in enumerate((ann, bob)):
            msg = Contribute(id="c", room=code, game=0, value=values[seat].hex())
            await client.request(msg, Ack)
        first.kill()  # SIGKILL after the contributions, before the deal
        await first.wait()
        tokens = [ann.token or "", bob.token or ""]
        await asyncio.gather(ann.close(), bob.close())

    async with serving(port, redis_server.url) as second:
        ann = await CardroomClient.connect(url)
        await ann.resume(code, tokens[0])
        tokens[0] = ann.token or ""  # a resume hands out a fresh token
        ann.contribute = False
        await ann.host("start")
        dealt = await ann.wait_state(lambda s: s.version >= 1, timeout=10)
        second.kill()  # and once more, mid-game
        await second.wait()
        await ann.close()

    async with serving(port, redis_server.url):
        ann = await CardroomClient.connect(url)
        bob = await CardroomClient.connect(url)
        ann.contribute = bob.contribute = False
        await ann.resume(code, tokens[0])
        await bob.resume(code, tokens[1])
        tokens = [ann.token or "", bob.token or ""]
        again = await ann.wait_state(timeout=10)
        assert again.commitment == dealt.commitment
        if again.view["phase"] == "swap":  # nobody moved yet: the very same table
            assert again.view["hand"] == dealt.view["hand"]
        await asyncio.gather(play_until_over(ann), play_until_over(bob))
        history = await history_of(port, code, tokens[0])
        await asyncio.gather(ann.close(), bob.close())
    proof = history["games"][0]["proof"]
    assert proof["contributions"] == [values[0].hex(), values[1].hex()]  # kept across both kills
    assert proof["commitment"] == dealt.commitment
    start = history["games"][0]["deal"]["deck"]
    assert start == [CODES[c] for c in DealProof.from_json(proof).deck(range(52))]
    assert verify.verify(history, {0: dealt.commitment or ""}) == [(0, None)]
    # the secret is the environment's: Redis keeps only its fingerprint
    redis = Redis.from_url(redis_server.url)
    try:
        assert await redis.get(global_key("secret")) is None
        assert await redis.get(global_key("secret:fingerprint")) is not None
    finally:
        await redis.aclose()


def test_a_refused_contribution_leaves_the_room_as_it_was() -> None:
    room = RoomCore("ABCDE", "shithead", 2, settings=RoomSettings(keys=Keys(SECRET_A)))
    created = room.handle(
        CreateHost(1, m.Create(id="1", game="shithead", seats=2, name="Ann")), 0.0
    )
    (token,) = (
        frame["token"]
        for o in created
        if isinstance(o, Send)
        for frame in [json.loads(o.text)]
        if frame["type"] == "joined"
    )
    room.handle(Request(2, m.Watch(id="w", room="ABCDE")), 0.0)

    def contribute(conn: int, game: int, value: bytes) -> list[Any]:
        msg = Contribute(id="c", room="ABCDE", game=game, value=value.hex())
        return room.handle(Request(conn, msg), 0.0)

    accepted = contribute(1, 0, MINE)
    assert [type(o).__name__ for o in accepted] == ["Persist", "Send"]  # saved before the ack
    assert accepted[0].record["contributed"] == {"0": MINE.hex()}
    before = whole(room)
    for conn, game, code in ((1, 0, "bad_contribution"), (1, 1, "bad_contribution"),
                             (2, 0, "not_seated"), (3, 0, "not_in_room")):  # fmt: skip
        (refusal,) = contribute(conn, game, bytes(32))
        assert json.loads(refusal.text)["code"] == code
        assert whole(room) == before
    # the value is kept in the record: a room rebuilt from it deals the same cards
    again = RoomCore.from_record(room.record(), room.settings)
    again.handle(Request(1, m.Resume(id="r", room="ABCDE", token=token)), 0.0)
    for r in (room, again):
        r.handle(Request(1, m.Host(id="s", room="ABCDE", op="start")), 0.0)
    assert room.match is not None and again.match is not None
    assert room.match.current.deal_record() == again.match.current.deal_record()
    assert room.match.proof(0) == again.match.proof(0)
    proof = room.match.proof(0)
    assert proof is not None and proof.contributions == (MINE, None)


async def test_each_hand_of_a_match_is_committed_and_contributed_to_in_turn(
    server: CardroomServer,
) -> None:
    # rule SS-9.1: a match deals its hands one after another; each hand's commitment comes
    # before the players' values for it, and those before its deal
    async with CardroomClient.connect(server.url) as ann:
        await ann.create("sheepshead", seats=5, name="Ann")
        await ann.wait_room(lambda r: r.next_deal is not None)
        await ann.host("fill_bots", level="random")
        await ann.host("start")
        await play_until_over(ann)
        between = await ann.wait_room(lambda r: r.next_deal is not None)
        assert between.next_deal is not None and between.next_deal.game == 1
        await ann.host("next_game")
        hand = await ann.wait_state(lambda s: s.view["phase"] != "over")
        code = ann.room or ""
        match = server.manager.rooms[code].core.match
        assert match is not None and match.game_index == 1
        for game in (0, 1):
            proof = match.proof(game)
            assert proof is not None
            assert proof.contributions[0] == ann.contributions[(code, game)]  # Ann's own
            assert proof.contributions[1:] == (None,) * 4  # bots send none
        assert hand.commitment == between.next_deal.commitment == match.commitment(1)
        assert match.commitment(0) != match.commitment(1)


@pytest.mark.slow
async def test_serve_takes_its_secret_from_the_flag_and_refuses_a_bad_one(
    redis_server: RedisServer,
) -> None:
    from server.cli import main

    with pytest.raises(SystemExit) as bad:
        main(["serve", "--secret", "not hex"])
    assert bad.value.code == 2
    port = free_port()
    async with serving(port, redis_server.url, "--secret", SECRET_B.hex()):
        _, daily = await asyncio.to_thread(_get_at, port, "/api/daily")
    keys = Keys(SECRET_B)  # the given secret, not the one kept in Redis
    assert daily["commitments"][0] == commitment(keys.daily(today(), 0), 0)


def test_the_secret_is_never_in_a_repr_or_a_message() -> None:
    settings = RoomSettings(keys=Keys(SECRET_A))
    room = RoomCore("ABCDE", "shithead", 2, settings=settings)
    for text in (repr(settings), repr(room.source), repr(settings.keys), json.dumps(room.meta())):
        assert SECRET_A.hex() not in text and str(SECRET_A) not in text
    with pytest.raises(ValueError) as short:
        Keys(bytes(31))  # too short to be a secret
    assert "00" * 31 not in str(short.value)
