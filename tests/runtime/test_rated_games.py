"""Rated rooms over real sockets: a finished rated game moves its players' ratings exactly as
the openskill library says for its outcome, once, and the room shows each change; a leaver is
ranked last and waits; unrated and house-rule rooms move nothing; made-up devices and a second
identity from one address are not rated."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import replace

import pytest
from openskill.models import PlackettLuce

from clients import CardroomError
from server.net.server import CardroomServer
from server.store.leaderboard import player_id
from server.store.ratings import SCALE, ranks_by_order
from server.tools.bench.redis_server import RedisServer
from tests.support.rated import last_game, person, rated_config, shown
from tests.support.server import device_for, play_until_over

pytestmark = pytest.mark.slow


@pytest.fixture(params=["memory", "redis"])
async def server(request: pytest.FixtureRequest) -> AsyncIterator[CardroomServer]:
    config = rated_config(grace=0.3)
    if request.param == "redis":
        redis: RedisServer = request.getfixturevalue("redis_server")
        config = replace(config, redis_url=redis.url)
    async with CardroomServer(config) as srv:
        yield srv


async def test_a_rated_game_moves_ratings_as_the_library_says(server: CardroomServer) -> None:
    ann = await person(server, "ann", "10.0.0.1")
    bob = await person(server, "bob", "10.0.0.2")
    await ann.create("shithead", seats=3, name="Ann", rated=True)
    assert ann.room is not None and ann.room_info is not None and ann.room_info.rated
    await bob.join(ann.room, name="Bob")
    await ann.host("add_bot", seat=2, level="strong")
    await ann.host("start")
    await asyncio.gather(play_until_over(ann), play_until_over(bob))
    info = await shown(ann)
    # rule SH-6.4: the order the seats went out, the shithead last
    result = (await last_game(server, ann.room))["result"]
    ranks = ranks_by_order(result["out_order"], result["loser"], 3)
    model = PlackettLuce()
    want = model.rate([[model.rating()] for _ in range(3)], ranks=[float(r) for r in ranks])
    ids = [
        player_id(device_for(server, "ann")),
        player_id(device_for(server, "bob")),
        "bot:strong",
    ]
    ratings = server.stores.ratings
    for seat, pid in enumerate(ids):
        got = await ratings.rating("shithead", pid)
        assert got.mu == pytest.approx(want[seat][0].mu, abs=1e-9)
        assert got.sigma == pytest.approx(want[seat][0].sigma, abs=1e-9)
        assert got.games == 1
    # the room shows each seat's change, the same on every seat's client
    assert info.ratings is not None
    assert [(r.seat, r.player) for r in info.ratings] == list(enumerate(ids))
    for r in info.ratings:
        assert r.before == 0
        assert r.after == round(SCALE * want[r.seat][0].ordinal())
        assert r.delta == r.after - r.before
    assert (await shown(bob)).ratings == info.ratings
    # the finished path again (a room reloaded after a crash records its last game again):
    # nothing moves twice
    actor = server.manager.rooms[ann.room]
    await actor.games.record(None)
    assert (await ratings.rating("shithead", ids[0])).games == 1
    assert (await ratings.rating("shithead", "bot:strong")).games == 1
    await ann.close()
    await bob.close()


async def test_a_leaver_is_ranked_last_and_waits(server: CardroomServer) -> None:
    ann = await person(server, "ann", "10.0.0.1")
    bob = await person(server, "bob", "10.0.0.2")
    await ann.create("shithead", seats=3, name="Ann", rated=True)
    assert ann.room is not None
    await bob.join(ann.room, name="Bob")
    await ann.host("add_bot", seat=2, level="basic")
    await ann.host("start")
    await bob.wait_state()
    await bob.leave()  # a stand-in plays his seat on: he is ranked last all the same
    await play_until_over(ann)
    await shown(ann)
    result = (await last_game(server, ann.room))["result"]
    out = ranks_by_order(result["out_order"], result["loser"], 3)
    stayed = sorted([0, 2], key=lambda seat: out[seat])
    ranks = [0, 3, 0]  # Bob after everyone; Ann and the bot in their order
    ranks[stayed[0]], ranks[stayed[1]] = 1, 2
    model = PlackettLuce()
    want = model.rate([[model.rating()] for _ in range(3)], ranks=[float(r) for r in ranks])
    bob_id = player_id(device_for(server, "bob"))
    got = await server.stores.ratings.rating("shithead", bob_id)
    assert got.mu == pytest.approx(want[1][0].mu, abs=1e-9)
    page = await server.stores.ratings.page(bob_id)
    assert page.recent[0]["place"] == 3 and page.recent[0]["left"] is True
    assert page.name == "Bob"  # his seat holds the stand-in now; his name is kept
    wait = await server.stores.ratings.wait_before_queue(bob_id)
    assert 0 < wait <= server.config.rooms.wait_before_queue
    ann_id = player_id(device_for(server, "ann"))
    assert await server.stores.ratings.wait_before_queue(ann_id) == 0.0
    await ann.close()
    await bob.close()


async def test_gone_past_the_grace_is_leaving(server: CardroomServer) -> None:
    ann = await person(server, "ann", "10.0.0.1")
    bob = await person(server, "bob", "10.0.0.2")
    await ann.create("shithead", seats=2, name="Ann", rated=True)
    assert ann.room is not None
    await bob.join(ann.room, name="Bob")
    await ann.host("start")
    await bob.wait_state()
    await bob.close()  # gone: past the grace (0.3 s) a stand-in plays for him
    await play_until_over(ann)
    info = await shown(ann)
    assert info.ratings is not None
    bob_id = player_id(device_for(server, "bob"))
    page = await server.stores.ratings.page(bob_id)
    assert page.recent[0]["left"] is True and page.recent[0]["place"] == 2
    assert [r.delta > 0 for r in info.ratings] == [True, False]  # Ann won, whatever the cards
    assert await server.stores.ratings.wait_before_queue(bob_id) > 0
    await ann.close()


async def test_unrated_rooms_move_no_rating(server: CardroomServer) -> None:
    ann = await person(server, "ann", "10.0.0.1")
    bob = await person(server, "bob", "10.0.0.2")
    await ann.create("shithead", seats=2, name="Ann")  # not rated
    assert ann.room is not None
    await bob.join(ann.room, name="Bob")
    await ann.host("start")
    await asyncio.gather(play_until_over(ann), play_until_over(bob))
    await last_game(server, ann.room)
    await asyncio.sleep(0.1)
    assert ann.room_info is not None and ann.room_info.ratings is None
    page = await server.stores.ratings.page(player_id(device_for(server, "ann")))
    assert page.ratings == {} and page.recent == []
    await ann.close()
    await bob.close()


async def test_rated_needs_the_book_rules(server: CardroomServer) -> None:
    ann = await person(server, "ann", "10.0.0.1")
    for extra in ({"options": {"eight_skips": True}}, {"hints": True}):
        with pytest.raises(CardroomError) as refused:
            await ann.create("shithead", seats=2, name="Ann", rated=True, **extra)
        assert refused.value.code == "rated_not_allowed"
    with pytest.raises(CardroomError) as refused:
        await ann.create("sheepshead", seats=5, name="Ann", daily=True, rated=True)
    assert refused.value.code == "rated_not_allowed"
    # a house-rule room cannot be made rated by its host either
    await ann.create("shithead", seats=2, name="Ann", options={"eight_skips": True})
    with pytest.raises(CardroomError) as refused:
        await ann.host("rated")
    assert refused.value.code == "rated_not_allowed"
    assert ann.room_info is not None and not ann.room_info.rated
    await ann.close()


async def test_the_host_makes_a_room_rated_before_the_start_only(server: CardroomServer) -> None:
    ann = await person(server, "ann", "10.0.0.1")
    await ann.create("shithead", seats=2, name="Ann")
    await ann.host("rated")
    await asyncio.sleep(0.05)
    assert ann.room_info is not None and ann.room_info.rated
    await ann.host("unrated")
    await ann.host("rated")
    await ann.host("fill_bots")
    await ann.host("start")
    with pytest.raises(CardroomError) as refused:
        await ann.host("unrated")
    assert refused.value.code == "already_started"
    await play_until_over(ann)
    info = await shown(ann)
    assert info.rated and info.ratings is not None and len(info.ratings) == 2
    await ann.close()


async def test_two_identities_from_one_address_never_sit_at_one_rated_table(
    server: CardroomServer,
) -> None:
    ann = await person(server, "ann", "10.0.0.1")
    ann2 = await person(server, "ann-again", "10.0.0.1")  # a second identity, same address
    await ann.create("shithead", seats=3, name="Ann", rated=True)
    assert ann.room is not None
    with pytest.raises(CardroomError) as refused:
        await ann2.join(ann.room, name="Ann2")
    assert refused.value.code == "same_address"
    # an unrated room seats them; made rated, it is refused while both sit there
    await ann.leave()
    await ann.create("shithead", seats=3, name="Ann")
    assert ann.room is not None
    await ann2.join(ann.room, name="Ann2")
    with pytest.raises(CardroomError) as refused:
        await ann.host("rated")
    assert refused.value.code == "same_address"
    await ann.close()
    await ann2.close()


async def test_a_seat_resumed_from_a_seated_persons_address_is_refused(
    server: CardroomServer,
) -> None:
    ann = await person(server, "ann", "10.0.0.1")
    bob = await person(server, "bob", "10.0.0.2")
    await ann.create("shithead", seats=3, name="Ann", rated=True)
    assert ann.room is not None
    await bob.join(ann.room, name="Bob")
    room, token = ann.room, bob.token
    assert token is not None
    await bob.close()
    # Bob's identity and token, from Ann's address: two identities of one address at a rated
    # table, so the resume is refused and the seat stays as it was (held for Bob)
    bob_at_ann = await person(server, "bob", "10.0.0.1")
    with pytest.raises(CardroomError) as refused:
        await bob_at_ann.resume(room, token)
    assert refused.value.code == "same_address"
    assert ann.room_info is not None and ann.room_info.seats[1].name == "Bob"
    # from an address of his own the same token takes the seat back
    bob_again = await person(server, "bob", "10.0.0.3")
    joined = await bob_again.resume(room, token)
    assert joined.seat == 1
    # and an unrated room lets one address resume there (the rule is the rated tables')
    await ann.leave()
    await ann.create("shithead", seats=3, name="Ann")
    assert ann.room is not None
    await bob_again.leave()
    await bob_again.join(ann.room, name="Bob")
    token = bob_again.token
    assert token is not None
    await bob_again.close()
    assert (await bob_at_ann.resume(ann.room, token)).seat == 1
    for c in (ann, bob_at_ann):
        await c.close()


async def test_made_up_devices_do_not_rate() -> None:
    config = replace(rated_config(), devices_per_address=0)  # no identity is issued on hello
    async with CardroomServer(config) as server:
        ann = await person(server, "ann", "10.0.0.1")
        cy = await person(server, "cy", "10.0.0.3", device="cr1" + "x" * 40)  # made up
        await ann.create("shithead", seats=2, name="Ann", rated=True)
        assert ann.room is not None
        await cy.join(ann.room, name="Cy")
        await ann.host("start")
        await asyncio.gather(play_until_over(ann), play_until_over(cy))
        await last_game(server, ann.room)
        await asyncio.sleep(0.2)
        # Cy has no identity: only Ann would be rated, and one identity rates nothing
        assert ann.room_info is not None and ann.room_info.ratings is None
        page = await server.stores.ratings.page(player_id(device_for(server, "ann")))
        assert page.recent == []
        assert (await server.stores.ratings.page(player_id("cr1" + "x" * 40))).recent == []
        await ann.close()
        await cy.close()


async def test_a_sheepshead_match_is_rated_whole_by_its_units(server: CardroomServer) -> None:
    ann = await person(server, "ann", "10.0.0.1")
    await ann.create("sheepshead", seats=5, name="Ann", rated=True)
    await ann.host("fill_bots", level="basic")
    await ann.host("start")
    for hand in range(10):
        await play_until_over(ann)
        if hand < 9:
            assert ann.room_info is not None and ann.room_info.ratings is None  # not per hand
            await ann.host("next_game")
    info = await shown(ann)
    # rule SS-9.1: the match by its units; equal units tie
    totals = info.totals
    ranks = [1 + sum(1 for t in totals if t > mine) for mine in totals]
    model = PlackettLuce()
    want = model.rate([[model.rating()] for _ in range(5)], ranks=[float(r) for r in ranks])
    basic = model.rating()
    for seat in range(1, 5):  # one identity in four seats: four observations of one prior
        basic.mu += want[seat][0].mu - model.mu
        basic.sigma *= want[seat][0].sigma / model.sigma
    ann_id = player_id(device_for(server, "ann"))
    got = await server.stores.ratings.rating("sheepshead", ann_id)
    assert got.mu == pytest.approx(want[0][0].mu, abs=1e-9) and got.games == 1
    bot = await server.stores.ratings.rating("sheepshead", "bot:basic")
    assert bot.mu == pytest.approx(basic.mu) and bot.sigma == pytest.approx(basic.sigma)
    assert bot.games == 1
    assert (await server.stores.ratings.rating("shithead", ann_id)).games == 0
    await ann.close()


async def test_waiting_for_the_next_game_seats_one_identity_an_address(
    server: CardroomServer,
) -> None:
    ann = await person(server, "ann", "10.0.0.1")
    await ann.create("shithead", seats=4, name="Ann", rated=True)
    assert ann.room is not None
    await ann.host("fill_bots")
    await ann.host("start")
    # a friend arriving mid-game waits for the next one: not a second identity of Ann's address
    ann2 = await person(server, "ann-again", "10.0.0.1")
    with pytest.raises(CardroomError) as refused:
        await ann2.join(ann.room, name="Ann2", wait=True)
    assert refused.value.code == "same_address"
    # two waiting from one address: the first is seated when the game ends, the second not
    bob = await person(server, "bob", "10.0.0.2")
    bob2 = await person(server, "bob-again", "10.0.0.2")
    assert (await bob.join(ann.room, name="Bob", wait=True)).seat is None
    assert (await bob2.join(ann.room, name="Bob2", wait=True)).seat is None
    await play_until_over(ann)
    info = await shown(ann)
    assert [s.name for s in info.seats if s.kind == "human"] == ["Ann", "Bob"]
    for c in (ann, ann2, bob, bob2):
        await c.close()
