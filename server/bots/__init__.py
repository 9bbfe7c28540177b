"""Bots: policies that take a seat's view (exactly what a client of that seat receives) and
return an action. They never see the game state itself."""

from server.bots.base import BOT_LEVELS, Bot, make_bot

__all__ = ["BOT_LEVELS", "Bot", "make_bot"]
