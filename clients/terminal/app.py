"""``cardroom play [ws://host:port] [CODE]``: the terminal client (Textual), for both games.

In a room opened with hints, ``?`` asks the strong bot what to do: its reason goes to the log,
its move is starred in the moves list (and the cursor put on it), its cards marked in the hand.

Two screens. :class:`StartScreen` asks for a name, the server and a room code, and creates,
joins or watches a room. :class:`RoomScreen` is the room, in an 80×24 terminal::

    header: room · game · status · whose turn · countdown · connection      (1 row)
    the lobby or the table                    | log of events and chat      (14 rows)
    your cards (←/→, Space selects, Enter plays)                            (2 rows)
    what you can do now: legal moves, host commands (↑/↓, Enter)           (5 rows)
    chat line                                                               (1 row)
    keys                                                                    (1 row)

One worker reads every server message (:meth:`CardroomClient.messages`) and redraws; when the
connection drops it reconnects and resumes the seat with its token
(:meth:`CardroomClient.reconnect`). Requests run in their own workers; a refusal is written to
the log in red, with what was refused and why.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import getpass
import math
import re
import sys
import time
from pathlib import Path
from typing import Any, ClassVar

from pydantic import ValidationError
from rich.text import Text
from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Button, Checkbox, Input, Label, OptionList, RichLog, Static
from textual.widgets.option_list import Option
from websockets.exceptions import InvalidHandshake, InvalidURI

from clients.client import (
    CardroomClient,
    CardroomError,
    ClientError,
    ConnectionLost,
    room_url,
)
from clients.terminal import tables
from clients.terminal.describe import chat_line, event_line, room_changes, seat_names
from clients.terminal.device import device_token, keep_device
from clients.terminal.house import RULES_HELP, parse_rules
from clients.terminal.moves import (
    LEAVE,
    HandChoice,
    HostCommand,
    Move,
    action_label,
    game_moves,
    host_moves,
)
from clients.terminal.widgets import HandBar
from protocol.errors import ErrorCode
from protocol.messages import (
    ActionModel,
    Advice,
    ChatLine,
    Closing,
    Error,
    GameName,
    Log,
    Queued,
    Room,
    RoomInfo,
    Seated,
    ServerMessage,
    State,
)

DEFAULT_URL = "ws://127.0.0.1:8765/"
#: Notices after which this connection no longer holds its seat.
DETACHING = (ErrorCode.REMOVED, ErrorCode.REPLACED)
#: the actions of Shithead's swap phase, where every seat acts at once (see send_action)
SWAP = ("ready", "swap")
_CODE = re.compile(r"^[A-Za-z0-9]{5}$")


def normalise_url(text: str) -> str:
    """``host:port`` → ``ws://host:port/``.

    >>> normalise_url("example.org:8765"), normalise_url("wss://example.org/")
    ('ws://example.org:8765/', 'wss://example.org/')
    """
    text = text.strip()
    if "://" not in text:
        text = f"ws://{text}"
    if text.count("/") < 3:
        text += "/"
    return text


class CardroomApp(App[None]):
    """The terminal client. ``url`` and ``room`` prefill the start screen."""

    TITLE = "Cardroom"
    CSS = """
    Screen { background: $background; }
    #top { height: 1; background: $primary-darken-2; color: $text; padding: 0 1; }
    #middle { height: 1fr; }
    #table { width: 1fr; padding: 0 1; }
    #log { width: 30; border-left: vkey $primary-darken-1; padding: 0 0 0 1;
           scrollbar-size-vertical: 1; overflow-x: hidden; }
    #moves { height: 5; border: none; padding: 0 1; background: $surface; }
    #moves:focus { background: $boost; }
    #chat { height: 1; border: none; padding: 0 1; }
    #chat:focus { border: none; background: $boost; }
    #keys { height: 1; color: $text-muted; background: $primary-darken-3; padding: 0 1; }
    StartScreen { align: center top; }
    #title { height: 3; content-align: center middle; text-style: bold; width: 100%; }
    .field { height: 1; margin: 0 2; }
    .field Label { width: 16; }
    .field Input { width: 1fr; height: 1; border: none; padding: 0 1; background: $surface; }
    .field Input:focus { background: $boost; }
    .buttons { height: 3; margin: 1 2 0 2; }
    #hints { height: 1; border: none; padding: 0; margin: 0 2 0 18; background: $background; }
    .buttons Button { width: 1fr; margin: 0 1 0 0; }
    #status { height: 3; margin: 1 2; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("ctrl+q", "quit", "Quit")]

    def __init__(
        self,
        url: str = DEFAULT_URL,
        room: str | None = None,
        name: str | None = None,
        device: str | None = None,
        rules: str = "",
        play_now: GameName | None = None,
    ) -> None:
        super().__init__()
        self.play_now = play_now  # Play now at once for this game (--play-now)
        self.rules = rules  # the house rules a room is created with (words, see house.py)
        self.device = device  # finished games are ranked under it (None: not ranked)
        self.device_folder: Path | None = None  # where it is kept (None: the config folder)
        self.url = normalise_url(url)
        self.room_code = room or ""
        self.player_name = name if name is not None else _default_name()
        self.client: CardroomClient | None = None

    def on_mount(self) -> None:
        self.push_screen(StartScreen())

    async def connect(self, url: str, room: str | None = None) -> CardroomClient:
        """The open client for ``url``, at the address of ``room`` (or ``/ws``: no room yet;
        a new connection if there is none, or it was lost)."""
        url = room_url(url, room)
        if self.client is not None and not self.client.closed and self.client.url == url:
            return self.client
        if self.client is not None:
            await self.client.close()
        self.client = await CardroomClient.connect(
            url, hello="cardroom-terminal", device=self.device, timeout=10
        )
        issued = self.client.device
        if self.device is not None and issued is not None and issued != self.device:
            self.device = issued  # the server's own identity: the only one that ranks
            keep_device(issued, self.device_folder)
        return self.client

    async def on_unmount(self) -> None:
        if self.client is not None:
            await self.client.close()

    @work(group="queue")
    async def cancel_queue(self) -> None:
        """Leave the Play now queue (a wait given up); nothing to do if not in it."""
        if self.client is not None and not self.client.closed:
            with contextlib.suppress(ClientError):
                await self.client.cancel_queue()


