"""An async Python client for a Cardroom server: for tests, bots, scripts and the load tester.

It speaks only the wire format of :mod:`protocol.messages` over a WebSocket (never anything of
``server``). One reader task parses every frame the server sends, keeps the client's picture of
its room up to date (``room``, ``seat``, ``token``, ``version``, ``view``, ``room_info``), hands
replies to the requests waiting for them, and appends every message to a bounded log that
:meth:`CardroomClient.wait_for` and :meth:`CardroomClient.messages` read from::

    import asyncio
    from clients import CardroomClient, CardroomError

    async def main() -> None:
        async with CardroomClient.connect("ws://127.0.0.1:8765/") as host:   # sends hello
            await host.create("shithead", seats=3, name="Ann")
            await host.host("fill_bots", level="random")
            await host.host("start")
            async for state in host.turns():                      # each state I must act in
                if state.view["phase"] == "over":
                    break
                try:
                    await host.act(state.view["legal"][0])        # at the latest version
                except CardroomError as exc:                      # e.g. exc.code == "stale_version"
                    print(exc)                                    # the next turn follows

    asyncio.run(main())

``docs/clients.md`` is the guide; ``examples/example_bot.py`` a complete bot.

Fair deals. While a seated client's room shows a ``next_deal`` (docs/protocol.md, "Fair deals"),
the client sends it 32 random bytes of its own (``contribute``) before anything else it sends,
once per deal, and keeps them in ``contributions`` to check the history with later; set
``contribute = False`` to send none.

Reconnection. After :class:`ConnectionLost`, :meth:`CardroomClient.reconnect` opens a new
connection to the same URL and takes the seat back with its token (``resume``), or watches again.
With ``auto_resume=True`` (and ``urls``: other processes of the same service to try) the client
does so by itself when the server says ``closing`` or the connection drops (a rolling restart):
``resume`` on the open connection if the room only moved, else a new connection; a caller that
got :class:`ConnectionLost` meanwhile awaits :meth:`CardroomClient.recovered` and goes on.

Room addresses. Behind a proxy that routes by room (several processes, deploy/nginx.conf), a
client reaches a room's own process at ``/ws/CODE``: ``connect(url, room=CODE)`` opens that
address, a client connected to ``/ws`` that creates a room and is told ``moved`` reconnects to
its address and resumes there (inside :meth:`CardroomClient.create`), and :meth:`reconnect`
goes to the room's address. A URL with the bare ``/`` path stays as it is.

Reading position. The client reads its messages like a file: :meth:`~CardroomClient.wait_for`,
:meth:`~CardroomClient.wait_state` and friends return the first matching message *after the read
position* and move it past that message; every request moves it past its own reply. So
``await c.act(a)`` then ``await c.wait_state()`` returns the state that action produced, even
when it arrived before ``wait_state`` was called. :meth:`~CardroomClient.messages` iterates
every message from the read position on, with a cursor of its own.

Exceptions::

    ClientError                 root of everything this module raises
     ├── CardroomError          the server refused a request: code, message, ref
     ├── ClientStateError       a call the client's state does not allow (no room yet, closed)
     ├── UnexpectedReply        the server answered a request with the wrong message type
     ├── ReplyTimeout           no reply or matching message in time (also a TimeoutError)
     └── ConnectionLost         the connection closed while waiting (also a ConnectionError)

Bad input to a request method (a malformed room code, an unknown card) raises
:class:`pydantic.ValidationError` before anything is sent; use :meth:`CardroomClient.send_raw`
to send frames the protocol refuses.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import itertools
import logging
import math
import re
import secrets
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Generator, Mapping, Sequence
from types import TracebackType
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

from pydantic import BaseModel, ValidationError
from websockets.asyncio.client import ClientConnection
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from protocol.errors import ErrorCode
from protocol.messages import (
    PROTOCOL_VERSION,
    Ack,
    Act,
    ActionModel,
    Advice,
    BotLevel,
    Closing,
    Contribute,
    Create,
    Emote,
    Error,
    GameName,
    Hello,
    Hint,
    Host,
    HostOp,
    Join,
    Joined,
    Leaderboard,
    Leave,
    Moved,
    Ping,
    Pong,
    Queue,
    QueueCancel,
    Queued,
    React,
    Resume,
    Room,
    RoomInfo,
    Seated,
    ServerMessage,
    Standings,
    State,
    Watch,
    Welcome,
    dump,
    parse_server,
)
from protocol.messages import Chat as ChatRequest
from protocol.paths import WS_PATH, ws_path
from protocol.views import ActionWire, View

__all__ = [
    "CardroomClient",
    "CardroomError",
    "ClientError",
    "ClientStateError",
    "ConnectionLost",
    "ReplyTimeout",
    "UnexpectedReply",
    "action_text",
    "room_url",
    "to_action_model",
]

log = logging.getLogger(__name__)

R = TypeVar("R", bound=BaseModel)

#: Seconds a request waits for its reply, and ``wait_*`` for a match, unless told otherwise.
DEFAULT_TIMEOUT = 10.0
#: Messages kept for :meth:`CardroomClient.wait_for` and :meth:`CardroomClient.messages`.
DEFAULT_HISTORY = 2000
#: The end of a room address's path: ``/ws`` or ``/ws/CODE`` (protocol/paths.py).
_ROOM_TAIL = re.compile(rf"{WS_PATH}(/[A-Za-z0-9]{{5}})?/?$")
_CODE = re.compile(r"^[A-Z0-9]{5}$")
#: Errors without a ``ref`` after which the server no longer counts this connection in its room.
_DETACHING_CODES = frozenset({ErrorCode.REPLACED, ErrorCode.REMOVED})
#: Refusals of a reconnection's hello or resume that another try may not meet.
_TRY_AGAIN = frozenset({ErrorCode.SHUTTING_DOWN, ErrorCode.STORE_UNAVAILABLE})
#: How a client told ``closing`` (a planned restart) comes back: at once and then often, not
#: with a dropped connection's backoff (the other process is up, or this one is back soon).
PLANNED_RETRY: dict[str, Any] = {"attempts": 20, "delay": 0.05, "max_delay": 1.0}

#: An action as :meth:`CardroomClient.act` takes it: a model, its JSON form (an entry of
#: ``view["legal"]``, :class:`~protocol.views.ActionWire`) or its string form.
ActionLike = ActionModel | Mapping[str, object] | str


# ----------------------------------------------------------------------------- errors


class ClientError(Exception):
    """Root of every exception raised by :mod:`clients.client`."""


class CardroomError(ClientError):
    """The server refused a request with an ``error`` frame.

    Attributes:
        code: the stable machine-readable code, e.g. ``"stale_version"`` (what was refused, as
            a program reads it; docs/protocol.md lists every code).
        message: the server's human-readable explanation (why).
        ref: the ``id`` of the refused request (``None`` for an unsolicited error).
        request: the refused client message (``None`` for an unsolicited error), e.g. the
            :class:`~protocol.messages.Act` whose action the rules refused.

    >>> str(CardroomError("not_your_turn", "it is seat 2's turn", "c7",
    ...                   Act(id="c7", room="K7Q2M", version=4, action=ActionModel(kind="pickup"))))
    "act pickup refused: not_your_turn: it is seat 2's turn"
    """

    def __init__(
        self,
        code: str,
        message: str,
        ref: str | int | None = None,
        request: BaseModel | None = None,
    ) -> None:
        super().__init__(code, message, ref)
        self.code = code
        self.message = message
        self.ref = ref
        self.request = request

    @classmethod
    def from_message(cls, error: Error, request: BaseModel | None = None) -> CardroomError:
        return cls(error.code, error.message, error.ref, request)

    def __str__(self) -> str:
        if self.request is None:
            return f"{self.code}: {self.message}"
        return f"{_describe(self.request)} refused: {self.code}: {self.message}"


def _describe(request: BaseModel) -> str:
    """A short name for a request in messages: ``"act play 7D 7S"``, ``"host start"``."""
    kind = str(getattr(request, "type", type(request).__name__))
    if isinstance(request, Act):
        return f"{kind} {action_text(request.action)}"
    if isinstance(request, Host):
        return f"{kind} {request.op}"
    return kind


class ClientStateError(ClientError):
    """A call that the client's current state does not allow (no room joined, already closed)."""


