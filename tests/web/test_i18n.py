"""Four languages: complete tables, every key the code uses, every server error code as a
sentence, the language chosen from the browser and switchable, and a rules page for each."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import BrowserContext, Page

from protocol.errors import ERROR_CODES
from tests.web.conftest import ROOT, LiveServer, create_room, watch_errors

LANGS = ["en", "ru", "pt", "fr"]
JS = ROOT / "clients" / "web" / "js"


def tables(page: Page) -> dict[str, dict[str, str]]:
    data: dict[str, dict[str, str]] = page.evaluate("import('/js/i18n.js').then(m => m.STRINGS)")
    return data


@pytest.fixture
def home(live: LiveServer, new_context: Callable[..., BrowserContext]) -> Page:
    page = new_context().new_page()
    page.goto(live.base + "/")
    page.wait_for_selector(".home")
    return page


def test_every_language_has_every_key_and_no_empty_text(home: Page) -> None:
    strings = tables(home)
    assert sorted(strings) == sorted(LANGS)
    keys = set(strings["en"])
    for lang in LANGS:
        missing = keys - set(strings[lang])
        extra = set(strings[lang]) - keys
        assert not missing and not extra, (lang, sorted(missing), sorted(extra))
        assert all(v.strip() for v in strings[lang].values()), lang
        # the same placeholders in every translation
        for key, text in strings[lang].items():
            wanted = set(re.findall(r"\{\w+\}", strings["en"][key]))
            assert set(re.findall(r"\{\w+\}", text)) == wanted, (lang, key)
    # most of each table is really translated (names such as "Cardroom" may stay)
    for lang in ("ru", "pt", "fr"):
        same = [k for k in keys if strings[lang][k] == strings["en"][k]]
        assert len(same) < len(keys) * 0.08, (lang, same)


def test_every_key_the_code_uses_exists(home: Page) -> None:
    keys = set(tables(home)["en"])
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


def test_every_server_error_code_is_a_sentence_in_every_language(home: Page) -> None:
    codes = list(ERROR_CODES)  # the shared list the server refuses with
    assert len(codes) > 40
    strings = tables(home)
    for lang in LANGS:
        missing = [c for c in codes if "err." + c not in strings[lang]]
        assert not missing, (lang, missing)
    # and the page shows the sentence, not the code
    home.fill("#name", "Ann")
    home.fill("#code", "ZZZZ9")
    home.click('#join-form button[type="submit"]')
    home.wait_for_selector(".toast.show")
    assert home.inner_text("#toast") == strings["en"]["err.room_not_found"]


def test_language_follows_the_browser_and_can_be_switched(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    seen: dict[str, Any] = {}
    for lang, locale in (("ru", "ru-RU"), ("pt", "pt-BR"), ("fr", "fr-CA"), ("en", "de-DE")):
        page = new_context(locale=locale).new_page()
        page.goto(live.base + "/")
        page.wait_for_selector(".home")
        assert page.evaluate("document.documentElement.lang") == lang
        seen[lang] = page.inner_text(".home")
    assert len(set(seen.values())) == 4
    # switched by hand, remembered across a reload
    page = new_context(locale="en-US").new_page()
    errors = watch_errors(page)
    create_room(page, live.base, "Zoé", "shithead", seats=2)
    english = page.inner_text("#main")
    page.select_option("#lang", "fr")
    page.wait_for_function("() => document.documentElement.lang === 'fr'")
    assert page.inner_text("#main") != english
    assert "Invitez vos amis" in page.inner_text("#main")
    page.reload()
    page.wait_for_selector(".lobby")
    assert page.evaluate("document.documentElement.lang") == "fr"
    assert not errors


@pytest.mark.parametrize("lang", LANGS)
def test_a_rules_page_for_each_game_in_each_language(
    lang: str, live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    page = new_context(locale=lang).new_page()
    page.goto(live.base + "/")
    page.wait_for_selector(".home")
    links = page.eval_on_selector_all(".links a", "els => els.map(e => e.getAttribute('href'))")
    assert links == [f"/rules/{lang}/shithead.html", f"/rules/{lang}/sheepshead.html"]
    for href in links:
        assert (ROOT / "clients" / "web" / href.lstrip("/")).is_file(), href
        response = page.goto(live.base + href)
        assert response is not None and response.status == 200
        assert page.evaluate("document.documentElement.lang") == lang
        assert len(page.inner_text("body")) > 2000
