"""Rooms: a sans-I/O core (:mod:`server.rooms.core`) and the asyncio actor around it."""
