"""Who is connected to this process, and where each client is: one object (as uvicorn's
``ServerState``) that the WebSocket server, the room manager and the cluster share.

It holds this process's own clients (their sockets, by connection id, and how many come
from each address), the clients of other processes whose messages reach rooms held here
(relayed to them over Redis), the room each connection is in (or on its way into), the
device identity each said hello with, and the clients of this process relayed to a room
another process holds. A connection is in at most one room, here or elsewhere:
:meth:`Connected.check_free` is the one place that refuses a second one
(``already_in_room``; :meth:`Connected.enter` checks with it).

>>> class Box:
...     def __init__(self) -> None:
...         self.frames: list[str] = []
...     def send(self, text: str) -> None:
...         self.frames.append(text)
>>> people: Connected[Box] = Connected()
>>> people.open(1, Box(), "10.0.0.1")
>>> people.enter(1, "ABCDE")
>>> try:
...     people.enter(1, "FGHJK")
... except Refusal as r:
...     print(r.code, r.message)
already_in_room you are in room ABCDE: leave it first
>>> people.forget(1), people.from_address("10.0.0.1")
('ABCDE', 0)
"""

from __future__ import annotations

from typing import Generic, Protocol, TypeVar

from protocol.errors import ErrorCode
from server.rooms.refusal import Refusal
from server.store.budgets import levels
from server.store.leaderboard import is_bot_device, player_id


class Outbox(Protocol):
    """What a room needs of a client: a way to queue a text frame for it."""

    def send(self, text: str) -> None: ...


S = TypeVar("S", bound=Outbox)


