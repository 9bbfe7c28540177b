"""Every link of README.md and the docs pages that points inside the repository leads to a file
that exists, and a link to a heading leads to a heading that exists. The docs pages are also a
site (mkdocs.yml), so a page's link must stay inside docs/ and its anchor must be one that both
GitHub and mkdocs give the heading."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote

import pytest

from tests.support.markdown import DOCS, ROOT, github_anchors, links, pages, site_anchors

EXTERNAL = ("http://", "https://", "mailto:")


def _problems(page: Path) -> list[str]:
    text = page.read_text(encoding="utf-8")
    in_site = page.parent == DOCS
    problems = []
    for target in links(text):
        if target.startswith(EXTERNAL):
            continue
        path, _, anchor = unquote(target).partition("#")
        dest = (page.parent / path).resolve() if path else page
        if not dest.exists():
            problems.append(f"{target}: no such file")
            continue
        if not dest.is_relative_to(ROOT):
            problems.append(f"{target}: outside the repository")
            continue
        if in_site and not dest.is_relative_to(DOCS):
            problems.append(f"{target}: outside docs/, so broken in the site (name it as code)")
            continue
        if anchor and dest.suffix == ".md":
            dest_text = dest.read_text(encoding="utf-8")
            if anchor not in github_anchors(dest_text):
                problems.append(f"{target}: no such heading on GitHub")
            elif in_site and anchor not in site_anchors(dest_text):
                problems.append(f"{target}: no such heading in the site (mkdocs slugs it so)")
    return problems


@pytest.mark.parametrize("page", pages(), ids=lambda p: p.name)
def test_every_link_inside_the_repository_resolves(page: Path) -> None:
    assert _problems(page) == []


def test_the_readme_links_to_every_docs_page() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    linked = {(ROOT / t.partition("#")[0]).resolve() for t in links(text)}
    missing = [p.name for p in DOCS.glob("*.md") if p.name != "index.md" and p not in linked]
    assert missing == []


def test_links_and_headings_are_read_as_they_render() -> None:
    text = (DOCS / "playing.md").read_text(encoding="utf-8")
    assert any("#" in t for t in links(text))  # the page links to headings: they were checked
    assert links("see [the CLI](../server/cli.py) and `[not a link](x.md)`") == ["../server/cli.py"]
    assert "client--server" in github_anchors("## Client → server\n")
    assert "client-server" in site_anchors("## Client → server\n")
    assert github_anchors("# A\n```sh\n# not a heading\n```\n") == {"a"}