class UnexpectedReply(ClientError):
    """The server answered a request with a message of the wrong type."""

    def __init__(self, request: str, reply: ServerMessage) -> None:
        super().__init__(request, reply)
        self.request = request
        self.reply = reply

    def __str__(self) -> str:
        return f"{self.request!r} was answered with {self.reply.type!r}: {dump(self.reply)}"


class ReplyTimeout(ClientError, TimeoutError):
    """No reply (or no matching message) arrived in time."""

    def __init__(self, what: str, timeout: float) -> None:
        super().__init__(what, timeout)
        self.what = what
        self.timeout = timeout

    def __str__(self) -> str:
        return f"no {self.what} within {self.timeout:g}s"


class ConnectionLost(ClientError, ConnectionError):
    """The connection closed before the reply or message arrived."""

    def __init__(self, reason: str = "the connection is closed") -> None:
        super().__init__(reason)
        self.reason = reason

    def __str__(self) -> str:
        return self.reason


# ----------------------------------------------------------------------------- the client


#: Deals whose contributed values a client keeps (``CardroomClient.contributions``).
MAX_CONTRIBUTIONS = 64


class CardroomClient:
    """One WebSocket connection to a Cardroom server, in at most one room at a time.

    Create it with :meth:`connect` (awaitable, or an async context manager that closes it).

    Attributes kept up to date from incoming messages:
        welcome: the server's ``welcome``, once :meth:`hello` has been answered.
        room: the code of the room joined (``None`` before a join and after a leave).
        seat: this connection's seat, ``None`` for a spectator or outside a room.
        token: the secret that resumes the seat (keep it to reconnect), ``None`` if not seated.
        room_info: the latest :class:`~protocol.messages.RoomInfo` of the room.
        state: the latest ``state`` message; ``version`` and ``view`` are its fields.
        closing: the reason of the server's ``closing`` message, if one came.
    """

    def __init__(
        self,
        ws: ClientConnection,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        history: int = DEFAULT_HISTORY,
        url: str | None = None,
        ws_options: Mapping[str, Any] | None = None,
        auto_resume: bool = False,
        urls: Sequence[str] = (),
    ) -> None:
        """Wrap an open connection and start reading it (prefer :meth:`connect`).

        ``url`` and ``ws_options`` are what :meth:`reconnect` opens a new connection with
        (``urls``: others it tries in turn); ``auto_resume``: come back by itself.
        """
        self.timeout = timeout
        self.url = url
        self.urls = [u for u in (url, *urls) if u is not None]
        self.auto_resume = auto_resume
        #: why the last recovery by itself failed (``None``: none failed)
        self.recovery_error: ClientError | None = None
        self._recovery: asyncio.Task[None] | None = None
        self._reconnecting = False  # a reconnect closes the old socket: no recovery for that
        self._settled = asyncio.Event()  # set while no reconnection is under way
        self._settled.set()
        # the tasks that send a reconnection's own hello and resume: other requests made
        # meanwhile wait for them (the server refuses anything before a hello: hello_required)
        self._handshake: set[asyncio.Task[Any]] = set()
        self._closing_sockets: set[asyncio.Task[None]] = set()  # old sockets closing
        self._label = "cardroom-python"
        self._device: str | None = None
        self._bot = False  # said in every hello: this client is a program (a bot identity)
        self._ws_options = dict(ws_options or {})
        self.welcome: Welcome | None = None
        self.room: str | None = None
        self.seat: int | None = None
        self.token: str | None = None
        self.room_info: RoomInfo | None = None
        self.state: State | None = None
        self.closing: str | None = None
        self._moved: str | None = None  # the room a ``moved`` said lives at its own address
        self.contribute = True  # send a random value for every deal we are seated at
        #: (room, game) -> the value this client contributed to that deal (the latest few)
        self.contributions: dict[tuple[str, int], bytes] = {}
        self._contributing: asyncio.Task[None] | None = None  # the last one being sent
        self._ws = ws
        self._ids = itertools.count(1)
        self._pending: dict[str, asyncio.Future[tuple[int, ServerMessage]]] = {}
        self._log: deque[ServerMessage] = deque(maxlen=max(1, history))
        self._base = 0  # absolute index of self._log[0]
        self._count = 0  # absolute index of the next message to arrive
        self._cursor = 0  # the shared read position (absolute index)
        self._arrived = asyncio.Event()  # replaced by a fresh one on every message
        self._closed = False
        self._lost: ConnectionLost | None = None
        self._behind = False  # an ack or a stale_version error announced a newer state
        self._reader = asyncio.get_running_loop().create_task(
            self._read(), name="cardroom-client-reader"
        )

    @classmethod
    def connect(
        cls,
        url: str,
        *,
        hello: bool | str = True,
        device: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        history: int = DEFAULT_HISTORY,
        room: str | None = None,
        auto_resume: bool = False,
        urls: Sequence[str] = (),
        bot: bool = False,
        **ws_options: Any,
    ) -> _Connect:
        """Open a connection to ``url`` (e.g. ``"ws://127.0.0.1:8765/"``), or to the address
        of ``room`` on that server (``ws://127.0.0.1:8765/ws/CODE``).

        Use ``client = await CardroomClient.connect(url)`` or
        ``async with CardroomClient.connect(url) as client:`` (closed on exit).

        Args:
            url: the server's WebSocket URL.
            hello: send ``hello`` and await the ``welcome`` before returning (a string: the
                ``client`` label to say it with; default ``"cardroom-python"``).
            device: the token said with ``hello`` (see :meth:`hello`); none by default.
            timeout: default seconds to wait for replies and ``wait_*`` matches.
            history: messages kept for ``wait_for`` and ``messages``.
            room: the code of the room this client is for (to join, watch or resume it).
            auto_resume: after ``closing`` or a dropped connection, take the seat back by
                itself (see :meth:`recovered`).
            urls: other URLs of the same service, tried in turn when reconnecting.
            bot: say in ``hello`` that this client is a program: its identity is a bot
                identity (the bots' ladder's; see :meth:`queue`).
            **ws_options: passed to :func:`websockets.asyncio.client.connect`
                (no proxy is used unless ``proxy`` is given).

        Raises:
            OSError, websockets.exceptions.InvalidHandshake: the connection failed.
            CardroomError: the server refused the ``hello``.
        """
        if room is not None:
            url = room_url(url, room)
        options = {"auto_resume": auto_resume, "urls": tuple(urls)}
        return _Connect(cls, url, hello, device, timeout, history, ws_options, options, bot)

    async def __aenter__(self) -> CardroomClient:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    def __repr__(self) -> str:
        where = "closed" if self._closed else f"room={self.room!r} seat={self.seat!r}"
        return f"<CardroomClient {where} version={self.version!r}>"

    # ------------------------------------------------------------------ derived state

    @property
    def version(self) -> int | None:
        """The version of the latest ``state`` (what :meth:`act` sends by default)."""
        return self.state.version if self.state is not None else None

    @property
    def view(self) -> View | None:
        """The latest view of the game from this seat (or as a spectator)."""
        return self.state.view if self.state is not None else None

    @property
    def legal(self) -> list[ActionWire]:
        """This seat's legal actions in the latest view, as action JSON (``[]`` if none)."""
        view = self.view
        return list(view["legal"]) if view is not None else []

    @property
    def legal_actions(self) -> list[ActionModel]:
        """:attr:`legal` as typed :class:`~protocol.messages.ActionModel` values."""
        return [ActionModel.model_validate(a) for a in self.legal]

    @property
    def play_sets(self) -> list[list[str]]:
        """Shithead: the cards that may be played together now, one list per rank (any
        non-empty subset of one list is a legal ``play``); ``[]`` when no cards can be played."""
        view = self.view
        if view is None or view["game"] != "shithead":
            return []
        return [list(s) for s in view["play_sets"]]

    @property
    def bury_from(self) -> list[str]:
        """Sheepshead: the cards the picker may bury now (any two distinct ones), else ``[]``."""
        view = self.view
        return list(view["bury_from"]) if view is not None and view["game"] == "sheepshead" else []

    @property
    def my_turn(self) -> bool:
        """Whether the latest view lists this seat among those to act, with a legal action."""
        view = self.view
        return (
            view is not None
            and self.seat is not None
            and self.seat in view["to_act"]
            and bool(view["legal"])
        )

    @property
    def closed(self) -> bool:
        """Whether the connection is closed (by :meth:`close` or by the server)."""
        return self._closed or self._lost is not None

    # ------------------------------------------------------------------ requests

    async def hello(
        self, client: str = "cardroom-python", device: str | None = None, *, bot: bool | None = None
    ) -> Welcome:
        """Open the session; the server answers ``welcome``. ``device``: the identity this
        client keeps, under which its player's finished games are ranked (optional). Only one
        the server issued counts: its ``welcome`` gives one otherwise (see :attr:`device`).
        ``bot``: this client is a program: the identity is a bot identity, the one that plays
        the bots' ladder (:meth:`queue` with ``ladder=True``); default: as said before.

        Raises:
            CardroomError: e.g. an unsupported protocol version.
        """
        self._label, self._device = client, device  # said again by reconnect()
        if bot is not None:
            self._bot = bot
        msg = Hello(
            id=self._next_id(),
            protocol=PROTOCOL_VERSION,
            client=client,
            device=device,
            bot=self._bot,
        )
        welcome = await self.request(msg, Welcome)
        if welcome.device is not None:  # the identity the server issued: said from now on
            self._device = welcome.device
        return welcome

    @property
    def device(self) -> str | None:
        """The device identity said in ``hello`` (the one the server issued, once welcomed)."""
        return self._device

    async def leaderboard(
        self, board: str = "daily", limit: int = 20, *, timeout: float | None = None
    ) -> Standings:
        """A leaderboard (``daily``, ``daily:YYYY-MM-DD``, ``sheepshead``, ``shithead``).

        Raises:
            CardroomError: ``bad_board``, or ``store_unavailable``.
        """
        msg = Leaderboard(id=self._next_id(), board=board, limit=limit)
        return await self.request(msg, Standings, timeout=timeout)

    async def create(
        self,
        game: GameName,
        seats: int,
        name: str,
        turn_timer: int | None = None,
        options: dict[str, Any] | None = None,
        daily: bool = False,
        *,
        hints: bool = False,
        time_bank: int | None = None,
        rated: bool = False,
        timeout: float | None = None,
    ) -> Joined:
        """Open a room and take seat 0 as its host; then ``room`` and ``token`` are set.
        ``hints``: seated players may ask for hints (:meth:`hint`); such a room's results go
        to no leaderboard, and a daily room cannot have them. ``time_bank``: seconds of reserve
        each seat spends once a turn runs over ``turn_timer``.
        to no leaderboard, and a daily room cannot have them. ``rated``: its games move the
        players' ratings (book rules only; the host may change it before the start with
        ``host("rated")`` or ``host("unrated")``).

        Told ``moved`` (several processes behind a proxy), the client reconnects to the room's
        address and resumes its seat there; the ``joined`` returned is the resume's.

        Raises:
            CardroomError: e.g. ``bad_seats``, ``already_in_room``, ``hints_not_allowed``.
            ConnectionLost: moved, and the room's address could not be reached.
        """
        msg = Create(
            id=self._next_id(),
            game=game,
            seats=seats,
            name=name,
            turn_timer=turn_timer,
            options=options or {},  # type: ignore[arg-type]  # validated into the game's options
            daily=daily,
            hints=hints,
            time_bank=time_bank,
            rated=rated,
        )
        joined = await self.request(msg, Joined, timeout=timeout)
        if self._moved != joined.room or self.url is None:
            return joined
        return await self.reconnect() or joined  # to the process at the room's address

    async def join(
        self,
        room: str,
        name: str,
        seat: int | None = None,
        *,
        wait: bool = False,
        timeout: float | None = None,
    ) -> Joined:
        """Take a free seat (any, or ``seat``); a ``room`` and, once started, a ``state`` follow.
        With ``wait``, a game being played is watched and a seat taken when it ends (the reply
        says ``waiting``; a second ``joined`` gives the seat and :attr:`seat` follows it).

        Raises:
            CardroomError: e.g. ``room_not_found``, ``room_full``, ``seat_taken``.
        """
        msg = Join(id=self._next_id(), room=room, name=name, seat=seat, wait=wait)
        return await self.request(msg, Joined, timeout=timeout)

    async def queue(
        self, game: GameName, name: str, *, ladder: bool = False, timeout: float | None = None
    ) -> Queued:
        """Play now: wait for a table of ``game`` (the first ``queued``; more follow on every
        change and every few seconds). Then :meth:`take_seat` waits for the table.
        ``ladder``: the bots' ladder's line instead (a bot identity only: connect with
        ``bot=True``); its tables are rated on the ladder (``/ladder``).

        Raises:
            CardroomError: e.g. ``already_queued``, ``already_in_room``, ``queue_too_often``,
                ``queue_full``, ``queue_penalty``, ``ladder_bots_only``, ``bots_to_ladder``.
        """
        msg = Queue(id=self._next_id(), game=game, name=name, ladder=ladder)
        return await self.request(msg, Queued, timeout=timeout)

    async def cancel_queue(self, *, timeout: float | None = None) -> Ack:
        """Leave the Play now queue.

        Raises:
            CardroomError: ``not_queued`` (never queued, or seated already).
        """
        return await self.request(QueueCancel(id=self._next_id()), Ack, timeout=timeout)

    async def take_seat(
        self, seated: Seated | None = None, *, timeout: float | None = None
    ) -> Joined:
        """After :meth:`queue`: wait for ``seated`` (``timeout``: seconds, default the
        client's; or the ``seated`` given, read already) and take that seat: resumed at the
        room's own address (a ``/ws`` URL: the process a proxy routes the room to), else on
        this connection. For example (against a running server)::

            async with CardroomClient.connect("ws://127.0.0.1:8765/ws") as me:
                await me.queue("shithead", "Ann")
                joined = await me.take_seat(timeout=60)
                print(joined.room, joined.seat)
        """
        if seated is None:
            got = await self.wait_for(lambda msg: isinstance(msg, Seated), timeout)
            assert isinstance(got, Seated)
            seated = got
        if self.url is not None and follows_rooms(self.url):
            self.room, self.token = seated.room, seated.token
            joined = await self.reconnect()
            assert joined is not None
            return joined
        return await self.resume(seated.room, seated.token, timeout=timeout)

    async def play_ladder(
        self,
        game: GameName,
        name: str,
        choose: Callable[[View], ActionLike | Awaitable[ActionLike]],
        *,
        games: int = 1,
        seat_timeout: float | None = None,
    ) -> int:
        """The bots' ladder, ``games`` rated games (a Sheepshead match each) back to back:
        queue on the ladder, take the seat, play every turn with ``choose(view)`` (a function
        or a coroutine function; any entry of ``view["legal"]`` will do), leave once it is
        rated, and queue again. The connection must be a bot's (``connect(..., bot=True)``).
        Returns the games played. For example (against a running server)::

            async with CardroomClient.connect("ws://127.0.0.1:8765/", bot=True) as me:
                await me.play_ladder("shithead", "Robin", lambda v: v["legal"][0], games=3)

        Raises:
            CardroomError: the queue refused (``ladder_bots_only``, ``queue_too_often``...)
                or the seat was lost (``removed``, ``replaced``).
        """
        played = 0
        while played < games:
            await self.queue(game, name, ladder=True)
            await self.take_seat(timeout=math.inf if seat_timeout is None else seat_timeout)
            while True:
                async for state in self.turns():
                    if state.view["phase"] == "over":
                        break
                    action = choose(state.view)
                    if inspect.isawaitable(action):
                        action = await action
                    try:
                        await self.act(action, version=state.version)
                    except CardroomError as exc:  # e.g. the turn timer played it first
                        log.info("ladder: %s", exc)
                if game == "shithead" or not await self.next_deal():
                    break  # a Shithead game is rated alone; a Sheepshead match whole
            try:
                await self.leave()
            except CardroomError:  # the room closed first: nothing to leave
                self._forget_room()
            played += 1
        return played

    async def next_deal(self, timeout: float = math.inf) -> bool:
        """After a game's ``over``: wait for the room's next deal (``True``), or for the room
        to be over or closed (``False``: its match played out)."""

        def news(msg: ServerMessage) -> bool:
            if isinstance(msg, Room):
                return msg.room.status in ("over", "closed")
            return isinstance(msg, State) and msg.view["phase"] != "over"

        if self.room_info is not None and self.room_info.status in ("over", "closed"):
            return False
        msg = await self.wait_for(news, timeout=timeout)
        return isinstance(msg, State)

    async def watch(self, room: str, *, timeout: float | None = None) -> Joined:
        """Watch a room as a spectator (``seat`` is ``None``; views hide every hand)."""
        return await self.request(Watch(id=self._next_id(), room=room), Joined, timeout=timeout)

    async def resume(self, room: str, token: str, *, timeout: float | None = None) -> Joined:
        """Take back a held seat with its token, e.g. after reconnecting.

        Raises:
            CardroomError: ``bad_token`` if the token holds no seat in that room.
        """
        msg = Resume(id=self._next_id(), room=room, token=token)
        return await self.request(msg, Joined, timeout=timeout)

    async def act(
        self,
        action: ActionLike,
        version: int | None = None,
        *,
        room: str | None = None,
        timeout: float | None = None,
    ) -> Ack:
        """Play ``action`` against ``version`` (default: the latest state's version).

        ``action`` is an :class:`~protocol.messages.ActionModel`, its JSON form
        (``{"kind": "play", "cards": ["7D"]}``, e.g. an entry of ``view["legal"]``) or its
        string form (``"play 7D 7S"``, ``"flip #1"``). The ``ack`` carries the new version; the
        ``state`` messages follow it.

        Raises:
            CardroomError: the rules or the room refused it (``not_your_turn``, ...); on
                ``stale_version`` a fresh ``state`` follows the error.
            ClientStateError: no room, or no state yet and no ``version`` given.
        """
        if version is None:
            version = self.version
            if version is None:
                raise ClientStateError("no state received yet: pass version=")
        msg = Act(
            id=self._next_id(),
            room=self._room(room),
            version=version,
            action=to_action_model(action),
        )
        return await self.request(msg, Ack, timeout=timeout)

    async def hint(self, *, room: str | None = None, timeout: float | None = None) -> Advice:
        """Ask what the strong bot would do in your seat now (a room opened with hints, when
        it is your decision). The answer's ``action`` can be passed to :meth:`act` as it is
        (``advice.action``); ``advice.reason.text`` says why, ``advice.version`` which state it
        is for. Nothing in the game changes.

        Raises:
            CardroomError: ``hints_off``, ``not_seated``, ``not_your_turn``, ``not_started``,
                or ``hint_pending`` (one hint at a time per seat).
        """
        msg = Hint(id=self._next_id(), room=self._room(room))
        return await self.request(msg, Advice, timeout=timeout)

    async def host(
        self,
        op: HostOp,
        seat: int | None = None,
        level: BotLevel | None = None,
        *,
        spectator: int | None = None,
        to: str | None = None,
        room: str | None = None,
        timeout: float | None = None,
    ) -> Ack:
        """A host command: ``add_bot``, ``remove_bot``, ``set_bot_level``, ``fill_bots``,
        ``start``, ``lock``, ``unlock``, ``rated``, ``unrated``, ``kick``, ``stand_in``,
        ``next_game``, ``mute`` or ``unmute`` (a ``seat``, or a ``spectator`` by the number their
        chat lines carry), or ``again`` after the match (``to``: the room where the table plays
        again).

        Raises:
            CardroomError: e.g. ``not_host``, ``seat_taken``, ``not_between_games``.
        """
        msg = Host(
            id=self._next_id(),
            room=self._room(room),
            op=op,
            seat=seat,
            level=level,
            spectator=spectator,
            to=to,
        )
        return await self.request(msg, Ack, timeout=timeout)

    async def chat(
        self, text: str, *, room: str | None = None, timeout: float | None = None
    ) -> Ack:
        """Say something to the room (at most 280 characters); a ``chat`` line goes to all."""
        msg = ChatRequest(id=self._next_id(), room=self._room(room), text=text)
        return await self.request(msg, Ack, timeout=timeout)

    async def react(
        self, emote: Emote, *, room: str | None = None, timeout: float | None = None
    ) -> Ack:
        """A quick reaction from your seat (``nice``, ``laugh``, ``wow``, ``oops``, ``sad``,
        ``gg``); a ``reaction`` goes to everyone in the room."""
        msg = React(id=self._next_id(), room=self._room(room), emote=emote)
        return await self.request(msg, Ack, timeout=timeout)

    async def leave(self, *, room: str | None = None, timeout: float | None = None) -> Ack:
        """Leave the room; a seat left during a game goes to a bot. Clears the room state."""
        msg = Leave(id=self._next_id(), room=self._room(room))
        ack = await self.request(msg, Ack, timeout=timeout)
        if msg.room == self.room:
            self._forget_room()
        return ack

    async def ping(self, *, timeout: float | None = None) -> Pong:
        """Ask for a ``pong`` (an application-level round trip)."""
        return await self.request(Ping(id=self._next_id()), Pong, timeout=timeout)

    async def request(
        self, message: BaseModel, reply: type[R], *, timeout: float | None = None
    ) -> R:
        """Send a client message with an ``id`` and await the reply whose ``ref`` matches it.

        The read position moves past the reply (or the error).

        Raises:
            CardroomError: the server answered with an ``error``.
            UnexpectedReply: the reply is not a ``reply``.
            ReplyTimeout: no reply in time.
            ConnectionLost: the connection closed first.
        """
        ref = getattr(message, "id", None)
        if ref is None:
            raise TypeError(f"{type(message).__name__} has no id: use send()")
        key = str(ref)
        if key in self._pending:
            raise ClientStateError(f"a request with id {key!r} is already waiting")
        await self._after_reconnect()
        self._check_open()
        future: asyncio.Future[tuple[int, ServerMessage]] = (
            asyncio.get_running_loop().create_future()
        )
        self._pending[key] = future
        wait = self.timeout if timeout is None else timeout
        try:
            await self._send_text(dump(message))
            try:
                index, answer = await asyncio.wait_for(future, wait)
            except TimeoutError:
                kind = getattr(message, "type", type(message).__name__)
                raise ReplyTimeout(f"reply to {kind} {key!r}", wait) from None
        finally:
            self._pending.pop(key, None)
            if future.done() and not future.cancelled():
                future.exception()  # failed while the send did: the send's error is raised
        self._cursor = max(self._cursor, index + 1)
        if isinstance(answer, Error):
            raise CardroomError.from_message(answer, message)
        if not isinstance(answer, reply):
            raise UnexpectedReply(getattr(message, "type", "?"), answer)
        return answer

    async def send(self, message: BaseModel) -> None:
        """Send one client message without waiting for anything."""
        await self._send_text(dump(message))

    async def send_raw(self, text: str | bytes) -> None:
        """Send one frame exactly as given (text for ``str``, binary for ``bytes``), e.g. garbage
        to test the server's refusals; read the answer with :meth:`wait_for`."""
        self._check_open()
        try:
            await self._ws.send(text)
        except ConnectionClosed as exc:
            raise ConnectionLost(f"the connection closed: {exc}") from None

    # ------------------------------------------------------------------ reading

    async def wait_for(
        self,
        predicate: Callable[[ServerMessage], bool] | None = None,
        timeout: float | None = None,
    ) -> ServerMessage:
        """The first message after the read position that matches ``predicate`` (any message if
        ``None``), waiting up to ``timeout`` seconds for it; the read position moves past it.

        Raises:
            ReplyTimeout: nothing matched in time (the read position is unchanged).
            ConnectionLost: the connection closed and no remaining message matched.
        """
        wait = self.timeout if timeout is None else timeout
        try:
            async with asyncio.timeout(None if math.isinf(wait) else wait):
                index, msg = await self._next_match(self._cursor, predicate)
        except TimeoutError:
            raise ReplyTimeout("matching message", wait) from None
        self._cursor = index + 1
        return msg

    async def wait_state(
        self, predicate: Callable[[State], bool] | None = None, timeout: float | None = None
    ) -> State:
        """The next ``state`` after the read position (matching ``predicate`` if given)."""

        def match(msg: ServerMessage) -> bool:
            return isinstance(msg, State) and (predicate is None or predicate(msg))

        msg = await self.wait_for(match, timeout)
        assert isinstance(msg, State)
        return msg

    async def wait_room(
        self, predicate: Callable[[RoomInfo], bool] | None = None, timeout: float | None = None
    ) -> RoomInfo:
        """The room info of the next ``room`` message (matching ``predicate`` if given)."""

        def match(msg: ServerMessage) -> bool:
            return isinstance(msg, Room) and (predicate is None or predicate(msg.room))

        msg = await self.wait_for(match, timeout)
        assert isinstance(msg, Room)
        return msg.room

    async def wait_turn(self, timeout: float | None = None) -> State:
        """The latest state if this seat must act in it (or its game is over: ``phase`` is
        ``"over"``), else the next state that says so.

        The latest state is not used while a newer one is known to be on its way (after an
        ``ack`` with a newer version, or a ``stale_version`` error), so a loop of ``wait_turn``
        and :meth:`act` never acts twice on the same state.

        Raises:
            CardroomError: the seat was lost while waiting (``removed`` by the host, or
                ``replaced`` by a resume from another connection).
            ReplyTimeout, ConnectionLost: as :meth:`wait_for`.
        """
        return await self._wait_turn(timeout, None)

    async def _wait_turn(self, timeout: float | None, skip: State | None) -> State:
        def due(state: State) -> bool:
            if state is skip:
                return False
            if self.version is not None and state.version < self.version:
                return False  # superseded by a state already received
            view = state.view
            over = view["phase"] == "over"
            mine = self.seat is not None and self.seat in view["to_act"]
            return over or (mine and bool(view["legal"]))

        def match(msg: ServerMessage) -> bool:
            if isinstance(msg, Error):
                return msg.ref is None and msg.code in _DETACHING_CODES
            return isinstance(msg, State) and due(msg)

        if self.state is not None and not self._behind and due(self.state):
            return self.state
        msg = await self.wait_for(match, timeout)
        if isinstance(msg, Error):
            raise CardroomError.from_message(msg)
        assert isinstance(msg, State)
        return msg

    async def states(self) -> AsyncIterator[State]:
        """Every ``state`` from the read position on (its own cursor, like :meth:`messages`);
        ends when the connection closes."""
        async for msg in self.messages():
            if isinstance(msg, State):
                yield msg

    async def turns(self, timeout: float | None = None) -> AsyncIterator[State]:
        """The states in which this seat must act, one per turn, ending after the state whose
        ``phase`` is ``"over"`` (which is yielded too). Act on each before asking for the next:
        a state is never yielded twice, so a refused action (say ``stale_version``) simply
        leads to the next fresh state. ``timeout`` bounds each wait (default: none).

        Raises:
            CardroomError: the seat was lost (``removed``, ``replaced``).
            ConnectionLost: the connection closed (call :meth:`reconnect`, then iterate again).
        """
        last: State | None = None
        while True:
            last = await self._wait_turn(math.inf if timeout is None else timeout, last)
            yield last
            if last.view["phase"] == "over":
                return

    async def messages(self, start: int | None = None) -> AsyncIterator[ServerMessage]:
        """Every message from the read position (or from the absolute index ``start``, see
        :attr:`received`) on, with its own cursor (the shared read position does not move);
        ends once the connection is closed and all were yielded."""
        position = self._cursor if start is None else start
        while True:
            try:
                index, msg = await self._next_match(position, None)
            except ConnectionLost:
                return
            position = index + 1
            yield msg

    @property
    def received(self) -> int:
        """How many messages have arrived on this client (over every connection it had): the
        absolute index the next one will have."""
        return self._count

    @property
    def history(self) -> list[ServerMessage]:
        """The messages still kept, oldest first (at most ``history`` of them)."""
        return list(self._log)

    # ------------------------------------------------------------------ closing

    async def close(self) -> None:
        """Close the connection and stop the reader; requests still waiting get
        :class:`ConnectionLost`. Safe to call twice."""
        if self._closed:
            return
        self._closed = True
        if self._contributing is not None:
            self._contributing.cancel()
        if self._recovery is not None:
            self._recovery.cancel()
        await self._stop_reading()
        self._fail_pending(ConnectionLost("the client closed the connection"))

    async def reconnect(
        self, *, attempts: int = 10, delay: float = 0.25, max_delay: float = 4.0
    ) -> Joined | None:
        """Open a new connection to the same server (after this one was lost, or to replace
        it), say ``hello`` and take the room back: ``resume`` with the seat's token, or
        ``watch`` again as a spectator. A snapshot ``state`` follows the ``joined`` once a game
        has started. The history and its read positions carry on across connections.

        Tries ``attempts`` times, each of :attr:`urls` in turn (the one that answers is
        :attr:`url` from then on), waiting ``delay`` seconds after the first round failed and
        twice as long after each next one (at most ``max_delay``).

        Returns:
            the ``joined`` reply, or ``None`` if the client was in no room.

        Raises:
            ClientStateError: :meth:`close` was called, or the client has no URL.
            CardroomError: the server refused to give the room back (``bad_token``: the seat
                is no longer this client's, e.g. after a kick; ``room_not_found``).
            ConnectionLost: every attempt failed.
        """
        if self._closed:
            raise ClientStateError("the client is closed")
        if self.url is None:
            raise ClientStateError("no URL to reconnect to: use CardroomClient.connect(url)")
        self._reconnecting = True
        self._settled.clear()
        me = asyncio.current_task()
        if me is not None:
            self._handshake.add(me)
        try:
            return await self._reconnect(attempts, delay, max_delay)
        finally:
            if me is not None:
                self._handshake.discard(me)
            self._reconnecting = False
            self._settled.set()

    async def _reconnect(self, attempts: int, delay: float, max_delay: float) -> Joined | None:
        assert self.url is not None
        room, token = self.room, self.token
        failure: BaseException | None = None
        urls = [  # to the room's own address on each
            room_url(u, room) if room is not None and follows_rooms(u) else u
            for u in (self.urls or [self.url])
        ]
        if self.urls:
            self.urls = urls  # in the form tried, so the turn order below finds self.url
        for attempt in range(max(1, attempts)):
            rounds, turn = divmod(attempt, len(urls))
            if rounds and not turn:
                await asyncio.sleep(min(delay * 2 ** (rounds - 1), max_delay))
            try:
                ws = await ws_connect(urls[turn], **self._ws_options)
            except (OSError, InvalidHandshake, TimeoutError) as exc:
                failure = exc
                continue
            self.url = urls[turn]
            await self._leave_socket()
            self._ws, self._lost = ws, None
            self._moved = None  # nothing more is read from the connection it came on
            self._reader = asyncio.get_running_loop().create_task(
                self._read(), name="cardroom-client-reader"
            )
            try:
                if room is None:
                    await self.hello(self._label, self._device)
                    return None
                # the seat is asked for with the hello, not a round trip after it: a process
                # that many clients reach at once (a rolling restart) answers both in one go
                taking = self.resume(room, token) if token is not None else self.watch(room)
                loop = asyncio.get_running_loop()
                asking: list[asyncio.Task[Any]] = [
                    loop.create_task(self.hello(self._label, self._device)),
                    loop.create_task(taking),
                ]
                self._handshake.update(asking)
                try:
                    answers = await asyncio.gather(*asking, return_exceptions=True)
                finally:
                    self._handshake.difference_update(asking)
                for answer in answers:  # the hello's failure first: it explains the other's
                    if isinstance(answer, BaseException):
                        raise answer
                joined = answers[1]
                assert isinstance(joined, Joined)
                return joined
            except (ConnectionLost, ReplyTimeout) as exc:
                failure = exc
            except CardroomError as exc:
                if exc.code not in _TRY_AGAIN:
                    raise
                failure = exc  # a process going away, or its store away a moment: try again
        raise ConnectionLost(f"could not reconnect to {self.url} in {attempts} tries: {failure}")

    async def recovered(self) -> None:
        """Wait until the client has come back by itself (``auto_resume``) from a ``closing``
        or a dropped connection, if it is doing so; a failure is in :attr:`recovery_error`."""
        if self._recovery is not None:
            await asyncio.shield(self._recovery)

    def _recover_soon(self) -> None:
        """Start coming back by itself (once at a time), if asked to and in a room."""
        if not self.auto_resume or self._closed or self._reconnecting or self.room is None:
            return
        if self._recovery is not None and not self._recovery.done():
            return
        self._recovery = asyncio.get_running_loop().create_task(
            self._recover(), name="cardroom-client-recover"
        )

    async def _recover(self) -> None:
        room, token = self.room, self.token
        assert room is not None
        try:
            # "the room moved" (docs/protocol.md): take it back on this connection
            if self._lost is None and "moved" in (self.closing or ""):
                try:
                    await (self.resume(room, token) if token else self.watch(room))
                    return
                except ClientError:
                    pass  # the process is going away after all
            if self.url in self.urls:  # this process is going away: the others first
                at = self.urls.index(self.url) + 1
                self.urls = self.urls[at:] + self.urls[:at]
            if self.closing is not None:  # told (a planned restart): come back at once
                await self.reconnect(**PLANNED_RETRY)
            else:
                await self.reconnect()
        except ClientError as exc:
            log.warning("could not come back to room %s by itself: %s", room, exc)
            self.recovery_error = exc

    async def _leave_socket(self) -> None:
        """Stop reading the current socket and let it close in the background: a process
        that is going away may take its time over the closing handshake, and the new
        connection need not wait for it."""
        old, reader = self._ws, self._reader
        reader.cancel()
        await asyncio.wait({reader}, timeout=5)
        closing = asyncio.get_running_loop().create_task(old.close())
        self._closing_sockets.add(closing)
        closing.add_done_callback(self._closing_sockets.discard)

    async def _stop_reading(self) -> None:
        """Close the current socket and wait for its reader to finish."""
        with contextlib.suppress(Exception):
            await self._ws.close()
        _, running = await asyncio.wait({self._reader}, timeout=5)
        for task in running:
            task.cancel()

    # ------------------------------------------------------------------ internals

    def _next_id(self) -> str:
        return f"c{next(self._ids)}"

    def _room(self, room: str | None) -> str:
        if room is not None:
            return room
        if self.room is None:
            raise ClientStateError("not in a room: create, join, watch or resume first")
        return self.room

    def _check_open(self) -> None:
        if self._closed:
            raise ClientStateError("the client is closed")
        if self._lost is not None:
            raise ConnectionLost(self._lost.reason)

    async def _after_reconnect(self) -> None:
        """Wait, if the connection is being replaced, until the new one has said ``hello`` and
        taken the seat back: a request sent there first would be refused (``hello_required``),
        one sent on the old one lost."""
        if self._reconnecting and asyncio.current_task() not in self._handshake:
            await self._settled.wait()

    async def _send_text(self, text: str) -> None:
        await self._after_reconnect()
        sending = self._contributing
        # the deal's value goes out before what follows it; not before a reconnection's hello
        # and resume: a contribution made meanwhile waits for them (and would wait for ever)
        me = asyncio.current_task()
        if sending is not None and sending is not me and me not in self._handshake:
            await asyncio.shield(sending)
        self._check_open()
        try:
            await self._ws.send(text)
        except ConnectionClosed as exc:
            raise ConnectionLost(f"the connection closed: {exc}") from None

    async def _next_match(
        self, position: int, predicate: Callable[[ServerMessage], bool] | None
    ) -> tuple[int, ServerMessage]:
        """Wait for the first message at or after ``position`` that matches."""
        while True:
            if position < self._base:
                log.warning("a reader fell %d messages behind the history", self._base - position)
                position = self._base
            while position < self._count:
                msg = self._log[position - self._base]
                if predicate is None or predicate(msg):
                    return position, msg
                position += 1
            if self._lost is not None or self._closed:
                raise self._lost or ConnectionLost("the client closed the connection")
            await self._arrived.wait()

    async def _read(self) -> None:
        reason = "the server closed the connection"
        try:
            async for frame in self._ws:
                try:
                    msg = parse_server(frame)
                except ValidationError as exc:
                    log.warning("unparsable frame from the server: %r (%s)", frame[:200], exc)
                    continue
                self._receive(msg)
        except ConnectionClosed as exc:
            reason = f"the connection closed: {exc}"
        except Exception as exc:  # a bug here must not leave requests hanging
            log.exception("the client's reader failed")
            reason = f"the client's reader failed: {exc!r}"
        finally:
            code = self._ws.close_code
            if self._closed:
                reason = "the client closed the connection"
            elif code is not None and reason.startswith("the server"):
                reason = f"{reason} (code {code}: {self._ws.close_reason or 'no reason'})"
            self._lost = ConnectionLost(reason)
            self._fail_pending(self._lost)
            self._wake()
            self._recover_soon()

    def _receive(self, msg: ServerMessage) -> None:
        """Record one message: update the picture of the room, log it, resolve its request."""
        self._update(msg)
        if len(self._log) == self._log.maxlen:
            self._base += 1
        self._log.append(msg)
        index = self._count
        self._count += 1
        ref = getattr(msg, "ref", None)
        if ref is not None:
            future = self._pending.get(str(ref))
            if future is not None and not future.done():
                future.set_result((index, msg))
        self._wake()

    def _update(self, msg: ServerMessage) -> None:
        if isinstance(msg, Welcome):
            self.welcome = msg
        elif isinstance(msg, Joined):
            if msg.room != self.room:
                self._forget_room()
            self.room = msg.room
            self.seat = msg.seat
            self.token = msg.token
        elif isinstance(msg, Room):
            if self.room is None or msg.room.room == self.room:
                self.room_info = msg.room
                self._contribute(msg.room)
        elif isinstance(msg, State):
            if self.room is None or msg.room == self.room:
                self.state = msg
                self._behind = False
        elif isinstance(msg, Ack):
            if msg.version is not None and msg.version != self.version:
                self._behind = True  # its state follows
        elif isinstance(msg, Error):
            if msg.code == ErrorCode.STALE_VERSION:
                self._behind = True  # a fresh state follows
            elif msg.ref is None and msg.code in _DETACHING_CODES:
                self._forget_room()  # the server no longer counts us in the room
        elif isinstance(msg, Closing):
            self._closing(msg)
        elif isinstance(msg, Moved):
            self._moved = msg.room  # the joined that follows is resumed at the room's address

    def _closing(self, msg: Closing) -> None:
        self.closing = msg.reason
        # the room moved: resume at once on this connection; the server goes away: come back
        # through another URL at once, or through this one once it has closed (the reader's
        # end); a room closed for good ("room closed: idle") is left alone (docs/protocol.md,
        # "closing")
        going = not msg.reason.startswith("room closed") and len(self.urls) > 1
        if "moved" in msg.reason or going:
            self._recover_soon()

    def _contribute(self, info: RoomInfo) -> None:
        """Send our random value for the room's next deal, once (fair deals)."""
        deal = info.next_deal
        if not self.contribute or deal is None or self.seat is None or info.room != self.room:
            return
        if info.room == self._moved:  # sent once resumed at the room's address, not here
            return
        key = (info.room, deal.game)
        if key in self.contributions:
            return
        while len(self.contributions) >= MAX_CONTRIBUTIONS:
            del self.contributions[next(iter(self.contributions))]
        value = secrets.token_bytes(32)
        self.contributions[key] = value
        msg = Contribute(id=self._next_id(), room=info.room, game=deal.game, value=value.hex())
        before = self._contributing
        self._contributing = asyncio.get_running_loop().create_task(
            self._send_contribution(before, msg), name="cardroom-client-contribute"
        )

    async def _send_contribution(self, before: asyncio.Task[None] | None, msg: Contribute) -> None:
        if before is not None:
            await before
        # answered before anything else goes out; refused or closed: the deal simply lacks it
        with contextlib.suppress(ClientError):
            await self.request(msg, Ack)

    async def contributions_sent(self) -> None:
        """Wait until the server has answered this client's contributions so far."""
        if self._contributing is not None:
            await asyncio.shield(self._contributing)

    def _forget_room(self) -> None:
        self._behind = False
        self.room = None
        self.seat = None
        self.token = None
        self.room_info = None
        self.state = None

    def _wake(self) -> None:
        arrived, self._arrived = self._arrived, asyncio.Event()
        arrived.set()

    def _fail_pending(self, exc: ClientError) -> None:
        for future in self._pending.values():
            if not future.done():
                future.set_exception(exc)
        self._pending.clear()


