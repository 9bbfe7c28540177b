"""One-time codes that bring a player's identity to another device (no e-mail, no password):
the device that holds the identity asks for a code, the other device says it, and the server
gives that device the same identity. In memory (bounded: :data:`MAX_CODES`) or in Redis.

A code is :data:`CODE_LENGTH` characters of an alphabet without look-alikes (40 bits), lives
:data:`CODE_TTL` seconds at most, works once (a claim takes it away, atomically on Redis), and
replaces the identity's earlier code. Who may ask and guess how often is the server's budget
per address (:mod:`server.net.moves`): at a few guesses a minute, a 40-bit code that lasts ten
minutes is found by nobody.

>>> normal("k7q2-m9xa"), normal("K7Q2 M9XA"), len(new_code())
('K7Q2M9XA', 'K7Q2M9XA', 8)
"""

from __future__ import annotations

import secrets
import time
from abc import ABC, abstractmethod
from collections import OrderedDict
from collections.abc import Callable

from server.store.leaderboard import player_id
from server.store.redis_client import (
    RedisClient,
    connect,
    global_key,
    unavailable_as_store_error,
)

#: The characters of a code: no 0/O, 1/I/L.
ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 8
#: Seconds a code works for.
CODE_TTL = 600.0
#: Codes an in-memory store holds at once (past it, the oldest go first).
MAX_CODES = 10_000


def new_code() -> str:
    return "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))


def normal(text: str) -> str:
    """A code as typed (any case, spaces and dashes), as it is stored."""
    return "".join(c for c in text.upper() if c.isalnum())


class MoveCodes(ABC):
    """Where live codes are kept."""

    def __init__(self, clock: Callable[[], float] = time.time, ttl: float = CODE_TTL) -> None:
        self.clock = clock
        self.ttl = ttl

    @abstractmethod
    async def issue(self, device: str) -> tuple[str, float]:
        """A new code for ``device`` (its earlier one stops working), and when it expires.

        Raises:
            StoreUnavailable: the store cannot be reached.
        """

    @abstractmethod
    async def claim(self, code: str) -> str | None:
        """The device ``code`` was issued for, once (``None``: no such live code).

        Raises:
            StoreUnavailable: the store cannot be reached.
        """

    async def close(self) -> None:  # noqa: B027 - optional hook
        """Release connections."""


class MemoryMoveCodes(MoveCodes):
    def __init__(
        self,
        clock: Callable[[], float] = time.time,
        ttl: float = CODE_TTL,
        max_codes: int = MAX_CODES,
    ) -> None:
        super().__init__(clock, ttl)
        self._codes: OrderedDict[str, tuple[str, float]] = OrderedDict()  # code -> device, end
        self._by_player: dict[str, str] = {}  # player id -> its live code
        self._max = max_codes

    async def issue(self, device: str) -> tuple[str, float]:
        now = self.clock()
        old = self._by_player.pop(player_id(device), None)
        if old is not None:
            self._codes.pop(old, None)
        while self._codes and (len(self._codes) >= self._max or self._oldest_gone(now)):
            gone, (was, _) = self._codes.popitem(last=False)
            if self._by_player.get(player_id(was)) == gone:
                del self._by_player[player_id(was)]
        code = new_code()
        expires = now + self.ttl
        self._codes[code] = (device, expires)
        self._by_player[player_id(device)] = code
        return code, expires

    def _oldest_gone(self, now: float) -> bool:
        return next(iter(self._codes.values()))[1] <= now

    async def claim(self, code: str) -> str | None:
        found = self._codes.pop(normal(code), None)
        if found is None:
            return None
        device, expires = found
        if self._by_player.get(player_id(device)) == normal(code):
            del self._by_player[player_id(device)]
        return device if expires > self.clock() else None

    def held(self) -> int:
        """Codes held (a leak check)."""
        return len(self._codes) + len(self._by_player)


# KEYS: the code's key, the player's key; ARGV: the device, ttl ms, the new code's key.
_ISSUE = """
local old = redis.call('GET', KEYS[2])
if old then redis.call('DEL', old) end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('SET', KEYS[2], KEYS[1], 'PX', ARGV[2])
return 1
"""
# KEYS: the code's key. The device, taken away (once).
_CLAIM = """
local device = redis.call('GET', KEYS[1])
if device then redis.call('DEL', KEYS[1]) end
return device
"""


def _key(name: str) -> str:
    return global_key(f"{{mv}}:{name}")  # one slot on a cluster: a script reads two keys


class RedisMoveCodes(MoveCodes):
    """Codes in Redis, each key expiring with its code (nothing to bound by hand)."""

    def __init__(
        self,
        url: str | None = None,
        *,
        client: RedisClient | None = None,
        clock: Callable[[], float] = time.time,
        ttl: float = CODE_TTL,
    ) -> None:
        super().__init__(clock, ttl)
        if client is None:
            if url is None:
                raise ValueError("RedisMoveCodes needs a url or a client")
            client = connect(url)
        self.redis = client
        self._issue = client.register_script(_ISSUE)
        self._claim = client.register_script(_CLAIM)

    async def issue(self, device: str) -> tuple[str, float]:
        code = new_code()
        keys = [_key(f"code:{code}"), _key(f"player:{player_id(device)}")]
        with unavailable_as_store_error():
            await self._issue(keys=keys, args=[device, int(self.ttl * 1000)])
        return code, self.clock() + self.ttl

    async def claim(self, code: str) -> str | None:
        key = normal(code)
        if not key:
            return None
        with unavailable_as_store_error():
            device = await self._claim(keys=[_key(f"code:{key}")], args=[])
        return None if device is None else bytes(device).decode()

    async def close(self) -> None:
        await self.redis.aclose()
