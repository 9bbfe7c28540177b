"""``cardroom play``: a terminal client for Cardroom built on Textual, for both games.

Modules: :mod:`~clients.terminal.cards` (cards in colour), :mod:`~clients.terminal.describe`
(log lines for events), :mod:`~clients.terminal.moves` (what the player can do now, from the
view), :mod:`~clients.terminal.tables` (the lobby and the two tables as text),
:mod:`~clients.terminal.widgets` (the hand) and :mod:`~clients.terminal.app` (the screens).
Like every client, it speaks only the protocol: it imports nothing from ``server``.
"""
