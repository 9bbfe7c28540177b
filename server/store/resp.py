r"""Script calls packed as Redis's wire protocol (RESP), with each room's constant part packed
once: a room's keys and the script's hash are the same at every write, only the fence, the
version and the entry change. redis-py packs every argument of every call anew (an encoder
call and a length line for each of the 13), which was a few per cent of a server saving every
action in Redis.

>>> evalsha("5ha", ("cr:{AB}:log",), (7, b"QC"))
b'*6\r\n$7\r\nEVALSHA\r\n$3\r\n5ha\r\n$1\r\n1\r\n$11\r\ncr:{AB}:log\r\n$1\r\n7\r\n$2\r\nQC\r\n'
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

#: Rooms whose packed keys are kept (the most recent writers); past it the oldest are packed
#: again when they next write: a bound on what the cache holds whatever the rooms.
HEADS = 4096


def _bulk(value: bytes) -> bytes:
    return b"$%d\r\n%b\r\n" % (len(value), value)


def _arg(value: Any) -> bytes:
    """One argument as redis-py's encoder writes it (bytes as they are, text as UTF-8, an
    integer in decimal); anything else is a bug of the caller."""
    kind = type(value)  # the exact types first: this runs for every argument of every write
    if kind is bytes:
        data = value
    elif kind is int:
        data = b"%d" % value
    elif kind is str:
        data = value.encode()
    elif isinstance(value, int) and not isinstance(value, bool):  # an IntEnum, say
        data = b"%d" % value
    else:  # a bool or a float, which redis-py refuses or writes its own way
        raise TypeError(f"{kind.__name__} is no Redis argument")
    return b"$%d\r\n%b\r\n" % (len(data), data)


@lru_cache(maxsize=HEADS)
def _head(sha: str, keys: tuple[str, ...], args: int) -> bytes:
    """The constant start of a call: the array's length, ``EVALSHA``, the hash, the keys."""
    return b"".join(
        [
            b"*%d\r\n" % (3 + len(keys) + args),
            _bulk(b"EVALSHA"),
            _bulk(sha.encode()),
            _bulk(b"%d" % len(keys)),
            *(_bulk(k.encode()) for k in keys),
        ]
    )


def command(*parts: Any) -> bytes:
    r"""Any command as RESP (the connection's greeting: ``AUTH``, ``SELECT``).

    >>> command("SELECT", 2)
    b'*2\r\n$6\r\nSELECT\r\n$1\r\n2\r\n'
    """
    return b"*%d\r\n" % len(parts) + b"".join([_arg(p) for p in parts])


def evalsha(sha: str, keys: tuple[str, ...], args: Sequence[Any]) -> bytes:
    """``EVALSHA sha len(keys) *keys *args`` as one RESP command."""
    return _head(sha, keys, len(args)) + b"".join([_arg(a) for a in args])
