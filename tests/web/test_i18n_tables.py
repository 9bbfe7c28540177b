"""The four language tables (clients/web/i18n/LANG.json), read as data (no browser): every key
in every language with the same placeholders, every key the code uses, every server error code
and every hint reason the server gives as a sentence in every language."""

from __future__ import annotations

import json
import re
from functools import cache

from protocol.errors import ERROR_CODES
from server.bots import reasons
from tests.web.conftest import ROOT

LANGS = ["en", "ru", "pt", "fr"]
WEB = ROOT / "clients" / "web"
JS = WEB / "js"
PLACEHOLDER = re.compile(r"\{\w+\}")


@cache
def table(lang: str) -> dict[str, str]:
    data: dict[str, str] = json.loads((WEB / "i18n" / f"{lang}.json").read_text("utf-8"))
    return data


def test_one_table_per_language_the_client_offers() -> None:
    files = sorted(p.stem for p in (WEB / "i18n").glob("*.json"))
    assert files == sorted(LANGS)
    offered = re.search(r"export const LANGS = \[([^\]]*)\]", (JS / "i18n.js").read_text())
    assert offered and re.findall(r'"(\w+)"', offered.group(1)) == LANGS


def test_every_language_has_every_key_and_no_empty_text() -> None:
    keys = set(table("en"))
    assert len(keys) > 300
    for lang in LANGS:
        strings = table(lang)
        assert all(isinstance(v, str) for v in strings.values()), lang
        missing, extra = keys - set(strings), set(strings) - keys
        assert not missing and not extra, (lang, sorted(missing), sorted(extra))
        assert all(v.strip() for v in strings.values()), lang
        # the same placeholders in every translation
        for key, text in strings.items():
            wanted = set(PLACEHOLDER.findall(table("en")[key]))
            assert set(PLACEHOLDER.findall(text)) == wanted, (lang, key)
    # most of each table is really translated (names such as "Cardroom" may stay)
    for lang in ("ru", "pt", "fr"):
        same = [k for k in keys if table(lang)[k] == table("en")[k]]
        assert len(same) < len(keys) * 0.08, (lang, same)


def test_french_punctuation_never_starts_a_line() -> None:
    # French puts a non-breaking space before : ; ! ? so they never start a line alone
    plain = {k: v for k, v in table("fr").items() if re.search(r"[ \t][:;!?]", v)}
    assert not plain, plain
    assert "\u00a0:" in table("fr")["hint.ss_follow_suit"]


def test_every_key_the_code_uses_exists() -> None:
    keys = set(table("en"))
    used: set[str] = set()
    for path in JS.glob("*.js"):
        text = path.read_text()
        used |= set(re.findall(r"""\bt\(\s*["']([\w.]+)["']""", text))
        used |= set(re.findall(r"""["']((?:ev|ss|sh|table|home|lobby|net)\.\w+)["']""", text))
    used = {k for k in used if not k.endswith(".")}  # prefixes of keys built at run time
    assert used, "found no keys: the pattern is wrong"
    assert not used - keys, sorted(used - keys)
    # keys built at run time: levels, statuses, games, ranks and suits
    for prefix, names in {
        "level.": ["random", "basic", "strong"],
        "status.": ["lobby", "playing", "paused", "between", "over", "closed"],
        "game.": ["shithead", "sheepshead"],
        "rank.": list("23456789TJQKA"),
        "suit.": list("CDHS"),
    }.items():
        assert {prefix + n for n in names} <= keys, prefix


def test_every_server_error_code_is_a_sentence_in_every_language() -> None:
    codes = list(ERROR_CODES)  # the shared list the server refuses with
    assert len(codes) > 40
    for lang in LANGS:
        missing = [c for c in codes if "err." + c not in table(lang)]
        assert not missing, (lang, missing)


def test_every_hint_reason_the_server_gives_is_in_every_language() -> None:
    # the keys reasons.py can give (its Reason(...) literals), and the texts it shows
    source = (ROOT / "server" / "bots" / "reasons.py").read_text()
    given = set(re.findall(r"""["'](hint\.\w+)["']""", source))
    assert len(given) > 40 and given <= set(reasons.TEXTS)
    for lang in LANGS:
        missing = sorted(given - set(table(lang)))
        assert not missing, (lang, missing)
