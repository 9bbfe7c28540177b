"""Four languages in the page: each table fetched only when chosen (English for a key it
lacks), a server error code shown as a sentence, the language chosen from the browser and
switchable, and a rules page for each. The tables themselves: test_i18n_tables.py."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import BrowserContext, Page

from tests.web.conftest import ROOT, LiveServer, create_room, watch_errors

pytestmark = pytest.mark.slow

LANGS = ["en", "ru", "pt", "fr"]
# the page's lang attribute a language: the Portuguese is Brazilian
TAGS = {"en": "en", "ru": "ru", "pt": "pt-BR", "fr": "fr"}


def table(lang: str) -> dict[str, str]:
    data: dict[str, str] = json.loads((ROOT / "clients/web/i18n" / f"{lang}.json").read_text())
    return data


@pytest.fixture
def home(live: LiveServer, new_context: Callable[..., BrowserContext]) -> Page:
    page = new_context().new_page()
    page.goto(live.base + "/")
    page.wait_for_selector(".home")
    return page


def test_the_page_shows_a_server_error_code_as_a_sentence(home: Page) -> None:
    # the table checks are plain tests (test_i18n_tables.py); here the page uses its table
    home.fill("#name", "Ann")
    home.fill("#code", "ZZZZ9")
    home.click('#join-form button[type="submit"]')
    home.wait_for_selector("#join-note:not([hidden])")  # beside the form, not a toast
    assert home.inner_text("#join-note") == table("en")["err.room_not_found"]


def test_only_the_chosen_language_is_fetched(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    ctx = new_context(locale="pt-BR")
    asked: list[str] = []  # what the page asks for (its service worker keeps copies of them)
    ctx.on(
        "request",
        lambda r: asked.append(urlsplit(r.url).path) if r.service_worker is None else None,
    )
    page = ctx.new_page()
    errors = watch_errors(page)
    page.goto(live.base + "/")
    page.wait_for_selector(".home")
    assert table("pt")["home.create"] in (page.text_content(".home") or "")
    assert [p for p in asked if p.startswith("/i18n/")] == ["/i18n/pt.json"]
    # switched: the new language's table, once, and nothing else
    page.select_option("#lang", "ru")
    page.wait_for_function("() => document.documentElement.lang === 'ru'")
    assert table("ru")["home.create"] in (page.text_content(".home") or "")
    page.select_option("#lang", "pt")
    page.wait_for_function("() => document.documentElement.lang === 'pt-BR'")
    assert [p for p in asked if p.startswith("/i18n/")] == ["/i18n/pt.json", "/i18n/ru.json"]
    assert not errors


def test_a_key_missing_from_a_table_is_shown_in_english(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    # a French table without one key (an older file, say): that text comes from English
    lacking = {k: v for k, v in table("fr").items() if k != "home.create"}
    ctx = new_context(locale="fr-FR")
    ctx.route(
        "**/i18n/fr.json",
        lambda route: route.fulfill(
            status=200, content_type="application/json", body=json.dumps(lacking)
        ),
    )
    page = ctx.new_page()
    errors = watch_errors(page)
    page.goto(live.base + "/")
    page.wait_for_selector(".home")
    button = '#create-form button[type="submit"]'
    page.wait_for_function(
        "([sel, text]) => document.querySelector(sel).textContent.trim() === text",
        arg=[button, table("en")["home.create"]],
    )
    assert table("fr")["home.join"] in (page.text_content(".home") or "")  # the rest stays French
    assert not errors


def test_language_follows_the_browser_and_can_be_switched(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    seen: dict[str, Any] = {}
    for lang, locale in (("ru", "ru-RU"), ("pt", "pt-BR"), ("fr", "fr-CA"), ("en", "de-DE")):
        page = new_context(locale=locale).new_page()
        page.goto(live.base + "/")
        page.wait_for_selector(".home")
        assert page.evaluate("document.documentElement.lang") == TAGS[lang]
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
        assert page.evaluate("document.documentElement.lang") == TAGS[lang]
        assert len(page.inner_text("body")) > 2000
