"""The web client's files, read once when the server starts and served from memory.

Reading at start keeps disk I/O off the event loop. Text files are gzipped once too, and each
file carries an ETag so a browser revalidates with a cheap 304. ``/r/CODE`` (a share link),
``/r/CODE/history`` (a finished game's replay), ``/e/CODE`` (an event's page), ``/e/new`` (the
form that opens one), ``/leaderboard``, ``/ladder`` (the bots' ladder) and ``/p/PLAYER`` (a
player's page) are the app itself: the page reads where it is from its address.

>>> import tempfile, pathlib
>>> root = pathlib.Path(tempfile.mkdtemp())
>>> _ = (root / "index.html").write_text("<p>hi</p>" * 100)
>>> files = StaticFiles.load(root)
>>> files.lookup("/r/ab3cd") is files.lookup("/") is files.lookup("/r/AB3CD/history")
True
>>> files.lookup("/p/bot:strong") is files.lookup("/") is files.lookup("/ladder")
True
>>> files.lookup("/../etc/passwd") is None
True
>>> len(files.lookup("/").gzip) < len(files.lookup("/").body)
True
"""

from __future__ import annotations

import gzip
import hashlib
import mimetypes
import re
from dataclasses import dataclass
from pathlib import Path

from server.store.ratings import PLAYER_ID

# Types worth compressing (images such as PNG are compressed already).
_TEXT_TYPES = ("text/", "application/javascript", "application/json", "image/svg+xml")
_APP_PAGES = re.compile(
    rf"^/(r/[A-Za-z0-9]{{5}}(/history)?|e/([A-Za-z0-9]{{5}}|new)|leaderboard|ladder|p/({PLAYER_ID}))/?$"
)
_TYPES = {
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".html": "text/html; charset=utf-8",
    ".svg": "image/svg+xml",
    ".json": "application/json",
    ".webmanifest": "application/manifest+json",
}
# Only same-origin code, styles and sockets: the page never loads anything from another host.
CSP = (
    "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
    "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)


@dataclass(frozen=True, slots=True)
class StaticFile:
    body: bytes
    gzip: bytes | None  # None: not worth compressing
    content_type: str
    etag: str


class StaticFiles:
    """Every file under a web root, keyed by its URL path (``/js/app.js``)."""

    def __init__(self, files: dict[str, StaticFile]) -> None:
        self.files = files

    @classmethod
    def load(cls, root: Path) -> StaticFiles:
        files: dict[str, StaticFile] = {}
        for path in sorted(root.rglob("*")):
            rel = path.relative_to(root)
            if not path.is_file() or any(part.startswith(".") for part in rel.parts):
                continue
            body = path.read_bytes()
            kind = _TYPES.get(path.suffix) or mimetypes.guess_type(path.name)[0]
            kind = kind or "application/octet-stream"
            packed = gzip.compress(body, 9, mtime=0) if kind.startswith(_TEXT_TYPES) else None
            if packed is not None and len(packed) >= len(body):
                packed = None
            etag = '"' + hashlib.sha256(body).hexdigest()[:20] + '"'
            files["/" + rel.as_posix()] = StaticFile(body, packed, kind, etag)
        return cls(files)

    def lookup(self, path: str) -> StaticFile | None:
        """The file for a URL path; the app's page for ``/`` and the app's own addresses."""
        if path in ("", "/") or _APP_PAGES.match(path):
            path = "/index.html"
        elif path == "/favicon.ico":
            path = "/favicon.svg"  # asked for by browsers on pages that name no icon (JSON, text)
        return self.files.get(path)


def accepts_gzip(accept_encoding: str) -> bool:
    """Whether an ``Accept-Encoding`` header allows gzip (and does not refuse it with q=0).

    >>> accepts_gzip("gzip, deflate, br"), accepts_gzip("br"), accepts_gzip("gzip;q=0")
    (True, False, False)
    """
    for item in accept_encoding.split(","):
        name, _, params = item.strip().partition(";")
        if name.strip().lower() in ("gzip", "*"):
            q = params.strip().removeprefix("q=")
            return not (params and q.replace(".", "").strip("0") == "")
    return False
