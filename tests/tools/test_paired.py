"""``python -m server.tools.paired``: every arena game twice, the first entry's level as
registered and as another bot, compared over deals (is today's strong as strong as the old
one?)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from server.tools.arena import play_one
from server.tools.paired import Pair, comparison, load_bot, main, play_pair


def test_the_other_bot_plays_the_first_entrys_level_on_the_same_deal_and_seeds(
    tmp_path: Path,
) -> None:
    # an "older version" saved to a file, as `git show REV:path > old.py` would
    old = tmp_path / "old_basic.py"
    old.write_text(
        "from server.bots.shithead_basic import ShitheadBasicBot\n"
        "class OldBasic(ShitheadBasicBot):\n"
        "    pass\n"
    )
    spec = f"{old}:OldBasic"
    assert load_bot(spec).__name__ == "OldBasic"
    pairs = [play_pair("shithead", ["random", "basic"], i, 5, spec) for i in range(16)]
    # the registered side is the arena's own game, seed for seed
    for p in pairs[:4]:
        arena = play_one("shithead", ["random", "basic"], p.index, 5, 3000, conventions=True)
        assert p.games[0]["result"] == arena.units[0]
        assert p.games[0]["conventions"] == arena.conventions[0]
    c = comparison(pairs)
    # random loses nearly every heads-up game against basic; basic in its place does not
    assert c["registered"]["mean"] > 0.8
    assert c["difference"]["deals"] == 8
    assert c["difference"]["ci95"][1] < -0.3


def test_chunks_written_as_json_lines_pool_to_the_same_figures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    against = "server.bots.shithead_basic:ShitheadBasicBot"
    args = ["shithead", "--seats", "random,basic", "--against", against, "--seed", "2"]
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    assert main([*args, "--hands", "4", "--out", str(first)]) == 0
    assert main([*args, "--hands", "4", "--first", "4", "--out", str(second)]) == 0
    capsys.readouterr()
    assert main(["shithead", "--pool", f"{first},{second}", "--json"]) == 0
    pooled = json.loads(capsys.readouterr().out.splitlines()[-1])
    whole = comparison(
        [play_pair("shithead", ["random", "basic"], i, 2, against) for i in range(8)]
    )
    assert pooled["pairs"] == 8
    assert pooled["difference"]["mean"] == pytest.approx(whole["difference"]["mean"])
    assert pooled["difference"]["ci95"] == pytest.approx(list(whole["difference"]["ci95"]))
    line = json.loads(first.read_text().splitlines()[0])
    assert Pair.from_json(line).results == (line["games"][0]["result"], line["games"][1]["result"])


@pytest.mark.parametrize(
    "bad",
    [
        ["--seats", "random,basic", "--against", "no_such_module:Bot"],
        ["--seats", "random,basic", "--against", "server.bots.shithead_basic"],
        ["--seats", "random,nobody", "--against", "server.bots.base:RandomBot"],
        ["--seats", "random"],
    ],
)
def test_a_bad_command_line_is_refused_with_a_message(
    bad: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["shithead", *bad])
    assert exit_.value.code == 2
    assert "server.tools.paired" in capsys.readouterr().err
