"""The example bot of docs/clients.md, run as written (the file in examples/ is the docs' code
block, byte for byte) against a live server until its game ends."""

from __future__ import annotations

import asyncio
import re
import sys
from pathlib import Path

import pytest

from clients import CardroomClient
from server.net.server import CardroomServer
from tests.clients.conftest import finish
from tests.support.server import play_until_over

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "example_bot.py"


@pytest.mark.parametrize("name", ["example_bot.py", "ladder_bot.py"])
def test_the_docs_show_the_example_files_as_they_are(name: str) -> None:
    docs = (ROOT / "docs" / "clients.md").read_text()
    block = re.search(rf"<!-- {name} -->\n```python\n(.*?)```\n", docs, re.S)
    assert block is not None, f"docs/clients.md lost the code block of {name}"
    example = ROOT / "examples" / name
    assert block.group(1) == example.read_text()
    assert len(example.read_text().splitlines()) <= 40


@pytest.mark.slow
@pytest.mark.parametrize(("game", "seats"), [("shithead", 3), ("sheepshead", 5)])
async def test_the_example_bot_finishes_a_game_against_a_live_server(
    live: CardroomServer, game: str, seats: int
) -> None:
    async with CardroomClient.connect(live.url) as ann:
        await ann.create(game, seats=seats, name="Ann")  # type: ignore[arg-type]
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            str(EXAMPLE),
            live.url,
            ann.room or "",
            cwd=ROOT,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        try:
            info = await ann.wait_room(lambda r: r.seats[1].kind == "human", timeout=30)
            assert info.seats[1].name == "Example bot"
            await ann.host("start")  # the other seats get the server's bots
            final = await play_until_over(ann)
            code, output = await finish(proc)
        finally:  # a failed wait must not leave the bot running into the next test
            if proc.returncode is None:
                proc.kill()
                await proc.communicate()
        assert code == 0, output
        assert "sitting in seat 1 of room " + (ann.room or "") in output
        assert "game over:" in output
        outcome = final.get("outcome") or final.get("result")
        assert outcome is not None and str(outcome)[:20] in output
