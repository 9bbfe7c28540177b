"""The terminal client driven by Textual's pilot, by keyboard, against a real server on loopback.
Screenshots (SVG) of each table go to ``build/screenshots/terminal/`` (gitignored)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.widgets import Input, RichLog

from clients import CardroomClient
from clients.terminal.app import CardroomApp, RoomScreen
from clients.terminal.moves import HandChoice, Move
from clients.terminal.widgets import HandBar
from protocol.messages import ActionModel
from protocol.views import View
from server.net.server import CardroomServer
from tests.support.server import make_config

SHOTS = Path(__file__).resolve().parents[3] / "build" / "screenshots" / "terminal"
SIZE = (80, 24)


@pytest.fixture
async def live() -> AsyncIterator[CardroomServer]:
    async with CardroomServer(make_config()) as srv:
        yield srv


async def until(
    pilot: Pilot[None], ready: Callable[[], bool], what: str, timeout: float = 30
) -> None:
    """Let the app run until ``ready()`` holds (checked after each screen update)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not ready():
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {what}{_seen(pilot.app.screen)}")
        await pilot.pause(0.01)


def _seen(screen: object) -> str:
    """What a room screen showed when a wait ran out (a failure under load says what the
    client had, not only what it waited for)."""
    if not isinstance(screen, RoomScreen):
        return f" (on {type(screen).__name__})"
    client, view = screen.client, screen.client.view
    where = (view["phase"], view["to_act"], len(view["legal"])) if view is not None else None
    hand = screen.query_one("#hand", HandBar)
    return (
        f" (version {client.version}, shown {screen.shown_version}, phase/to act/legal {where},"
        f" focus {screen.focused!r}, hand {hand.choice.mode} at {hand.cursor},"
        f" moves {[m.label.plain for m in screen.moves]}, log …{log(screen)[-400:]})"
    )


async def type_text(pilot: Pilot[None], selector: str, text: str) -> None:
    """Click a field, erase it and type ``text`` key by key."""
    await pilot.click(selector)
    field = pilot.app.screen.query_one(selector, Input)
    await pilot.press("end", *["backspace"] * len(field.value))
    await pilot.press(*[{" ": "space"}.get(ch, ch) for ch in text])
    assert field.value == text


async def choose_move(pilot: Pilot[None], pick: Callable[[Move], bool], what: str) -> None:
    """Pick a line of the moves list with the keyboard: Escape (to the list), Home, ↓…, Enter."""
    screen = pilot.app.screen
    assert isinstance(screen, RoomScreen)
    await until(pilot, lambda: any(pick(m) for m in screen.moves), what)
    index = next(i for i, m in enumerate(screen.moves) if pick(m))
    await pilot.press("escape", "home", *["down"] * index, "enter")


async def entered(pilot: Pilot[None], app: CardroomApp) -> RoomScreen:
    """The room screen, once the app has pushed it: a moment after its client took the seat
    (a test that looked at once found the start screen still there, under load)."""
    await until(pilot, lambda: isinstance(app.screen, RoomScreen), "the room screen")
    return room_screen(app)


def room_screen(app: CardroomApp) -> RoomScreen:
    screen = app.screen
    assert isinstance(screen, RoomScreen), screen
    return screen


async def screenshot(pilot: Pilot[None], name: str) -> Path:
    """Save the screen as ``build/screenshots/NAME.svg`` once pending refreshes have run."""
    await pilot.pause()
    SHOTS.mkdir(parents=True, exist_ok=True)
    return Path(pilot.app.save_screenshot(filename=f"{name}.svg", path=str(SHOTS)))


def log(screen: RoomScreen) -> str:
    """The log panel's text, wrapped lines joined and spaces collapsed."""
    lines = screen.query_one("#log", RichLog).lines
    return " ".join(" ".join(line.text for line in lines).split())


def kind_is(kind: str) -> Callable[[Move], bool]:
    """A moves-list line playing an action of ``kind``."""
    return lambda move: move.action is not None and move.action.kind == kind


async def my_turn_shown(pilot: Pilot[None], screen: RoomScreen) -> View:
    """Wait until it is this client's turn (or its game is over) and the screen shows that
    state; return its view."""
    client = screen.client

    def ready() -> bool:
        return client.my_turn or (client.view is not None and client.view["phase"] == "over")

    await until(pilot, ready, "my turn")
    await until(pilot, lambda: screen.shown_version == client.version, "the screen")
    assert client.view is not None
    return client.view


class HandApp(App[None]):
    """The hand alone, set to ``choice`` and focused; the actions it chose in ``chosen``."""

    def __init__(self, choice: HandChoice) -> None:
        super().__init__()
        self.choice = choice
        self.chosen: list[ActionModel] = []

    def compose(self) -> ComposeResult:
        yield HandBar(id="hand")

    def on_mount(self) -> None:
        hand = self.query_one(HandBar)
        hand.set_choice(self.choice)
        hand.focus()

    def on_hand_bar_chosen(self, event: HandBar.Chosen) -> None:
        self.chosen.append(event.action)


def moved_on(client: CardroomClient, before: int | None) -> Callable[[], bool]:
    """Whether the client has seen a newer state than ``before``."""
    return lambda: client.version != before
