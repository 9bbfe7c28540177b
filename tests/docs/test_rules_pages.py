"""The rules written down in the repository: docs/rules.md and the web client's rules pages.

Every rule a test names (the comment convention described in docs/rules.md) must be written down
in docs/rules.md and on each rules page of its game, in every language. The pages are standalone:
they parse as well-formed HTML, load nothing from another host and need no script. Nothing here
reads outside the repository.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"
RULES_MD = ROOT / "docs" / "rules.md"
PAGES = ROOT / "clients" / "web" / "rules"
LANGS = ("en", "ru", "pt", "fr")
GAMES = {"shithead": "SH", "sheepshead": "SS"}

RULE_ID = re.compile(r"\b(S[HS]-\d+\.\d+)\b")
# A rule is defined by a list item that starts with its number, as in the shared rule book.
DEFINED = re.compile(r"^- (S[HS]-\d+\.\d+) ", re.M)
# Anything that names a scheme (http:, https:, data:, ...) or another host (//host).
FOREIGN = re.compile(r"^\s*(?:[a-zA-Z][a-zA-Z0-9+.-]*:|//|\\\\)")
URL_ATTRS = {"href", "src", "srcset", "action", "formaction", "poster", "data", "manifest"}
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}


def named_rules() -> set[str]:
    """Rule ids named by any test, read the way the coverage tool reads them."""
    named: set[str] = set()
    for path in sorted(TESTS.rglob("*.py")):
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            if "rule" in line:
                named.update(RULE_ID.findall(line))
    return named


def defined_rules() -> list[str]:
    return DEFINED.findall(RULES_MD.read_text(encoding="utf-8"))


@dataclass
class Page:
    """What the checks need from one page, gathered by a strict parser."""

    lang: str | None = None
    charset: str | None = None
    viewport: bool = False
    title: str = ""
    h1: str = ""
    ids: set[str] = field(default_factory=set)
    links: list[str] = field(default_factory=list)
    stylesheets: list[str] = field(default_factory=list)
    urls: list[str] = field(default_factory=list)
    scripts: int = 0
    inline_styles: int = 0
    text: str = ""
    errors: list[str] = field(default_factory=list)


class PageParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.page = Page()
        self.stack: list[str] = []
        self.chunks: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        page = self.page
        if tag == "html":
            page.lang = a.get("lang")
        elif tag == "meta" and "charset" in a:
            page.charset = a["charset"].lower()
        elif tag == "meta" and a.get("name") == "viewport":
            page.viewport = "width=device-width" in a.get("content", "")
        elif tag == "script":
            page.scripts += 1
        elif tag == "style":
            page.inline_styles += 1
        elif tag == "link" and a.get("rel") == "stylesheet":
            page.stylesheets.append(a.get("href", ""))
        elif tag == "a" and "href" in a:
            page.links.append(a["href"])
        if "id" in a:
            page.ids.add(a["id"])
        if "style" in a:
            page.inline_styles += 1
            page.urls.extend(re.findall(r"url\(([^)]*)\)", a["style"]))
        page.urls.extend(v for k, v in a.items() if k in URL_ATTRS)
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.stack.pop()

    def handle_endtag(self, tag: str) -> None:
        if not self.stack or self.stack[-1] != tag:
            self.page.errors.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
            return
        self.stack.pop()

    def handle_data(self, data: str) -> None:
        self.chunks.append(data)
        if self.stack and self.stack[-1] == "title":
            self.page.title += data
        if "h1" in self.stack:
            self.page.h1 += data

    def finish(self) -> Page:
        self.close()
        if self.stack:
            self.page.errors.append(f"never closed: {self.stack}")
        self.page.text = " ".join(self.chunks)
        return self.page


def parse(path: Path) -> tuple[str, Page]:
    source = path.read_text(encoding="utf-8")
    parser = PageParser()
    parser.feed(source)
    return source, parser.finish()


ALL_PAGES = [(lang, game) for lang in LANGS for game in GAMES]


def test_tests_name_rules_of_both_games() -> None:
    named = named_rules()
    assert any(r.startswith("SH-") for r in named)
    assert any(r.startswith("SS-") for r in named)


def test_rules_md_defines_every_rule_a_test_names() -> None:
    defined = defined_rules()
    assert len(defined) == len(set(defined)), "a rule number is defined twice"
    missing = sorted(named_rules() - set(defined))
    assert not missing, f"named by tests but not written in docs/rules.md: {missing}"


@pytest.mark.slow
def test_every_rule_in_rules_md_is_named_by_a_test() -> None:
    unnamed = [r for r in defined_rules() if r not in named_rules()]
    assert not unnamed, f"rules no test names yet: {unnamed}"


def test_rules_md_stands_alone() -> None:
    text = RULES_MD.read_text(encoding="utf-8")
    assert "../" not in text and "shared/" not in text
    # Links inside the file are anchors only.
    for target in re.findall(r"\]\(([^)]*)\)", text):
        assert target.startswith("#"), target


@pytest.mark.parametrize(("lang", "game"), ALL_PAGES)
def test_page_is_standalone_html(lang: str, game: str) -> None:
    path = PAGES / lang / f"{game}.html"
    source, page = parse(path)
    assert source.lstrip().lower().startswith("<!doctype html>")
    assert not page.errors, page.errors
    assert page.lang == {"pt": "pt-BR"}.get(lang, lang)  # the Portuguese is Brazilian
    assert page.charset == "utf-8"
    assert page.viewport
    assert page.title.strip() and page.h1.strip()
    assert page.scripts == 0
    # The server's content security policy allows only same-origin stylesheets.
    assert page.inline_styles == 0
    assert page.stylesheets == ["../../tokens.css", "../rules.css"]  # the colours, then its own


@pytest.mark.parametrize(("lang", "game"), ALL_PAGES)
def test_page_loads_nothing_from_other_hosts(lang: str, game: str) -> None:
    source, page = parse(PAGES / lang / f"{game}.html")
    assert "http://" not in source and "https://" not in source
    foreign = [u for u in page.urls if FOREIGN.match(u)]
    assert not foreign, foreign


@pytest.mark.parametrize(("lang", "game"), ALL_PAGES)
def test_page_links_resolve(lang: str, game: str) -> None:
    path = PAGES / lang / f"{game}.html"
    _, page = parse(path)
    assert "/" in page.links, "a link back to the Cardroom home page"
    for link in page.links:
        if link == "/":
            continue
        target, _, fragment = link.partition("#")
        if target:
            resolved = (path.parent / target).resolve()
            assert resolved.is_file() and PAGES.resolve() in resolved.parents, link
        elif fragment:
            assert fragment in page.ids, link
    languages = {(path.parent / link).resolve() for link in page.links}
    for other in LANGS:
        assert (PAGES / other / f"{game}.html").resolve() in languages, other
    other_game = next(g for g in GAMES if g != game)
    assert (PAGES / lang / f"{other_game}.html").resolve() in languages


@pytest.mark.parametrize(("lang", "game"), ALL_PAGES)
def test_page_keeps_every_rule_number(lang: str, game: str) -> None:
    _, page = parse(PAGES / lang / f"{game}.html")
    prefix = GAMES[game] + "-"
    wanted = {r for r in named_rules() | set(defined_rules()) if r.startswith(prefix)}
    assert wanted
    # Each rule is an element with its number as id, and the number is shown in the text.
    missing = sorted(r for r in wanted if r not in page.ids or r not in page.text)
    assert not missing, missing
    on_page = {i for i in page.ids if RULE_ID.fullmatch(i)}
    assert on_page == wanted, sorted(on_page ^ wanted)


def test_stylesheet_is_local_and_colours_the_suits() -> None:
    css = (PAGES / "rules.css").read_text(encoding="utf-8")
    assert "@import" not in css
    assert not [u for u in re.findall(r"url\(([^)]*)\)", css) if FOREIGN.match(u.strip("'\""))]
    assert ".c.r" in css and ".c.k" in css
    assert "@media" in css
