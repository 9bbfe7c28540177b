"""The ladder bot of docs/clients.md (examples/ladder_bot.py) and `cardroom bot --ladder`, each
run as a program against a live server: rated ladder games back to back under a
bot identity kept between runs, listed on the ladder with the house anchors."""

from __future__ import annotations

import asyncio
import re
import sys
from pathlib import Path

import pytest

from server.net.server import CardroomServer
from server.store.ratings import pool
from tests.clients.conftest import finish, run_cardroom

ROOT = Path(__file__).resolve().parents[2]
LADDER_BOT = ROOT / "examples" / "ladder_bot.py"


@pytest.mark.slow
async def test_the_ladder_bot_plays_rated_games_under_one_identity(
    live: CardroomServer, tmp_path: Path
) -> None:
    async def run(games: int) -> str:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            str(LADDER_BOT),
            live.url,
            "shithead",
            str(games),
            cwd=tmp_path,  # where it keeps its identity
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        code, output = await finish(proc, timeout=240)
        assert code == 0, output
        return output

    first = await run(1)
    again = await run(1)
    player = re.findall(r"/p/([0-9a-f]{20})", first)
    assert player and re.findall(r"/p/([0-9a-f]{20})", again) == player  # one identity kept
    assert (tmp_path / "ladder_bot.identity").read_text().startswith("cb1")
    rated = await live.stores.ratings.rating(pool("shithead", True), player[0])
    assert rated.games == 2
    table = await live.stores.ratings.ladder("shithead", 10)
    assert {r.player for r in table.rows} >= {player[0], "bot:basic", "bot:strong"}


@pytest.mark.slow
async def test_cardroom_bot_plays_the_ladder(live: CardroomServer, tmp_path: Path) -> None:
    kept = tmp_path / "strong.id"
    args = ("bot", "--server", live.url, "--ladder", "shithead", "--level", "basic")
    proc = await run_cardroom(*args, "--games", "2", "--identity", str(kept))
    code, output = await finish(proc, timeout=240)
    assert code == 0, output
    assert "2 game(s) played on the shithead ladder" in output
    table = await live.stores.ratings.ladder("shithead", 10)
    remote = [r for r in table.rows if not r.player.startswith("bot:")]
    assert len(remote) == 1 and remote[0].rating.games == 2
    assert remote[0].name == "Remote basic \N{GEAR}"
    assert kept.read_text().startswith("cb1")
