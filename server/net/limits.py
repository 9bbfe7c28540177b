"""Per-connection limits: a token bucket for floods (the one rooms use too)."""

from __future__ import annotations

from server.rooms.limits import TokenBucket

__all__ = ["TokenBucket"]
