"""The example bot on the bots' ladder: rated games back to back as a bot identity, kept in a
file so its rating carries over from run to run; its rating is on the server's /ladder.
    python examples/ladder_bot.py ws://127.0.0.1:8765/ shithead 10"""

import asyncio
import pathlib
import sys

from example_bot import choose

from clients import CardroomClient

IDENTITY = pathlib.Path("ladder_bot.identity")  # this bot's identity: keep it private


async def main(url: str, game: str, games: int, device: str | None) -> str | None:
    async with CardroomClient.connect(url, device=device, bot=True) as client:
        played = await client.play_ladder(game, "Example bot", choose, games=games)  # type: ignore[arg-type]
        player = client.welcome.player if client.welcome else "?"
        print(f"{played} rated game(s) played; this bot's page: /p/{player}")
        return client.device


if __name__ == "__main__":
    kept = IDENTITY.read_text().strip() if IDENTITY.exists() else None
    games = int(sys.argv[3]) if sys.argv[3:] else 5
    IDENTITY.write_text(asyncio.run(main(sys.argv[1], sys.argv[2], games, kept)) or "")
