"""The conventions report of ``cardroom arena --conventions``: rates over the right chances,
intervals over deals, and a quick run with every level."""

from __future__ import annotations

import json

import pytest

from server.bots import BOT_LEVELS
from server.rules.base import Action
from server.tools import arena
from server.tools.conventions import Convention, Facet, chances
from server.tools.conventions_report import ConventionCounts, Line, Tally, count
from server.tools.intervals import ratio_interval
from tests.support.sheepshead_positions import TRICKS, called_ace_hand


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


def test_the_report_of_a_hand_made_hand_counts_each_lead_for_its_leaders_level() -> None:
    # the hand-made called-ace hand, its partner (seat 4) of one level, the rest of
    # another, tallied as the arena does (a tally per entry, count() per decision)
    game = called_ace_hand()
    levels = {s: "basic" for s in range(5)} | {4: "strong"}
    tallies: dict[str, Tally] = {"basic": {}, "strong": {}}
    for trick in TRICKS:
        for code in trick.split():
            seat = game.to_act()[0]
            action = Action.from_str(f"play {code}")
            count(tallies[levels[seat]], chances(game, seat, action))
            game.apply(seat, action)
    counts = ConventionCounts("sheepshead", {})
    for level, tally in tallies.items():
        counts.add(level, 0, tally)
    stats = counts.stats()

    def line(
        level: str, *facets: Facet, convention: Convention = Convention.LEAD_TRUMP
    ) -> tuple[int, int]:
        (entry,) = [
            e for e in stats[level]["lines"]
            if e["convention"] == convention and e["facets"] == sorted(facets)
        ]  # fmt: skip
        return entry["hits"], entry["chances"]

    # the partner leads twice, both trump (JH hidden at trick 2, 7D known at trick 5)
    assert line("strong", Facet.PARTNER) == (2, 2)
    assert line("strong", Facet.PARTNER, Facet.HIDDEN) == (1, 1)
    assert line("strong", Facet.PARTNER, Facet.KNOWN) == (1, 1)
    # the defenders: JD to trick 1 (with fail in hand, a choice), AS to trick 3 (fail)
    assert line("basic", Facet.DEFENDER, Facet.TRICK1) == (1, 1)
    assert line("basic", Facet.DEFENDER, Facet.TRICK1, convention=Convention.LEAD_TRUMP_CHOICE) == (
        1, 1
    )  # fmt: skip
    assert line("basic", Facet.DEFENDER, Facet.LATER) == (0, 1)
    # the picker: 7H (the called suit) at trick 4, JS at trick 6
    assert line("basic", Facet.PICKER) == (1, 2)
    assert line("basic", Facet.PICKER, convention=Convention.LEAD_CALLED) == (1, 1)
    # nobody of the other level's seats is counted on a level's lines
    assert not any(e["label"].startswith("defender") for e in stats["strong"]["lines"])
    assert not any(e["label"].startswith("partner") for e in stats["basic"]["lines"])
    # the rate is the hits over the chances of the line, in the deal it was counted in
    (mixed,) = [e for e in stats["basic"]["lines"] if e["label"] == "picker leads trump"]
    assert mixed["rate"] == 0.5 and mixed["deals"] == 1


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
