"""Names that imitate others: letters of another script that look like a seated player's name
(Cyrillic ``А`` for Latin ``A``) or a bot's, over a real socket. A name mixes no scripts
(bad_name), and a name that reads as one in the room, letter for look-alike letter, is
name_taken."""

from __future__ import annotations

import pytest

from clients import CardroomClient, CardroomError
from server.net.server import CardroomServer


async def joined_as(server: CardroomServer, room: str, name: str) -> str:
    """What a join under ``name`` gets: ``"joined"``, else its refusal's code."""
    guest = await CardroomClient.connect(server.url)
    try:
        await guest.join(room, name=name)
        return "joined"
    except CardroomError as exc:
        return exc.code
    finally:
        await guest.close()


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("\u0410nn", "bad_name"),  # Cyrillic A, Latin nn: two scripts
        ("\u0391nn", "bad_name"),  # Greek Alpha
        ("\u0410\u0420\u0415", "name_taken"),  # all Cyrillic, reads APE
        ("\u0412\u043e\u0442 2", "bad_name"),  # all Cyrillic "Bot 2"
    ],
)
async def test_a_look_alike_name_is_refused(server: CardroomServer, name: str, code: str) -> None:
    host = await CardroomClient.connect(server.url)
    await host.create("shithead", seats=5, name="Ann")
    assert host.room is not None
    assert await joined_as(server, host.room, "APE") == "joined"
    assert await joined_as(server, host.room, name) == code
    await host.close()


async def test_names_in_one_script_of_any_kind_are_still_names(server: CardroomServer) -> None:
    host = await CardroomClient.connect(server.url)
    await host.create("shithead", seats=5, name="Ann")
    assert host.room is not None
    for name in ("Жанна", "山田たろう", "José 2", "Ἀλέξης"):
        assert await joined_as(server, host.room, name) == "joined", name
    await host.close()
