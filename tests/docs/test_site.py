"""The docs build as a site: `mkdocs build --strict` (a broken link or anchor between pages, or a
page missing from the nav, fails it), and the site loads nothing from another host, so it works
offline."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.markdown import DOCS, ROOT

# A script, a stylesheet, a font, a frame or an image fetched from another host (plain links to
# other sites are fine: a reader follows them or not).
FETCHED = re.compile(
    r"<(?:script|link|img|iframe|source)\b[^>]*\b(?:src|href)=[\"']?(?:https?:)?//"
    r"|@import\s+(?:url\()?[\"']?(?:https?:)?//"
    r"|url\([\"']?(?:https?:)?//",
    re.IGNORECASE,
)


@pytest.mark.slow
def test_the_site_builds_strict_and_loads_nothing_from_elsewhere(tmp_path: Path) -> None:
    site = tmp_path / "site"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    for page in DOCS.glob("*.md"):
        assert (site / page.with_suffix(".html").name).is_file(), page.name
    fetched = []
    for path in site.rglob("*"):
        if path.suffix in (".html", ".css", ".js"):
            text = path.read_text(encoding="utf-8", errors="replace")
            fetched += [f"{path.relative_to(site)}: {m.group(0)}" for m in FETCHED.finditer(text)]
    assert fetched == []


def test_every_docs_page_is_in_the_nav() -> None:
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    nav = set(re.findall(r"^\s+- [^:\n]+: (\S+\.md)$", config, flags=re.MULTILINE))
    assert nav == {p.name for p in DOCS.glob("*.md")}
    assert re.search(r"^\s+font: false$", config, flags=re.MULTILINE)


def test_the_fetch_check_sees_a_cdn() -> None:
    assert FETCHED.search('<script src="https://unpkg.com/x/shim"></script>')
    assert FETCHED.search("<link rel=stylesheet href='//fonts.example/css'>")
    assert FETCHED.search("@font-face{src:url(https://fonts.example/a.woff2)}")
    assert not FETCHED.search('<a href="https://squidfunk.github.io/mkdocs-material/">')