def room_url(url: str, room: str | None) -> str:
    """``url`` with the WebSocket path of ``room`` (``None``: ``/ws``, no room yet), under the
    path the server is at (a proxy may serve it under a prefix).

    >>> room_url("ws://127.0.0.1:8765/", "K7Q2M"), room_url("wss://example.org/ws/ABCDE", None)
    ('ws://127.0.0.1:8765/ws/K7Q2M', 'wss://example.org/ws')
    >>> room_url("wss://example.org/cards/", " k7q2m"), room_url("ws://h/", "K7")
    ('wss://example.org/cards/ws/K7Q2M', 'ws://h/ws')

    A code not in a code's shape gives ``/ws`` (its request is refused as usual, not the
    handshake); one in another case is upper-cased, as the server takes it.
    """
    code = (room or "").strip().upper()
    parts = urlsplit(url)
    base = _ROOM_TAIL.sub("", parts.path).rstrip("/")
    return urlunsplit(parts._replace(path=base + ws_path(code if _CODE.match(code) else None)))


def follows_rooms(url: str) -> bool:
    """Whether ``url`` is a room address (``/ws``, ``/ws/CODE``): the client keeps to its
    room's one (the bare ``/`` stays as it is, for servers older than room addresses)."""
    return _ROOM_TAIL.search(urlsplit(url).path) is not None


