"""The room store interface, and the errors every store raises.

A stored room is its record (:class:`protocol.records.RoomMeta`, written by
:meth:`server.rooms.core.RoomCore.meta`: seats, options, how the match was dealt, its version,
the turn deadline) plus the list of its accepted actions (:class:`protocol.records.ActionEntry`),
appended one at a time (each with the deadline of the version it begins), plus the history of its
finished games. The room actor awaits :meth:`RoomStore.append` for every
accepted action (and :meth:`RoomStore.save` for every other change) before it acknowledges it,
so a store whose calls return only once the data is stored (Redis, with its append-only file)
gives "nothing acknowledged is lost". Appending keeps the cost of an action constant however
long the game.

Every write is checked inside the store, in one step:

- the **version**: an action entry ``{"v": n, ...}`` is appended only onto version ``n - 1``,
  and a record only replaces one of the same or a lower version, so two writers can never both
  append version ``n`` (the loser gets :class:`VersionConflict`);
- the **fence**: a process that owns a room through a lease (:mod:`server.store.lease`) passes
  the lease's fencing token; once another process has taken the room over, the old owner's
  writes fail with :class:`Fenced`. ``fence=0`` is the writer of a room no lease was ever taken
  on (a single process).

Errors::

    StoreError
     +-- StoreUnavailable      the store cannot be reached now (retry later; nothing was lost)
     +-- WriteRejected         the store refused the write; the caller's copy is stale
          +-- VersionConflict  another write took this version first
          +-- Fenced           another process owns the room now
          +-- RoomGone         the room expired or was deleted

Expiry (Redis): a room's keys live ``room_ttl`` seconds (24 h by default) after its last write,
so an idle room nobody comes back to disappears by itself; when a room closes, its live state is
deleted at once and the history of its games stays ``history_ttl`` seconds (24 h) for
``/api/rooms/CODE/history``. The in-memory store forgets everything when its process exits.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any, ClassVar, NamedTuple

from protocol.records import ActionEntry, RoomMeta
from server.rooms.secret import process_secret

#: Seconds a room lives after its last write, and its history after it closes (Redis).
ROOM_TTL = 24 * 3600.0
HISTORY_TTL = 24 * 3600.0


def same_action(stored: Mapping[str, Any], entry: Mapping[str, Any]) -> bool:
    """Whether two action entries record the same action at the same version (a retry)."""
    return all(stored.get(k) == entry.get(k) for k in ("v", "g", "s", "a"))


class StoredRoom(NamedTuple):
    record: RoomMeta
    actions: list[ActionEntry]


class StoreError(Exception):
    """Root of the store's errors."""


class StoreUnavailable(StoreError):
    """The store cannot be reached; the write did not happen or its outcome is unknown.

    A store recovers by itself: the next call after the store returns works again.
    """

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail

    def __str__(self) -> str:
        return f"store unavailable: {self.detail}"


