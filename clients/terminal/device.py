"""This machine's device token: the name under which its player's finished games are ranked.

Kept in the user's config folder (``$XDG_CONFIG_HOME/cardroom/device``, else
``~/.config/cardroom/device``), made on first use, so one person keeps one place on the
leaderboards from run to run, as a browser keeps its own token.

>>> import tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> token = device_token(folder)
>>> device_token(folder) == token and len(token) >= 16
True
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from pydantic import TypeAdapter, ValidationError

from protocol.messages import DeviceToken

_TOKEN: TypeAdapter[str] = TypeAdapter(DeviceToken)


def config_folder() -> Path:
    """Where the terminal client keeps its files."""
    base = os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config"
    return Path(base) / "cardroom"


def device_token(folder: Path | None = None) -> str:
    """The token kept in ``folder`` (default :func:`config_folder`), made there if missing.

    A folder that cannot be written (a read-only home) still gives a token, for this run only.
    """
    path = (folder or config_folder()) / "device"
    try:
        return _TOKEN.validate_python(path.read_text().strip())
    except (OSError, ValidationError):
        pass  # none yet, or not one of ours: make a new one
    token = secrets.token_urlsafe(24)  # 32 characters of A-Z a-z 0-9 - _
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch(mode=0o600)
        path.write_text(token + "\n")
    except OSError:
        pass
    return token


def keep_device(token: str, folder: Path | None = None) -> None:
    """Keep ``token``, the identity the server issued (only such a one ranks), for next time."""
    path = (folder or config_folder()) / "device"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch(mode=0o600)
        path.write_text(token + "\n")
    except OSError:
        pass  # a read-only home: issued again next run
