"""Hostile-input fuzzing and long-running churn (``cardroom fuzz``, ``cardroom soak``).

Both speak only the wire protocol to a server on 127.0.0.1 and stop by themselves; each prints
its figures and exits non-zero when a check fails.
"""
