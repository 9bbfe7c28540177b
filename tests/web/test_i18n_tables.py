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


# European Portuguese forms a Brazilian player would not write: the progressive "a + infinitive"
# ("está a jogar", "A ligar…"), European words, and a pronoun after the verb for "you"
# ("removeu-o"). The pt table (and the pt rules pages) are Brazilian: "você", "baralho",
# "conectando", "pegar a pilha".
EUROPEAN = re.compile(
    r"\b(?:está|estão|estar|estou|a) a \w+(?:ar|er|ir)\b|\bA \w+(?:ar|er|ir)…"
    r"|\b(?:ligação|ligar|religar|apanh\w*|dador|carreg\w* (?:em|no|na)|ecrã|registo|demasiad\w*|"
    r"controlos|baralhação|por ler|equipa|secção|partilh\w*|esbatid\w*)\b"
    r"|\w-(?:o|a|lhe|lhes)\b",
    re.IGNORECASE,
)


def test_the_portuguese_is_brazilian() -> None:
    european = {k: v for k, v in table("pt").items() if EUROPEAN.search(v)}
    assert not european, european
    for key, word in {"table.yourTurn": "Sua vez", "net.connecting": "Conectando"}.items():
        assert word in table("pt")[key], key
    # and the rules pages too (their words only, not their markup)
    for page in sorted((WEB / "rules" / "pt").glob("*.html")):
        text = re.sub(r"<[^>]+>", " ", page.read_text("utf-8"))
        assert not EUROPEAN.findall(text), (page.name, EUROPEAN.findall(text))
        assert '<html lang="pt-BR">' in page.read_text("utf-8")


def test_leaster_and_blind_are_translated_in_portuguese_and_french() -> None:
    # the English words only as a gloss the first time a rules page names them
    for lang in ("pt", "fr"):
        left = {k: v for k, v in table(lang).items() if re.search(r"leaster|blind", v, re.I)}
        assert not left, (lang, left)
        text = re.sub(r"<[^>]+>", " ", (WEB / "rules" / lang / "sheepshead.html").read_text())
        words = re.findall(r"\b(?:leaster|blind)\b", text, re.I)
        assert sorted(w.lower() for w in words) == ["blind", "leaster"], (lang, words)
