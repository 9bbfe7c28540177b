"""The terminal client's device token: made once, kept, and said with its hello."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from clients.terminal.app import CardroomApp
from clients.terminal.device import config_folder, device_token
from protocol.messages import Hello
from server.net.server import CardroomServer


def test_one_token_is_made_then_kept(tmp_path: Path) -> None:
    folder = tmp_path / "cardroom"
    token = device_token(folder)
    Hello(id=1, protocol=1, device=token)  # a token the protocol accepts
    assert device_token(folder) == token  # the next run says the same one
    mode = stat.S_IMODE((folder / "device").stat().st_mode)
    assert mode & 0o077 == 0  # nobody else on the machine reads it


def test_a_damaged_file_gets_a_fresh_token(tmp_path: Path) -> None:
    (tmp_path / "device").write_text("not a token!\n")
    token = device_token(tmp_path)
    assert token != "not a token!" and device_token(tmp_path) == token


def test_a_read_only_home_still_plays(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("")  # a file where the folder would go: nothing can be written
    first, second = device_token(blocked / "cardroom"), device_token(blocked / "cardroom")
    assert first != second  # a token for this run only


def test_the_folder_follows_xdg(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert config_folder() == tmp_path / "cardroom"


async def test_the_app_says_its_token_in_hello(live: CardroomServer, tmp_path: Path) -> None:
    # a made-up token ranks nothing (else one person could fill a board): the app keeps the one
    # the server issues in its place, and says that one from then on
    (tmp_path / "device").write_text("terminal-device-token-0002\n")
    app = CardroomApp(live.url, device=device_token(tmp_path))
    app.device_folder = tmp_path
    client = await app.connect(live.url)
    try:
        (conn,) = live.connected.sockets
        assert app.device is not None and live.devices.valid(app.device)
        assert live.connected.device_of(conn) == app.device
        assert device_token(tmp_path) == app.device  # kept for the next run
    finally:
        await client.close()
    again = CardroomApp(live.url, device=device_token(tmp_path))
    again.device_folder = tmp_path
    client = await again.connect(live.url)
    try:
        assert again.device == app.device  # the next run is the same player
    finally:
        await client.close()
