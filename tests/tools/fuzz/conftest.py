"""The server fixtures of the server tests: a real server on a loopback port."""

from tests.support.server import server, store

__all__ = ["server", "store"]
