"""Device identities the server issues, so a leaderboard entry costs something to make
(with identities a client made up, one person could fill a board).

A device token a client makes up earns nothing: only a token this server signed (an HMAC of a
random id under a key of the server secret, the one the deals come from, so every process of
one store issues and accepts the same identities) ranks a player. A client without one gets
one in its ``welcome``, and keeps it. How many a client address gets a UTC day is a budget of
the server's (:mod:`server.store.budgets`, shared by every process of one Redis): sock-puppet
devices need addresses. An identity also carries a keyed digest of the
address it was issued to (:func:`~server.store.leaderboard.device_origin`), so identities
hoarded from one address over many days still share one address's few daily-board entries.

>>> issuer = DeviceIssuer(b"k" * 32)
>>> token = issuer.mint("10.0.0.1")
>>> issuer.valid(token), issuer.valid("made-up-device-0123456789"), len(token)
(True, False, 43)
>>> robot = issuer.mint("10.0.0.1", bot=True)  # a bot identity: its own prefix, signed apart
>>> issuer.valid(robot), robot[:3], issuer.valid("cb1" + token[3:])
(True, 'cb1', False)
>>> from server.store.leaderboard import device_origin
>>> later = issuer.mint("10.0.0.1")
>>> device_origin(token) == device_origin(later) != device_origin(issuer.mint("10.0.0.2"))
True
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from collections import OrderedDict

from server.store.leaderboard import BOT_PREFIX

PREFIX = "cr1"
_ID_BYTES = 12  # 16 base64url characters
_ORIGIN_BYTES = 6  # of the id: 8 characters naming the address it was issued to
_SIG_BYTES = 18  # 24 base64url characters
TOKEN_LENGTH = len(PREFIX) + 16 + 24


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


class DeviceIssuer:
    """Issues and checks device tokens under one secret."""

    def __init__(self, secret: bytes | None) -> None:
        self._secret = secret or b""
        self.ready = secret is not None  # False until a secret is given (see use)
        self.issued = 0
        self.refused = 0  # hellos of addresses over their day's budget (the server counts)

    def _sign(self, ident: str, bot: bool = False) -> str:
        # a bot's is signed under another label: a person's token renamed is no bot's
        label = "bot-device" if bot else "device"
        mac = hmac.new(self._secret, f"{label}:{ident}".encode(), hashlib.sha256).digest()
        return _b64(mac[:_SIG_BYTES])

    def use(self, secret: bytes) -> None:
        """Sign with ``secret`` from now on (the shared one, once it could be read)."""
        self._secret = secret
        self.ready = True

    def valid(self, token: str | None) -> bool:
        """Whether ``token`` is a device identity this server (its secret) issued."""
        if (
            not self.ready
            or not token
            or len(token) != TOKEN_LENGTH
            or not token.startswith((PREFIX, BOT_PREFIX))
        ):
            return False
        ident, sig = token[len(PREFIX) : len(PREFIX) + 16], token[len(PREFIX) + 16 :]
        return hmac.compare_digest(sig, self._sign(ident, token.startswith(BOT_PREFIX)))

    def mint(self, address: str, *, bot: bool = False) -> str | None:
        """A new identity for a client at ``address`` (its budget already spent), or ``None``
        while there is no secret yet; ``bot``: a bot identity (the ladder's, never the
        people's queue's)."""
        if not self.ready:
            return None
        self.issued += 1
        # the id: a keyed digest of the address (its origin, read by device_origin), then
        # random bytes; signed whole
        ident = _b64(self._origin_tag(address) + secrets.token_bytes(_ID_BYTES - _ORIGIN_BYTES))
        return (BOT_PREFIX if bot else PREFIX) + ident + self._sign(ident, bot)

    def _origin_tag(self, address: str) -> bytes:
        mac = hmac.new(self._secret, f"origin:{address}".encode(), hashlib.sha256).digest()
        return mac[:_ORIGIN_BYTES]

    def origin(self, address: str) -> str | None:
        """The keyed digest of ``address`` that identities issued there carry (``None`` while
        there is no secret): what a room's bans and mutes bind to besides a device, since a
        person sheds a device by reconnecting without it, and an address far less easily.

        >>> issuer = DeviceIssuer(b"k" * 32)
        >>> from server.store.leaderboard import device_origin
        >>> issuer.origin("10.0.0.1") == device_origin(issuer.mint("10.0.0.1"))
        True
        """
        return _b64(self._origin_tag(address)) if self.ready else None


#: Challenges kept as used (per process: past it the oldest are forgotten; the address's daily
#: budget of earned identities still bounds what a forgotten one could earn again).
MAX_SPENT = 65_536


def solves(challenge: str, nonce: str, bits: int) -> bool:
    """Whether SHA-256 of ``challenge:nonce`` starts with ``bits`` zero bits.

    >>> solves("c", "0", 0), solves("c", "0", 256)
    (True, False)
    """
    digest = int.from_bytes(hashlib.sha256(f"{challenge}:{nonce}".encode()).digest(), "big")
    return digest >> (256 - bits) == 0 if bits > 0 else True


class WorkChallenges:
    """Proofs of work that earn an identity once an address's free ones are spent: a
    challenge is signed for one address, UTC day and difficulty (nothing is stored until one
    is used), and is good once.

    >>> work = WorkChallenges(b"k" * 32, bits=4)
    >>> challenge = work.offer("10.0.0.1", "2026-12-07")
    >>> nonce = next(str(n) for n in range(10_000) if solves(challenge, str(n), 4))
    >>> work.check("10.0.0.2", "2026-12-07", challenge, nonce)  # another address's
    False
    >>> work.check("10.0.0.1", "2026-12-07", challenge, nonce), work.check(
    ...     "10.0.0.1", "2026-12-07", challenge, nonce)  # good once
    (True, False)
    """

    def __init__(self, secret: bytes, bits: int) -> None:
        self._secret = secret
        self.bits = bits
        self._spent: OrderedDict[str, None] = OrderedDict()

    def _sign(self, address: str, day: str, rand: str) -> str:
        text = f"work:{address}:{day}:{self.bits}:{rand}".encode()
        return _b64(hmac.new(self._secret, text, hashlib.sha256).digest()[:_SIG_BYTES])

    def offer(self, address: str, day: str) -> str:
        """A fresh challenge for ``address`` on ``day`` (``YYYY-MM-DD``, UTC)."""
        rand = _b64(secrets.token_bytes(9))
        return f"{day}.{rand}.{self._sign(address, day, rand)}"

    def check(self, address: str, day: str, challenge: str, nonce: str) -> bool:
        """Whether ``nonce`` solves a challenge given to ``address`` on ``day`` and not used
        before (a good one is used by this call)."""
        parts = challenge.split(".")
        if len(parts) != 3 or parts[0] != day or challenge in self._spent:
            return False
        if not hmac.compare_digest(parts[2], self._sign(address, day, parts[1])):
            return False
        if not solves(challenge, nonce, self.bits):
            return False
        self._spent[challenge] = None
        if len(self._spent) > MAX_SPENT:
            self._spent.popitem(last=False)
        return True