class Connected(Generic[S]):
    """Every client of this process (``S``: the server's socket type) and where it is."""

    def __init__(self) -> None:
        self.sockets: dict[int, S] = {}  # this process's own clients
        self._relayed: dict[int, Outbox] = {}  # clients of other processes (negative ids)
        # this process's clients from each address (an IPv6 one also under its /48)
        self._per_address: dict[str, int] = {}
        self._addresses: dict[int, str] = {}  # connection -> its client's address
        self._rooms: dict[int, str] = {}  # connection -> the room it is in (or entering)
        self._devices: dict[int, str] = {}  # connection -> device identity from its hello
        self._origins: dict[int, str] = {}  # connection -> keyed digest of its address
        self._forwarded: dict[int, tuple[str, str]] = {}  # conn -> (room, the process owning it)
        self._routed: set[int] = set()  # connected to /ws or /ws/CODE: they follow a room

    # arriving and leaving

    def open(self, conn: int, socket: S, address: str | None = None) -> None:
        """A client of this process connected (``address``: where from, for its budgets)."""
        self.sockets[conn] = socket
        if address is not None:
            self._addresses[conn] = address
            for key, _ in levels(address):
                self._per_address[key] = self._per_address.get(key, 0) + 1

    def relay(self, conn: int, outbox: Outbox) -> None:
        """A client of another process sent a message to a room here: its frames go back
        through ``outbox`` (it has no address here: that process checked its budgets)."""
        self._relayed[conn] = outbox

    def forget(self, conn: int) -> str | None:
        """The client is gone: everything about it goes; the room it was in is returned."""
        if self.sockets.pop(conn, None) is None:
            self._relayed.pop(conn, None)
        address = self._addresses.pop(conn, None)
        if address is not None:
            for key, _ in levels(address):
                left = self._per_address.pop(key, 1) - 1
                if left > 0:
                    self._per_address[key] = left
        self._devices.pop(conn, None)
        self._origins.pop(conn, None)
        self._forwarded.pop(conn, None)
        self._routed.discard(conn)
        return self._rooms.pop(conn, None)

    def tracked(self) -> int:
        """Entries kept about clients, in every table (a leak check: 0 once all have gone)."""
        return (
            len(self.sockets)
            + len(self._relayed)
            + len(self._addresses)
            + len(self._per_address)
            + len(self._rooms)
            + len(self._devices)
            + len(self._origins)
            + len(self._forwarded)
            + len(self._routed)
        )

    def present(self, conn: int) -> bool:
        return conn in self.sockets or conn in self._relayed

    def from_address(self, address: str) -> int:
        """This process's clients connected from ``address`` now (an IPv6 /64 or /48)."""
        return self._per_address.get(address, 0)

    def routed(self, conn: int) -> None:
        """The client connected to ``/ws`` or ``/ws/CODE`` (protocol/paths.py): it reconnects
        to a room's own address when told the room is held elsewhere (``moved``)."""
        self._routed.add(conn)

    def follows_rooms(self, conn: int) -> bool:
        return conn in self._routed

    # what is known of a client

    def send(self, conn: int, text: str) -> None:
        """Queue a frame for a client, if it is still connected."""
        outbox: Outbox | None = self.sockets.get(conn)
        if outbox is None:
            outbox = self._relayed.get(conn)
            if outbox is None:
                return
        outbox.send(text)

    def address_of(self, conn: int) -> str | None:
        """Where a client of this process connected from (``None``: a relayed client)."""
        return self._addresses.get(conn)

    def identify(self, conn: int, device: str) -> None:
        """The client said hello with (or was issued) this device identity."""
        self._devices[conn] = device

    def locate(self, conn: int, origin: str) -> None:
        """The client's address, as the keyed digest a room's bans and mutes bind to."""
        self._origins[conn] = origin

    def origin_of(self, conn: int) -> str | None:
        return self._origins.get(conn)

    def device_of(self, conn: int) -> str | None:
        """The device identity the connection said hello with, if any (for leaderboards)."""
        return self._devices.get(conn)

    def bot_of(self, conn: int) -> bool:
        """Whether the connection's identity is a bot identity (the ladder's)."""
        return is_bot_device(self._devices.get(conn))

    def player_of(self, conn: int) -> str | None:
        """The connection's player id on the boards (a digest of its device), if any."""
        device = self._devices.get(conn)
        return player_id(device) if device else None

    # rooms

    def room_of(self, conn: int) -> str | None:
        """The room of this process the connection is in (or on its way into)."""
        return self._rooms.get(conn)

    def is_in(self, conn: int, code: str) -> bool:
        """Whether ``conn`` is in room ``code``, here or relayed to the process holding it."""
        if self._rooms.get(conn) == code:
            return True
        relayed = self._forwarded.get(conn)
        return relayed is not None and relayed[0] == code

    def check_free(self, conn: int, code: str | None = None) -> None:
        """Refuse ``conn`` any room but the one it is in, here or relayed elsewhere (``code``
        ``None``: a new room): the one place ``already_in_room`` is decided.

        Raises:
            Refusal: ``already_in_room``.
        """
        current = self._rooms.get(conn)
        if current is None:
            relayed = self._forwarded.get(conn)
            current = None if relayed is None else relayed[0]
        if current is not None and current != code:
            raise Refusal(ErrorCode.ALREADY_IN_ROOM, f"you are in room {current}: leave it first")

    def enter(self, conn: int, code: str) -> None:
        """``conn`` is in room ``code`` from now on (before the room has handled its request,
        so that a second one pipelined behind it is refused at once).

        Raises:
            Refusal: ``already_in_room``, if it is in another.
        """
        self.check_free(conn, code)
        self._rooms[conn] = code

    def placed(self, conn: int, code: str) -> None:
        """``conn`` is in room ``code`` (the room took it in)."""
        self._rooms[conn] = code

    def left(self, conn: int, code: str) -> None:
        """``conn`` is no longer in room ``code`` (if that is where it was)."""
        if self._rooms.get(conn) == code:
            del self._rooms[conn]

    def empty(self, code: str) -> list[int]:
        """Every connection in room ``code``, taken out of it (the room closes)."""
        members = [conn for conn, room in self._rooms.items() if room == code]
        for conn in members:
            del self._rooms[conn]
        return members

    # clients of this process relayed to a room another process holds

    def forward(self, conn: int, code: str, owner: str) -> None:
        self._forwarded[conn] = (code, owner)

    def unforward(self, conn: int) -> tuple[str, str] | None:
        """No longer relayed (it left, or went away): the (room, owner) it was relayed to."""
        return self._forwarded.pop(conn, None)

    def forwarded_to(self, owner: str) -> list[int]:
        """The connections relayed to ``owner``, relayed no longer (that process is gone)."""
        conns = [conn for conn, (_, to) in self._forwarded.items() if to == owner]
        for conn in conns:
            del self._forwarded[conn]
        return conns

    def unforward_room(self, code: str, owner: str) -> list[int]:
        """The connections relayed to room ``code`` at ``owner``, relayed no longer (the room
        was handed over to this process)."""
        conns = [conn for conn, to in self._forwarded.items() if to == (code, owner)]
        for conn in conns:
            del self._forwarded[conn]
        return conns

    def owners(self) -> set[str]:
        """The processes this one relays clients to."""
        return {owner for _, owner in self._forwarded.values()}
