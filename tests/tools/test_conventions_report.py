"""The conventions report of ``cardroom arena --conventions``: rates over the right chances,
intervals over deals, and a quick run with every level."""

from __future__ import annotations

import json

import pytest

from server.bots import BOT_LEVELS
from server.tools import arena
from server.tools.conventions import Convention, Facet
from server.tools.conventions_report import ConventionCounts, Line
from server.tools.intervals import ratio_interval


def test_a_line_counts_only_the_chances_with_its_facets() -> None:
    tally = {
        "lead_trump|partner|hidden|later": [3, 4],
        "lead_trump|defender|hidden|trick1": [1, 10],
        "lead_trump_choice|partner|hidden|later": [3, 3],
    }
    line = Line("partner leads trump", Convention.LEAD_TRUMP, frozenset({Facet.PARTNER}))
    assert line.counts(tally) == (3, 4)  # not the defender's leads, not the choice chances
    first = Line("d", Convention.LEAD_TRUMP, frozenset({Facet.DEFENDER, Facet.TRICK1}))
    assert first.counts(tally) == (1, 10)


def test_more_rotations_of_the_same_deals_do_not_narrow_the_interval() -> None:
    once = [(1, 2), (0, 2), (2, 2), (1, 1)]
    five_times = [(5 * h, 5 * c) for h, c in once]  # every rotation played the same
    assert ratio_interval(five_times) == pytest.approx(ratio_interval(once))


def test_the_deals_are_the_clusters_not_the_leads() -> None:
    # 20 deals, 6 leads each, all trump in half the deals and none in the others: as leads
    # (120 independent ones) the interval would be ± 9 %; as 20 clusters it is ± 22 %
    deals = [(6, 6)] * 10 + [(0, 6)] * 10
    rate, lo, hi = ratio_interval(deals)
    assert rate == 0.5
    assert hi - lo > 0.4


def test_counts_pool_per_level_and_deal() -> None:
    counts = ConventionCounts("sheepshead", {})
    counts.add("basic", 0, {"lead_trump|partner|hidden|later": [1, 1]})
    counts.add("basic", 0, {"lead_trump|partner|hidden|later": [0, 1]})
    counts.add("basic", 1, {})
    stats = counts.stats()["basic"]
    assert stats["deals"] == 2
    assert stats["counts"] == {"lead_trump|partner|hidden|later": [1, 2]}
    (line,) = [e for e in stats["lines"] if e["label"] == "partner on lead leads trump"]
    assert (line["hits"], line["chances"], line["deals"]) == (1, 2, 1)
    assert line["per_deal"] == [(1, 2), (0, 0)]  # runs on other seeds pool over deals


@pytest.mark.slow
@pytest.mark.parametrize(
    ("game", "seats", "options"),
    [
        ("sheepshead", "expert,strong,basic,random,basic", None),
        ("sheepshead", "expert,strong,basic,random,basic", {"partner": "jack_of_diamonds"}),
        ("sheepshead", "strong,basic,basic,random,basic", {"no_pick": "leaster", "crack": True}),
        ("shithead", "expert,strong,basic,random", None),
        ("shithead", "basic,random,basic", {"three_invisible": True, "seven_lower": True}),
    ],
)
def test_a_quick_report_with_every_level(
    game: str, seats: str, options: dict[str, object] | None, capsys: pytest.CaptureFixture[str]
) -> None:
    levels = seats.split(",")
    argv = [game, "--seats", seats, "--hands", str(len(levels)), "--seed", "3", "--seconds"]
    argv += ["0.01", "--conventions", "--json", "--no-progress"]
    if game == "shithead":  # bounded (strong's search is the slow part): capped games count too
        argv += ["--cap", "16"]
    if options:
        argv += ["--options", json.dumps(options)]
    assert arena.main(argv) == 0
    text, data = capsys.readouterr().out.rsplit("\n", 2)[:2]
    report = json.loads(data)["conventions"]
    assert "conventions (% of chances, 95% CI over deals):" in text
    assert set(report) == set(levels)
    assert set(levels) <= set(BOT_LEVELS)
    for level in report.values():
        assert level["deals"] == 1
        for line in level["lines"]:
            assert 0 <= line["hits"] <= line["chances"]
            lo, hi = line["ci95"]
            assert 0.0 <= lo <= line["rate"] <= hi <= 1.0
    if game == "sheepshead":
        # every lead of every played hand is one lead_trump chance of its leader
        leads = sum(
            c for level in report.values() for key, (_, c) in level["counts"].items()
            if key.startswith("lead_trump|")
        )  # fmt: skip
        assert leads == 6 * len(levels)


@pytest.mark.slow
def test_the_report_does_not_depend_on_jobs() -> None:
    # the tallies travel back from the worker processes with each game's record
    seats = ["basic", "random", "basic", "random", "basic"]
    one = arena.run("sheepshead", seats, 10, seed=4, conventions=True).stats()["conventions"]
    two = arena.run("sheepshead", seats, 10, seed=4, jobs=2, conventions=True).stats()
    assert two["conventions"] == one
    assert "conventions" not in arena.run("sheepshead", seats, 5, seed=4).stats()