class _Connect:
    """What :meth:`CardroomClient.connect` returns: await it, or use it with ``async with``."""

    def __init__(
        self,
        cls: type[CardroomClient],
        url: str,
        hello: bool | str,
        device: str | None,
        timeout: float,
        history: int,
        ws_options: dict[str, Any],
        options: Mapping[str, Any] | None = None,
        bot: bool = False,
    ) -> None:
        self._cls = cls
        self._bot = bot
        self._options = dict(options or {})
        self._url = url
        self._hello = hello
        self._device = device
        self._timeout = timeout
        self._history = history
        self._ws_options = {"proxy": None, **ws_options}
        self._client: CardroomClient | None = None

    async def _open(self) -> CardroomClient:
        ws = await ws_connect(self._url, **self._ws_options)
        client = self._cls(
            ws,
            timeout=self._timeout,
            history=self._history,
            url=self._url,
            ws_options=self._ws_options,
            **self._options,
        )
        client._bot = self._bot  # said in its hellos, this one's or a later one's
        if self._hello:
            try:
                label = self._hello if isinstance(self._hello, str) else "cardroom-python"
                await client.hello(label, self._device)
            except BaseException:
                await client.close()
                raise
        return client

    def __await__(self) -> Generator[Any, None, CardroomClient]:
        return self._open().__await__()

    async def __aenter__(self) -> CardroomClient:
        self._client = await self._open()
        return self._client

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._client is not None:
            await self._client.close()


