"""One set of colour tokens (clients/web/tokens.css) for the app and the rules pages: no other
stylesheet writes a hex colour, every token used is defined, and every page links the tokens
before its own stylesheet. Plain file checks, no browser."""

from __future__ import annotations

import re

from tests.web.conftest import ROOT

WEB = ROOT / "clients" / "web"
TOKENS = WEB / "tokens.css"
HEX = re.compile(r"#[0-9a-fA-F]{3,8}\b")
DEFINED = re.compile(r"(--[\w-]+)\s*:")
# (a var() with a fallback is set from the code, such as --overlap)
USED = re.compile(r"var\(\s*(--[\w-]+)\s*\)")


def css(path: str) -> str:
    """A stylesheet without its comments."""
    return re.sub(r"/\*.*?\*/", "", (WEB / path).read_text(), flags=re.S)


def test_no_raw_hex_colour_outside_the_token_block() -> None:
    sheets = sorted(p.relative_to(WEB).as_posix() for p in WEB.rglob("*.css"))
    assert sheets == ["app.css", "rules/rules.css", "tokens.css"]
    for sheet in ("app.css", "rules/rules.css"):
        found = [m.group(0) for m in HEX.finditer(css(sheet))]
        assert not found, (sheet, found)
    # the tokens file is one :root block of custom properties and nothing else
    body = css("tokens.css").strip()
    block = re.fullmatch(r":root\s*\{([^{}]*)\}", body)
    assert block, body[:200]
    for line in block.group(1).split(";"):
        if line.strip():
            assert re.fullmatch(r"\s*--[\w-]+:\s*#[0-9a-fA-F]{3,8}\s*", line), line


def test_every_token_used_is_defined() -> None:
    tokens = set(DEFINED.findall(css("tokens.css")))
    assert len(tokens) > 30
    for sheet in ("app.css", "rules/rules.css"):
        own = set(DEFINED.findall(css(sheet)))  # sizes such as --cw, and the dark theme's
        undefined = set(USED.findall(css(sheet))) - tokens - own
        assert not undefined, (sheet, sorted(undefined))


def test_every_page_links_the_tokens_before_its_stylesheet() -> None:
    pages = {
        WEB / "index.html": "/app.css",
        **{p: "../rules.css" for p in WEB.glob("rules/*/*.html")},
    }
    assert len(pages) == 9
    for page, own in pages.items():
        links = re.findall(r'<link rel="stylesheet" href="([^"]+)">', page.read_text())
        tokens = "/tokens.css" if page.name == "index.html" else "../../tokens.css"
        assert links == [tokens, own], (page, links)
