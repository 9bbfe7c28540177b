"""Bots: policies that take a seat's view (exactly what a client of that seat receives) and
return an action. They never see the game state itself.

Importing this package registers every level of both games:

>>> make_bot("basic", "shithead").__class__.__name__
'ShitheadBasicBot'
>>> make_bot("strong", "sheepshead", seed=1).__class__.__name__
'SheepsheadStrongBot'
"""

from server.bots.base import BOT_LEVELS, DEFAULT_LEVEL, Bot, RandomBot, make_bot, register
from server.bots.sheepshead_basic import SheepsheadBasicBot
from server.bots.sheepshead_strong import SheepsheadStrongBot
from server.bots.shithead_basic import ShitheadBasicBot
from server.bots.shithead_strong import ShitheadStrongBot
from server.rules.registry import GAME_NAMES

for _game in GAME_NAMES:
    register("random", _game, RandomBot)
register("basic", "shithead", ShitheadBasicBot)
register("basic", "sheepshead", SheepsheadBasicBot)
register("strong", "shithead", ShitheadStrongBot)
register("strong", "sheepshead", SheepsheadStrongBot)

__all__ = [
    "BOT_LEVELS",
    "DEFAULT_LEVEL",
    "Bot",
    "RandomBot",
    "SheepsheadBasicBot",
    "SheepsheadStrongBot",
    "ShitheadBasicBot",
    "ShitheadStrongBot",
    "make_bot",
]
