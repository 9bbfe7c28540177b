"""The unit a room plays, for either game, behind one small interface: a Shithead series
(SH-6.5, open-ended) or a Sheepshead match of ten hands (SS-9.1).

A room's games are dealt fairly (:mod:`server.rules.deal`): game ``i``'s deck is the shuffle of
its server seed (:class:`DealSource`, from the server's secret) and the contributions its
players sent before it was dealt; the daily match's hands take no contributions (SS-9.2: every
player of the day gets the same cards). A match built from a ``seed`` instead (sims, tests) is
shuffled by Python's ``random`` and proves nothing.

A match is rebuilt from its record (how it was dealt, the contributions and every action of
every game), so a room can be persisted as plain data and restored on any server that has the
same secret.

>>> from server.rooms.seeds import Keys
>>> source = DealSource(Keys(bytes(32)), "ABCDE", "00")
>>> m = Match("shithead", 3, source=source, contributions=[None, bytes(32), None])
>>> m.current.phase, m.commitment(0) == source.proof(0, None, [], m.dealer_of(0)).commitment
('swap', True)
>>> Match.from_record(m.record(), source).current.deal_record() == m.current.deal_record()
True
"""

from __future__ import annotations

import datetime
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

from protocol.messages import GameOptions
from protocol.records import MatchMeta, MatchRecord
from protocol.views import EventWire
from server.rooms.event_deals import deal_seed
from server.rooms.seeds import Keys, process_keys
from server.rules.base import Action, Event, Game
from server.rules.deal import DealProof
from server.rules.registry import game_spec
from server.rules.series import Series, logs

Contributions = Sequence[bytes | None]

#: Events a match keeps for the room's log (sent to whoever joins or resumes): the last ones
#: only, so a long series holds a few kilobytes of them, not its whole history.
RECENT_EVENTS = 60


@dataclass(frozen=True, slots=True)
class DealSource:
    """Where a room's server seeds come from: the server's keys and the room's identity."""

    keys: Keys
    code: str
    nonce: str
    #: A duplicate table's event (its code and nonce) and round: its games are the event's
    #: deals, the same at every table of the round, without contributions.
    duplicate: tuple[str, str, int] | None = None

    def proof(
        self,
        game: int,
        daily: datetime.date | None,
        contributions: Contributions,
        dealer: int | None = None,
    ) -> DealProof:
        """Game ``game``'s seed, contributions and dealer (a daily hand's seed is the day's)."""
        if daily is not None:
            return DealProof(self.keys.daily(daily, game), (), dealer)
        if self.duplicate is not None:
            event, nonce, round_ = self.duplicate
            return DealProof(deal_seed(self.keys.event(event, nonce), round_, game), (), dealer)
        seed = self.keys.deal(self.code, self.nonce, game)
        return DealProof(seed, tuple(contributions), dealer)