def _default_name() -> str:
    try:
        return getpass.getuser().capitalize()[:24]
    except (OSError, KeyError):
        return "Player"


# ----------------------------------------------------------------------------- start


class StartScreen(Screen[None]):
    """Name, server, room code; create a room of either game, join one or watch one."""

    @property
    def cardroom(self) -> CardroomApp:
        app = self.app
        assert isinstance(app, CardroomApp)
        return app

    def compose(self) -> ComposeResult:
        yield Static(
            Text.assemble(
                ("♠ ", "bold"), ("♥ ", "bold red"), "Cardroom", (" ♦", "bold red"), (" ♣", "bold")
            ),
            id="title",
        )
        yield from _field("Your name", Input(self.cardroom.player_name, id="name", max_length=24))
        yield from _field("Server", Input(self.cardroom.url, id="server"))
        yield from _field(
            "Room code", Input(self.cardroom.room_code, id="code", placeholder="to join or watch")
        )
        yield from _field("Shithead seats", Input("4", id="seats", placeholder="2 to 5"))
        yield from _field("Turn timer (s)", Input("", id="timer", placeholder="empty: none"))
        yield from _field(
            "House rules",
            Input(self.cardroom.rules, id="rules", placeholder="e.g. eight_skips, no_pick=doubler"),
        )
        yield Checkbox("Hints: players may ask the strong bot (not ranked)", id="hints")
        with Horizontal(classes="buttons"):
            yield Button("Create Shithead", id="create-shithead", variant="primary")
            yield Button("Create Sheepshead", id="create-sheepshead", variant="primary")
        with Horizontal(classes="buttons"):
            yield Button("Join", id="join", variant="success")
            yield Button("Watch", id="watch")
        with Horizontal(classes="buttons"):
            yield Button("Play now: Shithead", id="play-shithead", variant="warning")
            yield Button("Play now: Sheepshead", id="play-sheepshead", variant="warning")
        yield Static(
            Text(
                "Tab moves between fields, Enter presses a button. Sheepshead is five-handed; "
                "bots fill the seats nobody takes. House rules: words such as seven_lower or "
                "no_pick=doubler (cardroom play --help lists them).",
                style="dim",
            ),
            id="status",
        )

    def on_mount(self) -> None:
        if self.cardroom.play_now is not None:
            self.enter(f"play-{self.cardroom.play_now}")

    def _value(self, field_id: str) -> str:
        return self.query_one(f"#{field_id}", Input).value.strip()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.enter(event.button.id or "")

    def say(self, text: str, style: str = "red") -> None:
        self.query_one("#status", Static).update(Text(text, style=style))

    @work(exclusive=True, group="enter")
    async def enter(self, what: str) -> None:
        name, code = self._value("name"), self._value("code").upper()
        if not name:
            self.say("Type your name first.")
            return
        if what in ("join", "watch") and not _CODE.match(code):
            self.say("A room code is five letters or digits, e.g. K7Q2M.")
            return
        seats, timer = self._value("seats"), self._value("timer")
        if what == "create-shithead" and not (seats.isdigit() and 2 <= int(seats) <= 5):
            self.say("Shithead is played by 2 to 5 players.")
            return
        if timer and not (timer.isdigit() and 1 <= int(timer) <= 600):
            self.say("The turn timer is 1 to 600 seconds, or empty.")
            return
        url = normalise_url(self._value("server") or DEFAULT_URL)
        self.say(f"Connecting to {url} …", style="dim")
        try:
            # a room's own address to join or watch it (a proxy sends it to the room's process)
            room = code if what in ("join", "watch") else None
            client = await self.cardroom.connect(url, room)
            start = client.received
            if what.startswith("create-"):
                game: GameName = "shithead" if what == "create-shithead" else "sheepshead"
                count = int(seats) if game == "shithead" else 5
                hints = self.query_one("#hints", Checkbox).value
                turn_timer = int(timer) if timer else None
                rules = parse_rules(self._value("rules"))  # the server refuses unknown ones
                await client.create(
                    game, count, name, turn_timer=turn_timer, options=rules, hints=hints
                )
            elif what.startswith("play-"):
                played: GameName = "shithead" if what == "play-shithead" else "sheepshead"
                await self.wait_for_table(client, played, name)
            elif what == "join":
                await client.join(code, name)
            else:
                await client.watch(code)
        except CardroomError as exc:
            self.say(f"Refused: {exc.message} ({exc.code})")
            return
        except ValidationError as exc:
            self.say(f"Not accepted: {exc.errors()[0]['msg']}")
            return
        except (OSError, InvalidURI, InvalidHandshake, ClientError) as exc:
            self.say(f"Cannot reach {url}: {exc}")
            return
        self.cardroom.player_name, self.cardroom.url = name, url
        self.cardroom.push_screen(RoomScreen(client, start))

    async def wait_for_table(self, client: CardroomClient, game: GameName, name: str) -> None:
        """Play now: queue, show how many wait and for how long until a table is found, then
        take the seat. Another button (or leaving) cancels the wait."""
        status = await client.queue(game, name)
        try:
            while True:
                waited = status.waited
                self.say(
                    f"Play now ({game}): {status.waiting} waiting, you for {waited:.0f} s; "
                    f"bots fill the table in {status.fill_in:.0f} s. Any button cancels.",
                    style="bold",
                )
                msg = await client.wait_for(
                    lambda m: isinstance(m, Queued | Seated), timeout=math.inf
                )
                if isinstance(msg, Seated):
                    await client.take_seat(msg)
                    return
                assert isinstance(msg, Queued)
                status = msg
        except asyncio.CancelledError:
            self.cardroom.call_later(self.cardroom.cancel_queue)
            raise


