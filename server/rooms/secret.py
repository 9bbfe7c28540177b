"""The server secret every seed is derived from (:mod:`server.rooms.seeds`): given by
``cardroom serve --secret`` / ``CARDROOM_SECRET``, else this process's own (made at random, kept
in memory only: fine for one process with the in-memory store). It is never sent to a client,
never logged, and never stored: whoever reads the store must not be able to compute a deal or
sign an identity. With Redis every process must be given the same secret (``cardroom serve
--redis`` refuses to start without one); Redis keeps only its :func:`fingerprint`, so a process
given another secret refuses to start.

>>> parse_secret("00" * 32) == bytes(32)
True
>>> process_secret() == process_secret()
True
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

#: Bytes of a generated secret; a given one must have at least this many.
SECRET_BYTES = 32

_process: bytes | None = None


def new_secret() -> bytes:
    return secrets.token_bytes(SECRET_BYTES)


def process_secret() -> bytes:
    """This process's own secret, made the first time it is asked for."""
    global _process
    if _process is None:
        _process = new_secret()
    return _process


def fingerprint(secret: bytes) -> str:
    """What the store keeps of the secret, to tell whether two processes share it: a keyed
    digest that gives nothing of the secret away (hex)."""
    return hmac.new(secret, b"cardroom/fingerprint/v1", hashlib.sha256).hexdigest()


class SecretMismatch(RuntimeError):
    """The store was used with another server secret (its deals and identities would differ)."""


def parse_secret(text: str) -> bytes:
    """A secret given as hex.

    Raises:
        ValueError: not hex, or shorter than :data:`SECRET_BYTES` (the message never shows it).
    """
    try:
        secret = bytes.fromhex(text.strip())
    except ValueError:
        raise ValueError("the server secret must be hex digits") from None
    if len(secret) < SECRET_BYTES:
        raise ValueError(f"the server secret must be at least {2 * SECRET_BYTES} hex digits")
    return secret
