"""Reading the repository's Markdown (README.md and docs/*.md) as the docs tests need it: the
code in it, the links in its prose, and the anchors its headings get, both on GitHub and in the
site mkdocs builds (they differ for some headings, so a link must work in both)."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


def pages() -> list[Path]:
    """README.md and every page of docs/."""
    return [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]


FENCE = re.compile(r"^(```|~~~)[^\n]*\n(.*?)^\1[ \t]*$", re.MULTILINE | re.DOTALL)
SPAN = re.compile(r"(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.DOTALL)


def without_fences(text: str) -> str:
    """The page with its fenced blocks blanked out (their lines kept as empty lines)."""
    return FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), text)


def split_code(text: str) -> tuple[list[str], list[str], str]:
    """(fenced blocks, inline code spans, the prose with both blanked out)."""
    blocks = [m.group(2) for m in FENCE.finditer(text)]
    rest = without_fences(text)
    spans = [" ".join(m.group(2).split()) for m in SPAN.finditer(rest)]
    prose = SPAN.sub(lambda m: " " * len(m.group(0)), rest)
    return blocks, spans, prose


def code_lines(text: str) -> list[str]:
    """Every line of every fenced block, and every inline code span, of a page."""
    blocks, spans, _ = split_code(text)
    return [line for block in blocks for line in block.splitlines()] + spans


LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")


def links(text: str) -> list[str]:
    """The target of every inline link and image in the prose (not in code)."""
    _, _, prose = split_code(text)
    return [m.group(1) for m in LINK.finditer(prose)]


HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$", re.MULTILINE)


def headings(text: str) -> list[str]:
    """The text of every ATX heading outside code, as it reads (code, links and emphasis
    marks removed)."""
    found = []
    for m in HEADING.finditer(without_fences(text)):
        title = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", m.group(2))
        title = title.replace("`", "").replace("**", "").replace("*", "")
        found.append(title.strip())
    return found


#: An anchor written by hand (``<a id="name"></a>``): the same on GitHub and in the site.
HTML_ANCHOR = re.compile(r'<a id="([^"]+)"></a>')


def html_anchors(text: str) -> set[str]:
    return set(HTML_ANCHOR.findall(without_fences(text)))


def github_anchors(text: str) -> set[str]:
    """The anchors GitHub gives the headings of a page, and those written by hand."""
    seen: dict[str, int] = {}
    anchors = html_anchors(text)
    for title in headings(text):
        slug = "".join(c for c in title.lower() if c.isalnum() or c in " -_").replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        anchors.add(slug if n == 0 else f"{slug}-{n}")
    return anchors


def site_anchors(text: str) -> set[str]:
    """The anchors mkdocs (Python-Markdown's toc, its default slugify) gives the headings, and
    those written by hand."""
    anchors: set[str] = set()
    for title in headings(text):
        value = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode("ascii")
        value = re.sub(r"[^\w\s-]", "", value).strip().lower()
        slug = re.sub(r"[-\s]+", "-", value)
        candidate, n = slug, 0
        while candidate in anchors or not candidate:
            n += 1
            candidate = f"{slug}_{n}"
        anchors.add(candidate)
    return anchors | html_anchors(text)
