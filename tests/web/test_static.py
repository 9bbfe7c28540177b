"""The web client's files over plain HTTP: share links, gzip, ETags, headers, and its weight."""

from __future__ import annotations

import gzip
import re
import tomllib
import urllib.error
import urllib.request
from pathlib import Path

from tests.web.conftest import ROOT, LiveServer

WEB = ROOT / "clients" / "web"


def get(url: str, **headers: str) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=5) as r:
            return r.status, {k.lower(): v for k, v in r.headers.items()}, r.read()
    except urllib.error.HTTPError as exc:
        return exc.code, {k.lower(): v for k, v in exc.headers.items()}, b""


def first_load_files() -> list[str]:
    """The page and everything it loads before it can be used (its modules and styles)."""
    html = (WEB / "index.html").read_text()
    linked = re.findall(r'(?:href|src)="(/[^"]+)"', html)
    return ["/", *dict.fromkeys(linked)]


def test_share_links_serve_the_app_and_other_paths_404(live: LiveServer) -> None:
    status, headers, body = get(live.base + "/r/k7q2m")
    assert status == 200 and headers["content-type"].startswith("text/html")
    assert b'<script type="module" src="/js/app.js">' in body
    assert get(live.base + "/r/K7Q2M/")[0] == 200
    assert get(live.base + "/r/TOOLONG")[0] == 404
    assert get(live.base + "/js/missing.js")[0] == 404
    assert get(live.base + "/%2e%2e/pyproject.toml")[0] == 404
    assert get(live.base + "/../README.md")[0] == 404


def test_favicon_ico_is_the_app_icon_not_a_404(live: LiveServer) -> None:
    # browsers ask for /favicon.ico by themselves (on the API's JSON, say): no failed request
    status, headers, body = get(live.base + "/favicon.ico")
    assert status == 200 and headers["content-type"].startswith("image/svg+xml")
    assert body == (WEB / "favicon.svg").read_bytes()


def test_text_files_are_gzipped_for_browsers_that_accept_it(live: LiveServer) -> None:
    status, headers, body = get(live.base + "/js/app.js", **{"Accept-Encoding": "gzip, br"})
    assert status == 200 and headers["content-encoding"] == "gzip"
    assert headers["content-type"].startswith("text/javascript")
    assert gzip.decompress(body) == (WEB / "js" / "app.js").read_bytes()
    status, headers, body = get(live.base + "/js/app.js")
    assert "content-encoding" not in headers and body == (WEB / "js" / "app.js").read_bytes()


def test_etags_revalidate_with_304_and_pages_carry_a_strict_csp(live: LiveServer) -> None:
    status, headers, _ = get(live.base + "/app.css")
    etag = headers["etag"]
    assert headers["cache-control"] == "no-cache" and headers["vary"] == "Accept-Encoding"
    status, _, body = get(live.base + "/app.css", **{"If-None-Match": etag})
    assert status == 304 and body == b""
    _, headers, _ = get(live.base + "/")
    csp = headers["content-security-policy"]
    assert "default-src 'self'" in csp and "connect-src 'self'" in csp
    assert headers["x-content-type-options"] == "nosniff"


def test_language_tables_are_served_like_the_other_files(live: LiveServer) -> None:
    # fetched by the page for the chosen language: JSON, gzipped, revalidated with an ETag
    url = live.base + "/i18n/ru.json"
    status, headers, body = get(url, **{"Accept-Encoding": "gzip"})
    assert status == 200 and headers["content-type"].startswith("application/json")
    assert headers["content-encoding"] == "gzip" and headers["cache-control"] == "no-cache"
    assert gzip.decompress(body) == (WEB / "i18n" / "ru.json").read_bytes()
    assert headers["x-content-type-options"] == "nosniff"
    status, _, body = get(url, **{"If-None-Match": headers["etag"]})
    assert status == 304 and body == b""
    assert get(live.base + "/i18n/de.json")[0] == 404


def test_an_installed_package_ships_every_file_of_the_web_client() -> None:
    # pyproject.toml's package data: the server serves these, and the hints read i18n/en.json
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    patterns = config["tool"]["setuptools"]["package-data"]["clients.web"]
    shipped = {p for pattern in patterns for p in WEB.glob(pattern) if p.is_file()}
    files = {p for p in WEB.rglob("*") if p.is_file() and not p.name.startswith(".")}
    assert files - shipped == set()
    assert WEB / "i18n" / "en.json" in shipped


def test_first_load_is_under_200_kb_compressed(live: LiveServer) -> None:
    total = 0
    for path in first_load_files():
        status, _, body = get(live.base + path, **{"Accept-Encoding": "gzip"})
        assert status == 200, path
        total += len(body)
    print(f"first load: {len(first_load_files())} files, {total} bytes compressed")
    assert total < 200_000


def test_every_module_is_preloaded_by_the_page() -> None:
    # one round trip fetches every module: index.html names them all
    modules = {"/js/" + p.name for p in (WEB / "js").glob("*.js")}
    assert modules <= set(first_load_files())


def test_the_client_fetches_nothing_from_another_host() -> None:
    # the source names no other host (the browser tests also fail on any foreign request)
    for path in [*WEB.glob("*.html"), *WEB.glob("*.css"), *(WEB / "js").glob("*.js")]:
        text = Path(path).read_text()
        assert not re.search(r"(https?:)?//[a-z0-9.-]+\.[a-z]{2,}", text), path