class WriteRejected(StoreError):
    """The store refused a write because the writer's copy of the room is stale."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


class VersionConflict(WriteRejected):
    """Another write stored this version first (``stored``: the room's version now)."""

    def __init__(self, code: str, version: int, stored: int) -> None:
        super().__init__(code)
        self.version = version
        self.stored = stored

    def __str__(self) -> str:
        return f"room {self.code}: version {self.version} refused, the store is at {self.stored}"


class Fenced(WriteRejected):
    """A newer owner holds the room (``current``: its fencing token; ``fence``: the writer's)."""

    def __init__(self, code: str, fence: int, current: int) -> None:
        super().__init__(code)
        self.fence = fence
        self.current = current

    def __str__(self) -> str:
        return f"room {self.code}: fence {self.fence} is stale, the room's owner has {self.current}"


class RoomGone(WriteRejected):
    """The room is no longer stored (expired or deleted)."""

    def __str__(self) -> str:
        return f"room {self.code} is no longer stored"


class RoomStore(ABC):
    """Async storage of room records by room code (see the module docstring for the checks)."""

    #: Whether calls finish without waiting on I/O (the in-memory stores). Only then does the
    #: room actor handle an input in its caller's turn: a client's timeouts (Redis) belong to
    #: the task that runs the call, and the caller may be no task at all.
    completes_at_once: ClassVar[bool] = False

    @property
    def queues_calls(self) -> bool:
        """Whether every write only queues its call and awaits an answer that another task
        (the one holding the connection and its timeouts) hands back: such a call may begin in
        any turn, even outside a task (a frame's read, a timer's callback), and its first await
        always waits (the Redis store's batch, :mod:`server.store.batch`). The room actor then
        handles an input in its caller's turn up to its first write."""
        return False

    @abstractmethod
    async def create(self, code: str, record: Mapping[str, Any], *, fence: int = 0) -> bool:
        """Store a new room; ``False`` if the code is already taken (codes are unique).

        A retry of a create that landed (the same record and fence, nothing appended since)
        is ``True`` again.
        """

    @abstractmethod
    async def save(self, code: str, record: Mapping[str, Any], *, fence: int = 0) -> None:
        """Replace the room's record (``record["version"]`` at least the stored one).

        Raises:
            VersionConflict: the store holds a later version.
            Fenced: another process owns the room.
            RoomGone: the room is not stored.
            StoreUnavailable: the store cannot be reached.
        """

    @abstractmethod
    async def append(self, code: str, entry: Mapping[str, Any], *, fence: int = 0) -> None:
        """Add one accepted action (``entry["v"]`` one more than the stored version).

        A retry of the last append that already landed (the same version, game, seat and
        action: :func:`same_action`) succeeds without adding it twice; the retry's entry
        replaces the stored one (its turn deadline ``"d"`` may be later). So a caller whose
        append failed with :class:`StoreUnavailable` (the outcome unknown: Redis may have stored
        it and the reply was lost) may send the same action again, and any other write of that
        version then fails with :class:`VersionConflict`: the caller's copy never silently
        drifts from the store.

        Raises:
            VersionConflict: another write took this version, or a version was skipped.
            Fenced: another process owns the room.
            RoomGone: the room is not stored.
            StoreUnavailable: the store cannot be reached.
        """

    @abstractmethod
    async def load(self, code: str) -> StoredRoom | None:
        """The room's record and actions, or ``None``."""

    @abstractmethod
    async def delete(self, code: str, *, fence: int = 0) -> None:
        """Forget the room's live state; its history stays until it expires.

        Raises:
            Fenced: another process owns the room.
            StoreUnavailable: the store cannot be reached.
        """

    @abstractmethod
    async def add_history(self, code: str, item: dict[str, Any], *, fence: int = 0) -> None:
        """Keep one finished game or hand (its deal, actions and result) with the room.

        ``item["g"]`` is the game's index in the room's match: storing the same index again
        replaces it, so a retry never keeps a game twice.

        Raises:
            Fenced: another process owns the room.
            RoomGone: the room is not stored.
            StoreUnavailable: the store cannot be reached.
        """

    @abstractmethod
    async def history(self, code: str) -> list[dict[str, Any]]:
        """The room's finished games in order (empty once expired or never played)."""

    async def server_secret(self) -> bytes:
        """The server secret when none is given: this process's own (never stored; a store
        shared by several processes checks they agree, :meth:`check_secret`)."""
        return process_secret()

    async def check_secret(self, fingerprint: str) -> None:  # noqa: B027 - optional hook
        """Check that the secret of ``fingerprint`` (:meth:`~server.rooms.seeds.Keys.fingerprint`)
        is the one every process of this store uses (nothing to check for a store of one
        process).

        Raises:
            SecretMismatch: it is not. StoreUnavailable: the store cannot be reached.
        """

    async def available(self) -> bool:
        """Whether the store answers now (for ``/healthz``); in-memory stores always do."""
        return True

    async def close(self) -> None:  # noqa: B027 - optional hook, a no-op by default
        """Release connections (nothing to do for in-memory stores)."""

    # last: inside the class body, the name "list" is this method
    @abstractmethod
    async def list(self) -> list[str]:
        """Codes of every stored room."""
