"""Every seed a room uses, derived from the server's secret with HMAC-SHA256, one label each.

The secret (``cardroom serve --secret``, else generated once and kept in the store) never
leaves the server; only what is derived from it is published, and only when it may be:

* a room's deal ``g``: ``HMAC(secret, "cardroom/deal/v1|CODE|NONCE|g")``, where ``NONCE`` is a
  random value kept in the room's record (a code used again deals anew);
* the daily deal of ``DATE`` (``YYYY-MM-DD``), hand ``h``:
  ``HMAC(secret, "cardroom/daily/v1|DATE|h")``, the same on every process sharing the secret;
* an event's seed: ``HMAC(secret, "cardroom/event/v1|CODE|NONCE")``: published as its SHA-256
  when the event is created, revealed when it ends; its seating and duplicate deals are derived
  from it (:mod:`server.rooms.event_deals`), so anyone can check them afterwards;
* the room's bots and hints: ``HMAC(secret, "cardroom/bots/v1|CODE|NONCE")`` (its first 8
  bytes), a stream of its own: no deal seed tells anything about it, nor it about a deal.

The deal itself is :func:`server.rules.deal.shuffle` of a seed and the players' contributions.

>>> keys = Keys(bytes(32))
>>> keys.deal("ABCDE", "00", 0) != keys.deal("ABCDE", "01", 0) != keys.deal("ABCDE", "00", 1)
True
>>> len(keys.daily(datetime.date(2024, 5, 1), 0))
32
>>> Keys(b"x" * 32)
Keys(<secret>)
"""

from __future__ import annotations

import base64
import datetime
import hashlib
import hmac
import secrets

from server.rooms.secret import SECRET_BYTES, process_secret


class Keys:
    """The server secret and what is derived from it. Its repr never shows the secret."""

    __slots__ = ("_secret",)

    def __init__(self, secret: bytes) -> None:
        if len(secret) < SECRET_BYTES:
            raise ValueError(f"a server secret is at least {SECRET_BYTES} bytes")
        self._secret = secret

    def __repr__(self) -> str:
        return "Keys(<secret>)"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Keys) and hmac.compare_digest(self._secret, other._secret)

    def __hash__(self) -> int:
        return hash(self._mac("cardroom/hash/v1"))

    def _mac(self, text: str) -> bytes:
        return hmac.new(self._secret, text.encode(), hashlib.sha256).digest()

    def fingerprint(self) -> str:
        """What a store keeps to tell whether its processes share this secret
        (:func:`server.rooms.secret.fingerprint`: nothing of the secret can be had from it)."""
        return self._mac("cardroom/fingerprint/v1").hex()

    def deal(self, code: str, nonce: str, game: int) -> bytes:
        """The server seed of game ``game`` of the room ``code`` with ``nonce``."""
        return self._mac(f"cardroom/deal/v1|{code}|{nonce}|{game}")

    def daily(self, date: datetime.date, hand: int) -> bytes:
        """The server seed of hand ``hand`` of the daily match of ``date``."""
        return self._mac(f"cardroom/daily/v1|{date.isoformat()}|{hand}")

    def event(self, code: str, nonce: str) -> bytes:
        """The seed of the event ``code`` with ``nonce`` (its seating and duplicate deals)."""
        return self._mac(f"cardroom/event/v1|{code}|{nonce}")

    def seat_token(self, code: str, nonce: str, round_: int, player: str) -> str:
        """The seat token of ``player`` at their table of round ``round_`` of an event: any
        process can give it to them again, and the table's room keeps only its digest."""
        mac = self._mac(f"cardroom/event-seat/v1|{code}|{nonce}|{round_}|{player}")
        return base64.urlsafe_b64encode(mac[:24]).decode()

    def bots(self, code: str, nonce: str) -> int:
        """The seed of the room's bots and hints (63 bits), apart from every deal's."""
        return int.from_bytes(self._mac(f"cardroom/bots/v1|{code}|{nonce}")[:8], "big") >> 1

    def devices(self) -> bytes:
        """The key that signs the device identities this server issues (leaderboards)."""
        return self._mac("cardroom/devices/v1")


def new_nonce() -> str:
    """A room's deal nonce (kept in its record)."""
    return secrets.token_hex(16)


def process_keys() -> Keys:
    """Keys of this process's own secret: for a room whose settings carry none (a room built
    outside a server, as tests and tools do; a server always sets its keys)."""
    return Keys(process_secret())
