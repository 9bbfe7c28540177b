"""Cardroom's wire format: card codes and (later) the pydantic messages of both directions.

This package imports nothing from ``server`` so that clients can depend on it alone. Keep this
``__init__`` free of heavy imports: the rules core imports :mod:`protocol.cards`.
"""
