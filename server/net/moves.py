"""Moving an identity to another device with a one-time code (``move_code``, then
``move_claim`` on the other device; :mod:`server.store.move_codes` keeps the codes).

The other device is given the same device token, not a new one mapped to the same player: a
player is the digest of their token everywhere (boards, seats, bans, daily claims, ratings), so
a mapping would be one more table every one of those reads, and one a client could add entries
to. Tokens are never revoked either way (they are signed, not stored), so a copy is no weaker
than a mapping. What guards it: only a connection holding an identity the server issued may
ask for a code; a code is eight characters of 31 (40 bits), works once and for ten minutes;
asking and guessing spend one budget per address (``--move-rate``, ``--move-burst``).
"""

from __future__ import annotations

from protocol import messages as m
from protocol.errors import ErrorCode
from server.rooms.refusal import Refusal
from server.store.budgets import AddressBudget
from server.store.leaderboard import player_id
from server.store.move_codes import MoveCodes


class IdentityMoves:
    """Answers ``move_code`` and ``move_claim`` for the server."""

    def __init__(self, codes: MoveCodes, budget: AddressBudget) -> None:
        self.codes = codes
        self.budget = budget
        self.moved = 0  # identities brought to another device

    async def offer(self, msg: m.MoveCode, device: str | None, address: str) -> m.MoveOffer:
        """A code for ``device``, the identity of the asking connection.

        Raises:
            Refusal: ``no_identity`` (the connection has none the server issued),
                ``rate_limited`` (over the address's budget).
        """
        if device is None:
            why = "this connection has no identity the server issued: nothing to move"
            raise Refusal(ErrorCode.NO_IDENTITY, why)
        await self._spend(address)
        code, expires = await self.codes.issue(device)
        return m.MoveOffer(ref=msg.id, code=code, expires=expires)

    async def claim(self, msg: m.MoveClaim, address: str) -> m.Identity:
        """The identity ``msg.code`` was issued for, once.

        Raises:
            Refusal: ``bad_move_code`` (no such live code: unknown, used or expired, said
                alike), ``rate_limited`` (over the address's budget of guesses).
        """
        await self._spend(address)
        device = await self.codes.claim(msg.code)
        if device is None:
            raise Refusal(ErrorCode.BAD_MOVE_CODE, "that code is unknown, used or expired")
        self.moved += 1
        return m.Identity(ref=msg.id, device=device, player=player_id(device))

    async def _spend(self, address: str) -> None:
        if not await self.budget.take(address):
            why = "too many identity codes asked or tried from your address; wait a minute"
            raise Refusal(ErrorCode.RATE_LIMITED, why)
