"""A complete Cardroom bot: it joins a room by its code and plays a legal move on each of its
turns until the game ends.  python examples/example_bot.py ws://127.0.0.1:8765/ K7Q2M"""

import asyncio
import random
import sys
from typing import Any

from clients import CardroomClient, CardroomError


def choose(view: dict[str, Any]) -> dict[str, Any]:
    """A move for this view: any entry of view["legal"] may be sent back as it is."""
    if view["phase"] == "swap":  # Shithead: keep the face-up cards as dealt
        return {"kind": "ready"}
    if view.get("play_sets"):  # Shithead: any cards of one set go down together
        return {"kind": "play", "cards": max(view["play_sets"], key=len)}
    return random.choice(view["legal"])


async def main(url: str, room: str, name: str = "Example bot") -> None:
    async with CardroomClient.connect(url) as client:
        joined = await client.join(room, name)
        print(f"sitting in seat {joined.seat} of room {joined.room}")
        async for state in client.turns():  # each state in which this seat must act
            if state.view["phase"] == "over":
                print("game over:", state.view.get("outcome") or state.view.get("result"))
                return
            try:
                await client.act(choose(state.view), version=state.version)
            except CardroomError as exc:  # says what was refused and why
                print(exc)  # e.g. stale_version: another seat moved first; the next turn follows


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
