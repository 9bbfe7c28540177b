"""Device identities the server issues, so a leaderboard entry costs something to make
(with identities a client made up, one person could fill a board).

A device token a client makes up earns nothing: only a token this server signed (an HMAC of a
random id under a key of the server secret, the one the deals come from, so every process of
one store issues and accepts the same identities) ranks a player. A client without one gets
one in its ``welcome``, and keeps it. Each client address (an IPv6 /64 as one; behind a trusted
proxy the forwarded one) gets at most ``per_address`` new identities a UTC day: sock-puppet
devices need addresses. The budget is per process; its memory is bounded by ``max_addresses`` (the
least recently seen address forgotten first). An identity also carries a keyed digest of the
address it was issued to (:func:`~server.store.leaderboard.device_origin`), so identities
hoarded from one address over many days still share one address's few daily-board entries.

>>> issuer = DeviceIssuer(b"k" * 32, per_address=1, max_addresses=10)
>>> token = issuer.issue("10.0.0.1", day=1)
>>> issuer.valid(token), issuer.valid("made-up-device-0123456789"), len(token)
(True, False, 43)
>>> issuer.issue("10.0.0.1", day=1) is None, issuer.issue("10.0.0.1", day=2) is not None
(True, True)
>>> from server.store.leaderboard import device_origin
>>> later = issuer.issue("10.0.0.1", day=3)
>>> device_origin(token) == device_origin(later) != device_origin(issuer.issue("10.0.0.2", 3))
True
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from collections import OrderedDict

PREFIX = "cr1"
_ID_BYTES = 12  # 16 base64url characters
_ORIGIN_BYTES = 6  # of the id: 8 characters naming the address it was issued to
_SIG_BYTES = 18  # 24 base64url characters
TOKEN_LENGTH = len(PREFIX) + 16 + 24


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


class DeviceIssuer:
    """Issues and checks device tokens under one secret, ``per_address`` a day per address."""

    def __init__(self, secret: bytes | None, per_address: int, max_addresses: int) -> None:
        self._secret = secret or b""
        self.ready = secret is not None  # False until a secret is given (see use)
        self.per_address = per_address
        self.max_addresses = max_addresses
        self.issued = 0
        self.refused = 0  # addresses over their day's budget
        self._counts: OrderedDict[str, tuple[int, int]] = OrderedDict()  # address -> (day, n)

    def _sign(self, ident: str) -> str:
        mac = hmac.new(self._secret, f"device:{ident}".encode(), hashlib.sha256).digest()
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
            or not token.startswith(PREFIX)
        ):
            return False
        ident, sig = token[len(PREFIX) : len(PREFIX) + 16], token[len(PREFIX) + 16 :]
        return hmac.compare_digest(sig, self._sign(ident))

    def issue(self, address: str, day: int) -> str | None:
        """A new identity for a client at ``address`` on UTC day ``day`` (a day number), or
        ``None`` once the address had its day's share (or while there is no secret yet)."""
        if not self.ready:
            return None
        seen_day, count = self._counts.pop(address, (day, 0))
        if seen_day != day:
            count = 0
        if count >= self.per_address:
            self._counts[address] = (day, count)
            self.refused += 1
            return None
        self._counts[address] = (day, count + 1)
        if len(self._counts) > self.max_addresses:
            self._counts.popitem(last=False)
        self.issued += 1
        # the id: a keyed digest of the address (its origin, read by device_origin), then
        # random bytes; signed whole
        ident = _b64(self._origin_tag(address) + secrets.token_bytes(_ID_BYTES - _ORIGIN_BYTES))
        return PREFIX + ident + self._sign(ident)

    def _origin_tag(self, address: str) -> bytes:
        mac = hmac.new(self._secret, f"origin:{address}".encode(), hashlib.sha256).digest()
        return mac[:_ORIGIN_BYTES]

    def origin(self, address: str) -> str | None:
        """The keyed digest of ``address`` that identities issued there carry (``None`` while
        there is no secret): what a room's bans and mutes bind to besides a device, since a
        person sheds a device by reconnecting without it, and an address far less easily.

        >>> issuer = DeviceIssuer(b"k" * 32, per_address=1, max_addresses=10)
        >>> from server.store.leaderboard import device_origin
        >>> issuer.origin("10.0.0.1") == device_origin(issuer.issue("10.0.0.1", day=1))
        True
        """
        return _b64(self._origin_tag(address)) if self.ready else None
