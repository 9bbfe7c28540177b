"""Play now's grouping, sans I/O: the people waiting for one game go in (each with the time
they queued, a skill and the origin they came from), tables come out, given ``now``.

The rule, oldest first: the person who has waited longest anchors a table and takes the
others whose skills are closest to theirs, as long as the gap stays within what the anchor's
wait allows (:meth:`Widening.gap`: ``start`` plus ``per_second`` for every second waited, so a
long wait accepts a wider spread), and never two people of one origin (a keyed digest of an
address: two identities from one address never sit at one table). A full table goes at once;
once the anchor has waited ``fill_wait`` seconds, the table goes with the people found and bots
in the empty seats. Then the next oldest person not yet placed anchors, and so on.

>>> rules = Rules(size=2, fill_wait=20.0)
>>> people = [Waiting("ann", 0.0, 0.0, "a"), Waiting("bob", 1.0, 3.0, "b")]
>>> [t.players for t in group(people, 2.0, rules)]
[('ann', 'bob')]
>>> group([Waiting("ann", 0.0, 0.0, "a")], 5.0, rules)
[]
>>> group([Waiting("ann", 0.0, 0.0, "a")], 20.0, rules)
[Table(players=('ann',), bots=1)]
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Waiting:
    """One person in the queue: who (their player id), since when (unix seconds), their
    skill on the ratings' displayed scale, and the origin digest of their address."""

    player: str
    since: float
    skill: float = 0.0
    origin: str | None = None


@dataclass(frozen=True, slots=True)
class Widening:
    """The skill gap a table accepts around the person who waited longest: ``start`` at once,
    ``per_second`` more for each second waited.

    >>> Widening(start=5.0, per_second=2.5).gap(4.0)
    15.0
    """

    # on the ratings' displayed scale (40 per OpenSkill unit, a newcomer's 0 is 3 sigmas
    # below their mean, one sigma 333): a close table at once, anyone within a new player's
    # uncertainty by the fill wait
    start: float = 50.0
    per_second: float = 25.0

    def gap(self, waited: float) -> float:
        return self.start + self.per_second * max(0.0, waited)


@dataclass(frozen=True, slots=True)
class Rules:
    """A game's table: its ``size``, the seconds after which a table starts with bots in the
    seats nobody took (``fill_wait``), and how the accepted gap widens."""

    size: int
    fill_wait: float = 20.0
    widening: Widening = field(default_factory=Widening)


@dataclass(frozen=True, slots=True)
class Reserved:
    """A seat of a table held for a person until they resume with their token: the name
    they sit with, the token's digest, and their device and origin digests."""

    name: str
    token_sha256: str
    device: str | None
    origin: str | None


@dataclass(frozen=True, slots=True)
class Table:
    """A table to open: its people (the anchor first, then the closest skills) and how many
    bots fill it."""

    players: tuple[str, ...]
    bots: int


def group(people: Iterable[Waiting], now: float, rules: Rules) -> list[Table]:
    """The tables ready at ``now`` among ``people`` (each person in one table at most).

    >>> rules = Rules(size=3, fill_wait=10.0, widening=Widening(start=1.0, per_second=0.0))
    >>> far = [Waiting("a", 0.0, 0.0, "x"), Waiting("b", 0.0, 50.0, "y")]
    >>> group(far, 9.0, rules), group(far, 10.0, rules)[0].bots
    ([], 2)
    """
    waiting = sorted(people, key=lambda w: (w.since, w.player))
    placed: set[str] = set()
    tables: list[Table] = []
    for anchor in waiting:
        if anchor.player in placed:
            continue
        waited = now - anchor.since
        gap = rules.widening.gap(waited)
        near = sorted(
            (w for w in waiting if w.player not in placed and w.player != anchor.player),
            key=lambda w: (abs(w.skill - anchor.skill), w.since, w.player),
        )
        chosen = [anchor]
        origins = {anchor.origin} if anchor.origin else set()
        for other in near:
            if len(chosen) == rules.size or abs(other.skill - anchor.skill) > gap:
                break
            if other.origin is not None and other.origin in origins:
                continue
            chosen.append(other)
            if other.origin:
                origins.add(other.origin)
        if len(chosen) == rules.size or waited >= rules.fill_wait:
            tables.append(Table(tuple(w.player for w in chosen), rules.size - len(chosen)))
            placed.update(w.player for w in chosen)
    return tables