class Match:
    """A series or match in progress (any :class:`~server.rules.series.Series` of the game
    registry); each of its games keeps its own action log, the only one."""

    def __init__(
        self,
        game: str,
        players: int,
        *,
        seed: int | None = None,
        daily: datetime.date | None = None,
        source: DealSource | None = None,
        contributions: Contributions = (),
        dealer: int = 0,
        options: GameOptions | None = None,
    ) -> None:
        """A match dealt fairly from ``source`` (the first game with ``contributions``), or
        from ``seed`` (sims, tests); a daily match is always dealt from keys (without a
        source, this process's). ``options``: the room's house rules (``None``: defaults).

        Raises:
            ValueError: neither a seed nor a source (and not daily), a bad seat count, or
                another game's options.
        """
        if daily is not None or seed is None:
            if source is None:
                if daily is None:
                    raise ValueError("a match is dealt from a deal source or a seed")
                source = DealSource(process_keys(), "", "")
            seed = None
        else:
            source = None
        self.game = game
        self.players = players
        self.seed = seed
        self.daily = daily
        self.source = source
        self.dealer = dealer
        self._contributions: list[tuple[bytes | None, ...]] = [self._clean(contributions)]
        self._commitments: dict[int, str] = {}
        # (game index, event): public facts only, as every seat was sent them
        self._recent: deque[tuple[int, EventWire]] = deque(maxlen=RECENT_EVENTS)
        spec = game_spec(game)
        self._cards = spec.cards
        self.options = spec.check_options(options)
        if self.source is None:
            self.series: Series = spec.new_series(
                players, seed=seed, daily=daily, options=self.options
            )
        else:
            self.series = spec.new_series(
                players, daily=daily, decks=self._deck, dealer=dealer, options=self.options
            )
        self._dealt()

    def _dealt(self) -> None:
        """Note the game the series deals now: :attr:`current` and :attr:`game_index` are
        plain attributes, set here whenever a game is dealt, since the room, its frames and its
        finished games read them some twenty times an action (a property each was a Python
        call every time)."""
        series = self.series
        #: The game being played (the last dealt).
        self.current: Game = series.current
        #: Index of the current game in the match (0 for the first).
        self.game_index: int = series.game_index

    @classmethod
    def create(
        cls, game: str, players: int, *, seed: int | None = None, daily: datetime.date | None = None
    ) -> Match:
        """A match dealt from ``seed`` (sims, tests), or a daily one from this process's keys
        (a room builds its fair matches itself)."""
        return cls(game, players, seed=seed, daily=daily)

    def _clean(self, contributions: Contributions) -> tuple[bytes | None, ...]:
        """A game's contributions, one per seat (none for a daily hand or a duplicate deal)."""
        if self.daily is not None or (self.source is not None and self.source.duplicate):
            return ()
        given = list(contributions)[: self.players]
        return tuple(given + [None] * (self.players - len(given)))

    def proof(self, game: int) -> DealProof | None:
        """Game ``game``'s seed and contributions (``None``: a seeded match, no proof)."""
        if self.source is None:
            return None
        return self.source.proof(game, self.daily, self._contributions[game], self.dealer_of(game))

    def dealer_of(self, game: int) -> int:
        """The dealer of game ``game``: the deal passes left each game (SH-2.1, SS-9), from
        seat 0 in the daily match (SS-9.2)."""
        first = 0 if self.daily is not None else self.dealer
        return (first + game) % self.players

    def commitment(self, game: int) -> str | None:
        """Game ``game``'s commitment: SHA-256 of its server seed and dealer (hex; ``None``: a
        seeded match)."""
        if self.source is None:
            return None
        known = self._commitments.get(game)
        if known is None:
            proof = self.source.proof(game, self.daily, (), self.dealer_of(game))
            known = self._commitments[game] = proof.commitment
        return known

    def _deck(self, game: int) -> list[int]:
        proof = self.proof(game)
        assert proof is not None  # only a match with a source deals from decks
        return proof.deck(self._cards)

    @property
    def match_length(self) -> int | None:
        """Games in the match, or ``None`` for an open-ended series."""
        return self.series.match_length

    def games_played(self) -> int:
        """Finished games, the current one included once over."""
        return self.series.games_played()

    def totals(self) -> list[int]:
        """Shithead: losses per seat (SH-6.5). Sheepshead: units per seat (SS-9.1)."""
        return self.series.totals()

    def is_over(self) -> bool:
        """Whether no further game can be started (a Sheepshead match after ten hands)."""
        return self.series.is_over()

    def apply(self, seat: int, action: Action, timed_out: bool = False) -> list[Event]:
        """Apply an action to the current game (raises :class:`IllegalAction`); its events
        are kept among the recent ones, the first (the move itself) marked ``timed_out`` when
        the server made the move for a person whose clock ran out."""
        events = self.current.apply(seat, action)
        if timed_out and events:
            first = events[0]
            events[0] = Event(
                first.kind, first.seat, first.cards, {**(first.data or {}), "timed_out": True}
            )
        game = self.game_index
        self._recent.extend((game, e.to_json()) for e in events)
        return events

    def recent(self) -> list[tuple[int, EventWire]]:
        """The last :data:`RECENT_EVENTS` events of the match, oldest first, with the index
        of the game each happened in (a match rebuilt from its record has them again, without
        the ``timed_out`` marks: the record keeps who moved, not why)."""
        return list(self._recent)

    def next_game(self, contributions: Contributions = ()) -> Game:
        """Deal the next game of the series or match with the players' ``contributions``
        (raises :class:`IllegalAction`: ``game_not_over`` or ``match_over``; nothing changes)."""
        self._contributions.append(self._clean(contributions))
        try:
            game = self.series.next_game()
        except Exception:
            self._contributions.pop()
            raise
        self._dealt()
        return game

    @property
    def logs(self) -> list[list[tuple[int, Action]]]:
        """The action log of every game so far, the current one last."""
        return logs(self.series)

    def meta(self) -> MatchMeta:
        """How the match was dealt and how many games it has begun, without the actions."""
        return {
            "game": self.game,
            "players": self.players,
            "seed": self.seed,
            "daily": self.daily.isoformat() if self.daily else None,
            "games": self.game_index + 1,
            "dealer": self.dealer,
            # each dealt game's contributions (hex, None: that seat sent none): they replay it
            "contributions": [[c.hex() if c else None for c in g] for g in self._contributions],
            "options": self.options.model_dump(),  # the house rules it is dealt under
        }

    def record(self) -> MatchRecord:
        """Everything needed to rebuild this match: :meth:`meta` plus every action."""
        return {
            **self.meta(),
            "logs": [[[seat, a.to_str()] for seat, a in log] for log in self.logs],
        }

    @classmethod
    def from_record(cls, record: MatchRecord, source: DealSource | None = None) -> Match:
        """Rebuild a match from :meth:`record`, or from :meth:`meta` plus ``logs`` (its
        ``source``: the room's; a seeded match needs none)."""
        day = record.get("daily")
        daily = datetime.date.fromisoformat(day) if day else None
        given = [
            [bytes.fromhex(c) if c else None for c in g] for g in record.get("contributions", [])
        ]
        match = cls(
            record["game"],
            record["players"],
            seed=record["seed"],
            daily=daily,
            source=source,
            contributions=given[0] if given else (),
            dealer=record.get("dealer", 0),
            # records from before house rules have none: the defaults
            options=game_spec(record["game"]).options.model_validate(record.get("options", {})),
        )
        saved = record["logs"]
        for i in range(max(len(saved), record.get("games", 1))):
            if i:
                match.next_game(given[i] if i < len(given) else ())
            for seat, text in saved[i] if i < len(saved) else ():
                match.apply(int(seat), Action.from_str(str(text)))
        return match
