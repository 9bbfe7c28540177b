"""``cardroom verify`` against histories a real server served over loopback HTTP: it checks
who dealt (the dealer is committed to with the seed), that a daily hand's commitment is the one
``/api/daily`` published for it, and proves nothing of an empty history."""

from __future__ import annotations

import asyncio
import datetime
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from protocol.cards import CODES
from server.net.server import CardroomServer
from server.rules.deal import DealProof
from server.rules.registry import game_spec
from server.tools import verify
from tests.support.results_api import client, get
from tests.support.server import make_config, play_until_over

MIDNIGHT = datetime.datetime(2026, 12, 2, tzinfo=datetime.UTC).timestamp()


async def finished_history(server: CardroomServer, daily: bool = False) -> tuple[str, str]:
    """A room with one finished game (a Shithead game against a bot, or a daily hand): its
    history URL and a seat token."""
    me = await client(server, "ann")
    if daily:
        await me.create("sheepshead", seats=5, name="Ann", daily=True)
    else:
        await me.create("shithead", seats=2, name="Ann")
    await me.host("start")
    await play_until_over(me)
    code, token = me.room or "", me.token or ""
    async with asyncio.timeout(10):
        while not await server.store.history(code):  # noqa: ASYNC110  # stored after the game
            await asyncio.sleep(0.05)
    await me.close()
    return f"http://127.0.0.1:{server.port}/api/rooms/{code}/history", token


def forged(item: dict[str, Any], seed: bytes) -> dict[str, Any]:
    """A daily hand as a server that chose its deal afterwards would serve it: a seed of its
    choice, the deck it gives, a proof consistent with itself (no actions: a server that dealt
    it so from the start has a log to match)."""
    dealer = item["deal"]["dealer"]
    proof = DealProof(seed, (), dealer)
    deck = [CODES[c] for c in proof.deck(game_spec(item["game"]).cards)]
    data = {**proof.to_json(), "daily": item["proof"]["daily"]}
    rest = {k: v for k, v in item.items() if k != "log"}
    return {**rest, "deal": {**item["deal"], "deck": deck}, "proof": data}


async def test_verify_checks_who_dealt(
    server: CardroomServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url, token = await finished_history(server)
    assert await asyncio.to_thread(verify.main, [url, f"--token={token}"]) == 0
    assert "game 0: deal verified" in capsys.readouterr().out
    status, history = await get(server, url.split(str(server.port), 1)[1], token)
    assert status == 200
    (game,) = history["games"]
    assert game["proof"]["dealer"] == game["deal"]["dealer"]
    # the same deck dealt from the other seat: each seat gets the other's cards
    other = 1 - game["deal"]["dealer"]
    swapped = {k: v for k, v in game.items() if k != "log"}
    swapped["deal"] = {**game["deal"], "dealer": other}
    path = tmp_path / "swapped.json"
    path.write_text(json.dumps({**history, "games": [swapped]}))
    assert verify.main([str(path)]) == 1
    assert "not dealt by the dealer committed to" in capsys.readouterr().out
    # the dealer changed in the proof too: the commitment shown before the deal says otherwise
    proof = {**game["proof"], "dealer": other}
    path.write_text(json.dumps({**history, "games": [{**swapped, "proof": proof}]}))
    assert verify.main([str(path)]) == 1
    assert "do not hash to the commitment" in capsys.readouterr().out


@pytest.mark.slow
async def test_verify_checks_a_daily_hand_against_the_published_commitments(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # rule SS-9.2: every player of the day gets the hands whose commitments were published
    now = [MIDNIGHT - 600]
    async with CardroomServer(make_config(), clock=lambda: now[0]) as server:
        url, token = await finished_history(server, daily=True)
        now[0] = MIDNIGHT + 1  # the day is over: its seeds are served
        assert await asyncio.to_thread(verify.main, [url, f"--token={token}"]) == 0
        assert "game 0: deal verified" in capsys.readouterr().out
        path = url.split(str(server.port), 1)[1]
        _, history = await get(server, path, token)
        _, published = await get(server, "/api/daily?date=2026-12-01")
        (hand,) = history["games"]
        day = tmp_path / "daily.json"
        day.write_text(json.dumps(published))
        # another deal of the server's choosing, consistent with itself
        item = forged(hand, hashlib.sha256(b"chosen afterwards").digest())
        file = tmp_path / "forged.json"
        file.write_text(json.dumps({**history, "games": [item]}))
        assert verify.main([str(file), "--daily", str(day)]) == 1
        assert "not the one published for hand 0 of 2026-12-01" in capsys.readouterr().out
        assert verify.main([str(file)]) == 1  # no commitments to check it against: not proven
        assert "give that day's published commitments" in capsys.readouterr().out
        genuine = tmp_path / "genuine.json"
        genuine.write_text(json.dumps(history))
        assert verify.main([str(genuine), "--daily", str(day)]) == 0


async def test_verify_proves_nothing_of_an_empty_history(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "empty.json"
    path.write_text(json.dumps({"room": "ABCDE", "open": False, "games": []}))
    assert verify.main([str(path)]) == 1
    assert "no finished game to verify" in capsys.readouterr().out
