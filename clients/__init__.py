"""Cardroom clients: the async Python client library (``docs/clients.md``), and the terminal
client (``clients.terminal``, ``cardroom play``).

Clients speak only the wire format of :mod:`protocol`; they never import ``server``.
"""

from clients.client import (
    CardroomClient,
    CardroomError,
    ClientError,
    ClientStateError,
    ConnectionLost,
    ReplyTimeout,
    UnexpectedReply,
    action_text,
    room_url,
    to_action_model,
)

__all__ = [
    "CardroomClient",
    "CardroomError",
    "ClientError",
    "ClientStateError",
    "ConnectionLost",
    "ReplyTimeout",
    "UnexpectedReply",
    "action_text",
    "room_url",
    "to_action_model",
]
