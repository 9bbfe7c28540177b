"""Bots: policies that take a seat's view (exactly what a client of that seat receives) and
return an action. They never see the game state itself.

Importing this package registers every level of both games:

>>> make_bot("basic", "shithead").__class__.__name__
'ShitheadBasicBot'
>>> make_bot("strong", "sheepshead", seed=1).__class__.__name__
'SheepsheadStrongBot'
>>> make_bot("expert", "shithead", seed=1, seconds=0.5).seconds
0.5
"""

from server.bots.base import (
    BOT_LEVELS,
    DEFAULT_LEVEL,
    TIMED_LEVELS,
    Bot,
    RandomBot,
    make_bot,
    register,
)
from server.bots.sheepshead_basic import SheepsheadBasicBot
from server.bots.sheepshead_strong import SheepsheadExpertBot, SheepsheadStrongBot
from server.bots.shithead_basic import ShitheadBasicBot
from server.bots.shithead_strong import ShitheadExpertBot, ShitheadStrongBot
from server.rules.registry import GAME_NAMES

for _game in GAME_NAMES:
    register("random", _game, RandomBot)
register("basic", "shithead", ShitheadBasicBot)
register("basic", "sheepshead", SheepsheadBasicBot)
register("strong", "shithead", ShitheadStrongBot)
register("strong", "sheepshead", SheepsheadStrongBot)
register("expert", "shithead", ShitheadExpertBot)
register("expert", "sheepshead", SheepsheadExpertBot)

__all__ = [
    "BOT_LEVELS",
    "DEFAULT_LEVEL",
    "TIMED_LEVELS",
    "Bot",
    "RandomBot",
    "SheepsheadBasicBot",
    "SheepsheadExpertBot",
    "SheepsheadStrongBot",
    "ShitheadBasicBot",
    "ShitheadExpertBot",
    "ShitheadStrongBot",
    "make_bot",
]