# ----------------------------------------------------------------------------- actions


def to_action_model(action: ActionLike) -> ActionModel:
    """An :class:`~protocol.messages.ActionModel` from a model, its JSON form or its string form
    (``"play 7D 7S"``, ``"flip #2"``, ``"ready"``).

    >>> to_action_model("play 7d 7S").cards
    ['7D', '7S']
    >>> to_action_model({"kind": "flip", "slot": 2}).slot
    2
    >>> to_action_model("flip #1").slot
    1

    Raises:
        pydantic.ValidationError: not a valid action.
    """
    if isinstance(action, ActionModel):
        return action
    if isinstance(action, str):
        words = action.split()
        cards: list[str] = []
        data: dict[str, object] = {"kind": words[0] if words else "", "cards": cards}
        for word in words[1:]:
            if word.startswith("#") and word[1:].isdigit():
                data["slot"] = int(word[1:])
            else:
                cards.append(word)
        return ActionModel.model_validate(data)
    return ActionModel.model_validate(dict(action))


def action_text(action: ActionModel) -> str:
    """The string form of an action, as :func:`to_action_model` reads it.

    >>> action_text(ActionModel(kind="play", cards=["7D", "7S"]))
    'play 7D 7S'
    >>> action_text(to_action_model({"kind": "flip", "slot": 1}))
    'flip #1'
    """
    parts = [action.kind, *action.cards]
    if action.slot is not None:
        parts.append(f"#{action.slot}")
    return " ".join(parts)
