"""Shared test settings."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "default", deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=False
)
settings.register_profile(
    "ci", deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
# CI sets CI=true: the same examples on every run, so a red build is reproducible
settings.load_profile("ci" if os.environ.get("CI", "").lower() in ("true", "1") else "default")
