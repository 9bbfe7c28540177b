"""Cardroom clients: the async Python client library (the web and terminal clients live here too).

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
    "to_action_model",
]
