"""The server secret every seed is derived from (:mod:`server.rooms.seeds`): given by
``cardroom serve --secret`` / ``CARDROOM_SECRET``, else generated on first start and kept by the
store. Redis keeps one for every process (created once, ``SET NX``); the in-memory store, one
per process. It is never sent to a client and never logged.

>>> parse_secret("00" * 32) == bytes(32)
True
>>> process_secret() == process_secret()
True
"""

from __future__ import annotations

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