def _field(label: str, widget: Input) -> ComposeResult:
    with Horizontal(classes="field"):
        yield Label(label)
        yield widget


# ----------------------------------------------------------------------------- room


class RoomScreen(Screen[None]):
    """The lobby, then the table: everything in one 80×24 screen."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "focus_moves", "Moves", show=False),
        Binding("question_mark", "hint", "Hint", show=False),
        Binding("l", "last_trick", "Last trick", show=False),
    ]

    def __init__(self, client: CardroomClient, start: int) -> None:
        super().__init__()
        self.client = client
        self.start = start  # the absolute index of the first message that concerns this room
        self.info: RoomInfo | None = None
        self.moves: list[Move] = []
        self.connection = "online"
        self.last_phase: str | None = None
        self.shown_version: int | None = None  # the version of the state on the screen
        self.hint: Advice | None = None  # the last hint, while its version is on the screen
        #: an action refused as stale in the swap phase, and the version it was sent against
        self.resend: tuple[ActionModel, int] | None = None
        self.last_trick = False  # Sheepshead: the last finished trick shown instead (key l)

    def compose(self) -> ComposeResult:
        yield Static(id="top")
        with Horizontal(id="middle"):
            yield Static(id="table")
            yield RichLog(id="log", wrap=True, markup=False, max_lines=500, min_width=20)
        yield HandBar(id="hand")
        yield OptionList(id="moves")
        yield Input(
            id="chat", placeholder="Say something to the table (Enter sends)", max_length=280
        )
        yield Static(
            Text("Tab: cards·moves·chat  ←→ Space Enter: cards  ↑↓ Enter: moves  ^Q quit"),
            id="keys",
        )

    def on_mount(self) -> None:
        self.read_messages()
        self.set_interval(0.5, self.draw_top)
        self.query_one("#moves", OptionList).focus()
        self.redraw()

    # ------------------------------------------------------------------ incoming

    @work(group="reader")
    async def read_messages(self) -> None:
        position = self.start
        while True:
            async for msg in self.client.messages(start=position):
                self.receive(msg)
            position = self.client.received
            if not await self.reconnect():
                return

    async def reconnect(self) -> bool:
        """Take the seat back after a dropped connection; ``False`` if it is gone for good."""
        self.connection = "reconnecting"
        self.log_line(Text("Connection lost: reconnecting…", style="bold red"))
        self.draw_top()
        while True:
            try:
                await self.client.reconnect(attempts=5, delay=0.25, max_delay=2.0)
            except CardroomError as exc:
                self.connection = "offline"
                self.log_line(Text(f"Could not take the seat back: {exc}", style="bold red"))
                self.draw_top()
                return False
            except ConnectionLost:
                continue  # the server is still away: keep trying
            except ClientError:
                return False
            self.connection = "online"
            back = "your seat is back" if self.client.seat is not None else "watching again"
            self.log_line(Text(f"Reconnected: {back}.", style="green"))
            self.draw_top()
            return True

    def receive(self, msg: ServerMessage) -> None:
        """One server message: log what happened, redraw."""
        match msg:
            case Room(room=info):
                for line in room_changes(self.info, info):
                    self.log_line(line)
                self.info = info
            case Log(entries=entries) if self.last_phase is None:
                # the table so far, from the server, when this screen has shown nothing yet
                # (after a reconnect the panel has it already)
                names = seat_names(self.info, self.client.seat)
                game = entries[0].game if entries else 0
                for entry in entries:
                    if entry.game != game:
                        self.log_line(Text("── a new deal ──", style="dim"))
                        game = entry.game
                    self.log_line(event_line(entry.event, names))
                return
            case State(events=events, view=view):
                names = seat_names(self.info, self.client.seat, view["players"])
                if self.last_phase == "over" and view["phase"] != "over":
                    self.log_line(Text("── a new deal ──", style="dim"))
                self.last_phase = view["phase"]
                for event in events:
                    self.log_line(event_line(event, names))
                self.retry_stale()
            case ChatLine():
                self.log_line(chat_line(msg))
            case Error(ref=None, code=code, message=message) if code in DETACHING:
                self.notify(f"{message} ({code})", severity="error", timeout=8)
                self.dismiss()  # the seat is no longer this connection's: back to the start
                return
            case Error(ref=None, code=code, message=message):
                self.log_line(Text(f"{message} ({code})", style="bold red"))
            case Closing(reason=reason):
                self.log_line(Text(f"The server is going away: {reason}", style="bold red"))
            case _:
                return  # replies are handled by the request that sent them
        self.redraw()

    # ------------------------------------------------------------------ drawing

    def log_line(self, line: Text) -> None:
        self.query_one("#log", RichLog).write(line)

    def redraw(self) -> None:
        self.shown_version = self.client.version
        if self.hint is not None and self.hint.version != self.client.version:
            self.hint = None  # a hint is for the state it was asked in
        self.draw_keys()
        self.draw_top()
        self.draw_table()
        self.draw_hand()
        self.draw_moves()

    def draw_top(self) -> None:
        info = self.info or self.client.room_info
        top = tables.top_line(
            info, self.client.state, self.client.seat, self.connection, time.time()
        )
        self.query_one("#top", Static).update(top)

    def draw_table(self) -> None:
        info, view, me = self.info or self.client.room_info, self.client.view, self.client.seat
        table = self.query_one("#table", Static)
        if view is None or (info is not None and info.status == "lobby"):
            table.update(tables.lobby(info, me) if info is not None else Text("Joining…"))
        elif view["game"] == "shithead":
            table.update(tables.shithead(view, info, me))
        else:
            hand = ""
            if info is not None and info.match_length:
                done = info.games_played + (1 if view["phase"] != "over" else 0)
                hand = f"Hand {max(1, done)}/{info.match_length} ·"
            table.update(tables.sheepshead(view, info, me, hand, self.last_trick))

    def draw_keys(self) -> None:
        info = self.info or self.client.room_info
        keys = "Tab: cards·moves·chat  ←→ Space Enter: cards  ↑↓ Enter: moves"
        if info is not None and info.hints and self.client.seat is not None:
            keys += "  ? hint"
        self.query_one("#keys", Static).update(Text(keys + "  ^Q quit"))

    def draw_hand(self) -> None:
        hand = self.query_one("#hand", HandBar)
        hand.hinted = set(self.hint.action.cards) if self.hint is not None else set()
        hand.set_choice(HandChoice.of(self.client.view))

    def draw_moves(self) -> None:
        info = self.info or self.client.room_info
        view = self.client.view
        moves = game_moves(view) if view is not None else []
        moves += host_moves(info, self.client.seat)
        if not moves:
            moves.append(Move(Text("Nothing to do now: waiting…", style="dim")))
        moves.append(LEAVE)
        hinted = next((i for i, m in enumerate(moves) if _is_hint(m, self.hint)), None)
        if hinted is not None:  # the hint's move, starred
            move = moves[hinted]
            label = Text.assemble(("★ ", "bold cyan"), move.label)
            moves[hinted] = Move(label, move.action, move.host, move.leave)
        elif self.hint is not None:  # a choice of cards the list spells otherwise: first
            label = Text.assemble(("★ ", "bold cyan"), action_label(self.hint.action))
            moves.insert(0, Move(label, action=self.hint.action))
            hinted = 0
        if [m.label.plain for m in moves] == [m.label.plain for m in self.moves]:
            return
        self.moves = moves
        options = self.query_one("#moves", OptionList)
        options.clear_options()
        options.add_options([Option(m.label, disabled=not _does(m)) for m in moves])
        if hinted is not None:
            options.highlighted = hinted
        else:
            options.highlighted = 0 if _does(moves[0]) else len(moves) - 1

    # ------------------------------------------------------------------ outgoing

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if 0 <= event.option_index < len(self.moves):
            move = self.moves[event.option_index]
            if move.action is not None:
                self.send_action(move.action)
            elif move.host is not None:
                self.send_host(move.host)
            elif move.leave:
                self.leave()

    def on_hand_bar_chosen(self, event: HandBar.Chosen) -> None:
        self.send_action(event.action)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "chat" and event.value.strip():
            self.send_chat(event.value.strip())
            event.input.value = ""

    def action_focus_moves(self) -> None:
        self.query_one("#moves", OptionList).focus()

    @work(group="requests")
    async def send_action(self, action: ActionModel, version: int | None = None) -> None:
        """Play ``action`` against ``version`` (default: the latest state's).

        In Shithead's swap phase every seat acts at once, so another seat's ``ready`` or swap
        can make the version stale while our choice still holds: then the same action is sent
        once more against the fresh state (which follows the refusal), if it is still legal
        there, as the web client does. Any other stale refusal asks the player to look again.
        """
        version = self.client.version if version is None else version
        try:
            await self.client.act(action, version)
        except CardroomError as exc:
            if exc.code != ErrorCode.STALE_VERSION or version is None or action.kind not in SWAP:
                self._refused(exc)
                return
            self.resend = (action, version)
            self.retry_stale()
        except ClientError as exc:
            self.log_line(Text(f"✗ {exc}", style="bold red"))

    def retry_stale(self) -> None:
        """Send the action refused as stale again, once a newer state is here (see above)."""
        if self.resend is None:
            return
        action, version = self.resend
        if self.client.version is None or self.client.version <= version:
            return  # the fresh state is still on its way: receive() calls again
        self.resend = None
        view = self.client.view
        legal = [ActionModel.model_validate(a) for a in view["legal"]] if view is not None else []
        if view is not None and view["phase"] == "swap" and any(_same(action, a) for a in legal):
            self.send_again(action)
        else:
            self.log_line(Text("The game moved on: look again and choose.", style="yellow"))

    @work(group="requests")
    async def send_again(self, action: ActionModel) -> None:
        await self._request(self.client.act(action))

    def action_last_trick(self) -> None:
        """Sheepshead: show the last finished trick in place of the one on the table, or back."""
        self.last_trick = not self.last_trick
        self.draw_table()

    def action_hint(self) -> None:
        self.ask_hint()

    @work(group="requests")
    async def ask_hint(self) -> None:
        """Ask for a hint: the reason goes to the log, the move is marked."""
        try:
            advice = await self.client.hint()
        except CardroomError as exc:
            self.log_line(Text(f"✗ no hint: {exc.message} ({exc.code})", style="bold red"))
            return
        except ClientError as exc:
            self.log_line(Text(f"✗ {exc}", style="bold red"))
            return
        if advice.version != self.client.version:
            return  # the game moved on meanwhile
        self.hint = advice
        self.log_line(Text.assemble(("★ Hint: ", "bold cyan"), (advice.reason.text, "cyan")))
        self.redraw()

    @work(group="requests")
    async def send_host(self, command: HostCommand) -> None:
        await self._request(self.client.host(command.op, command.seat, command.level))

    @work(group="requests")
    async def leave(self) -> None:
        await self._request(self.client.leave())
        self.dismiss()

    @work(group="requests")
    async def send_chat(self, text: str) -> None:
        await self._request(self.client.chat(text))

    async def _request(self, request: Any) -> None:
        try:
            await request
        except CardroomError as exc:
            self._refused(exc)
        except ClientError as exc:
            self.log_line(Text(f"✗ {exc}", style="bold red"))

    def _refused(self, exc: CardroomError) -> None:
        if exc.code == ErrorCode.STALE_VERSION:
            self.log_line(Text("The game moved on: look again and choose.", style="yellow"))
        else:
            self.log_line(Text(f"✗ {exc}", style="bold red"))


def _does(move: Move) -> bool:
    return move.action is not None or move.host is not None or move.leave


def _is_hint(move: Move, hint: Advice | None) -> bool:
    """Whether ``move`` plays the hinted action (cards in any order)."""
    if hint is None or move.action is None:
        return False
    return _same(move.action, hint.action)


def _same(a: ActionModel, b: ActionModel) -> bool:
    """Whether two actions are the same (cards in any order)."""
    return (a.kind, sorted(a.cards), a.slot) == (b.kind, sorted(b.cards), b.slot)


# ----------------------------------------------------------------------------- command


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="cardroom play",
        description="Play Shithead or Sheepshead on a Cardroom server, in the terminal.",
    )
    parser.add_argument(
        "where", nargs="*", metavar="[ws://HOST:PORT] [CODE]", help="the server and a room code"
    )
    parser.add_argument("--name", help="your name at the table")
    parser.add_argument(
        "--rules",
        default="",
        help=f"house rules for a room you create (the start screen's field): {RULES_HELP}",
    )
    parser.add_argument(
        "--play-now",
        choices=("shithead", "sheepshead"),
        help="wait for a table of this game with other people at once (bots fill it later)",
    )
    parser.add_argument(
        "--unranked",
        action="store_true",
        help="do not say this machine's device token: finished games go on no leaderboard",
    )
    args = parser.parse_args(argv)
    url, code = server_and_room(args.where)
    device = None if args.unranked else device_token()
    CardroomApp(url, code, args.name, device, rules=args.rules, play_now=args.play_now).run()
    return 0


def server_and_room(words: list[str]) -> tuple[str, str | None]:
    """The server URL and room code from the command's words, in either order, both optional.

    >>> server_and_room(["localhost:9000", "k7q2m"])
    ('ws://localhost:9000/', 'K7Q2M')
    >>> server_and_room(["K7Q2M"])
    ('ws://127.0.0.1:8765/', 'K7Q2M')
    """
    url, code = DEFAULT_URL, None
    for word in words:
        if _CODE.match(word):
            code = word.upper()
        else:
            url = normalise_url(word)
    return url, code


if __name__ == "__main__":
    sys.exit(main())
