"""The conventions report of ``cardroom arena --conventions``: counts per level and deal, rates
with intervals over deals, the table and its JSON.

A game's tally maps each chance key (:attr:`~server.tools.conventions.Chance.key`) to
``[hits, chances]``. The plays of one deal are not independent (the same cards, five rotations,
several leads in one hand), so each rate's interval is over deals
(:func:`~server.tools.intervals.ratio_interval`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from server.tools.conventions import Chance, Convention, Facet
from server.tools.intervals import ratio_interval

#: ``key -> [hits, chances]``
Tally = dict[str, list[int]]


def count(tally: Tally, found: Iterable[Chance]) -> None:
    """Count ``found`` into ``tally``."""
    for chance in found:
        entry = tally.setdefault(chance.key, [0, 0])
        entry[0] += chance.hit
        entry[1] += 1


def merge(into: Tally, tally: Mapping[str, list[int]]) -> None:
    """Add ``tally``'s counts to ``into``."""
    for key, (h, c) in tally.items():
        entry = into.setdefault(key, [0, 0])
        entry[0] += h
        entry[1] += c


@dataclass(frozen=True, slots=True)
class Line:
    """One row of the report: the chances of ``convention`` that have every facet of ``facets``."""

    label: str
    convention: Convention
    facets: frozenset[Facet]

    def counts(self, tally: Mapping[str, list[int]]) -> tuple[int, int]:
        hits = total = 0
        for key, (h, c) in tally.items():
            convention, *facets = key.split("|")
            if convention == self.convention and self.facets <= set(facets):
                hits += h
                total += c
        return hits, total


def _line(label: str, convention: Convention, *facets: Facet) -> Line:
    return Line(label, convention, frozenset(facets))


C, F = Convention, Facet
SHEEPSHEAD_LINES: tuple[Line, ...] = (
    _line("partner on lead leads trump", C.LEAD_TRUMP, F.PARTNER),
    _line("  not yet known: reveals by it", C.LEAD_TRUMP, F.PARTNER, F.HIDDEN),
    _line("    with trump and fail in hand", C.LEAD_TRUMP_CHOICE, F.PARTNER, F.HIDDEN),
    _line("  already known", C.LEAD_TRUMP, F.PARTNER, F.KNOWN),
    _line("  with trump and fail in hand", C.LEAD_TRUMP_CHOICE, F.PARTNER),
    _line("defender leads trump to trick 1", C.LEAD_TRUMP, F.DEFENDER, F.TRICK1),
    _line("  with trump and fail in hand", C.LEAD_TRUMP_CHOICE, F.DEFENDER, F.TRICK1),
    _line("defender leads trump, later tricks", C.LEAD_TRUMP, F.DEFENDER, F.LATER),
    _line("  with trump and fail in hand", C.LEAD_TRUMP_CHOICE, F.DEFENDER, F.LATER),
    _line("picker leads trump", C.LEAD_TRUMP, F.PICKER),
    _line("  with trump and fail in hand", C.LEAD_TRUMP_CHOICE, F.PICKER),
    _line("  alone", C.LEAD_TRUMP, F.PICKER, F.ALONE),
    _line("picker leads the called suit", C.LEAD_CALLED, F.PICKER),
    _line("defender leads the called suit", C.LEAD_CALLED, F.DEFENDER),
    _line("partner schmears A/10 on the picker's trick", C.SCHMEAR, F.PARTNER),
    _line("  the trick sure", C.SCHMEAR, F.PARTNER, F.SURE),
    _line("picker schmears on the partner's trick", C.SCHMEAR, F.PICKER),
    _line("  the trick sure", C.SCHMEAR, F.PICKER, F.SURE),
    _line("defender schmears on a defender's trick", C.SCHMEAR, F.DEFENDER),
    _line("  the trick sure", C.SCHMEAR, F.DEFENDER, F.SURE),
    _line("  partner known", C.SCHMEAR, F.DEFENDER, F.KNOWN),
    _line("  partner not yet known", C.SCHMEAR, F.DEFENDER, F.HIDDEN),
    _line("leaster: leads trump", C.LEAD_TRUMP, F.LEASTER),
)
SHITHEAD_LINES: tuple[Line, ...] = (
    _line("plays a 2 when an ordinary card plays", C.WASTE_TWO),
    _line("plays a 10 when an ordinary card plays", C.WASTE_TEN),
    _line("plays a glass 3 when an ordinary card plays", C.WASTE_GLASS),
    _line("plays any special when an ordinary card plays", C.WASTE_SPECIAL),
    _line("  while the stock lasts", C.WASTE_SPECIAL, F.STOCK),
    _line("  stock gone", C.WASTE_SPECIAL, F.NO_STOCK),
    _line("picks up when a play was legal", C.PICKUP_WITH_PLAY),
    _line("  an ordinary card played (not only a 2 or 10)", C.PICKUP_WITH_PLAY, F.ORDINARY_PLAYS),
    _line("  from the face-up cards", C.PICKUP_WITH_PLAY, F.FACE_UP),
    _line("pick-ups that were forced", C.PICKUP_FORCED),
    _line("plays a higher ordinary rank than needed", C.OVERPLAY),
    _line("plays two or more 2s or 10s at once", C.SPECIAL_DOUBLED),
)
LINES = {"sheepshead": SHEEPSHEAD_LINES, "shithead": SHITHEAD_LINES}


@dataclass
class ConventionCounts:
    """Tallies per level and deal: ``by_deal[level][deal] = tally``."""

    game: str
    by_deal: dict[str, dict[int, Tally]]

    def add(self, level: str, deal: int, tally: Mapping[str, list[int]]) -> None:
        merge(self.by_deal.setdefault(level, {}).setdefault(deal, {}), tally)

    def _rows(self, deals: Mapping[int, Tally]) -> list[tuple[Line, dict[str, Any]]]:
        rows = []
        for line in LINES[self.game]:
            # deals in order: --jobs delivers them as they finish
            per_deal = [line.counts(deals[d]) for d in sorted(deals)]
            total = sum(c for _, c in per_deal)
            if total == 0:
                continue
            rate, lo, hi = ratio_interval(per_deal)
            entry = {
                "label": line.label.strip(),
                "convention": str(line.convention),
                "facets": sorted(line.facets),
                "hits": sum(h for h, _ in per_deal),
                "chances": total,
                "deals": sum(1 for _, c in per_deal if c),
                "rate": rate,
                "ci95": (lo, hi),
                # each deal's (hits, chances), so that runs on other seeds can be pooled
                "per_deal": per_deal,
            }
            rows.append((line, entry))
        return rows

    def stats(self) -> dict[str, Any]:
        """Per level: every report line with chances (rate, interval, counts) and the totals
        per key (``key -> [hits, chances]``)."""
        out: dict[str, Any] = {}
        for level, deals in self.by_deal.items():
            totals: Tally = {}
            for tally in deals.values():
                merge(totals, tally)
            out[level] = {
                "deals": len(deals),
                "lines": [entry for _, entry in self._rows(deals)],
                "counts": dict(sorted(totals.items())),
            }
        return out

    def format(self) -> str:
        rows = ["conventions (% of chances, 95% CI over deals):"]
        for level, deals in self.by_deal.items():
            rows.append(f"  {level} ({len(deals)} deals)")
            for line, e in self._rows(deals):
                lo, hi = e["ci95"]
                rows.append(
                    f"    {line.label:<48} {100 * e['rate']:5.1f} % "
                    f"({100 * lo:5.1f} .. {100 * hi:5.1f}) of {e['chances']}"
                )
        return "\n".join(rows)
