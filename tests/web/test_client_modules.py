"""The web client's shape: one table of the app's addresses (js/routes.js) that agrees with
the server's (server/net/static.py) and no path pattern anywhere else; renderers that take
the data they draw, not the app (only input handlers get the controller)."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from playwright.sync_api import BrowserContext

from server.net.static import StaticFiles
from tests.web.conftest import ROOT, LiveServer

JS = ROOT / "clients" / "web" / "js"
# Every app address and a few that are not: what the page's table says about each.
PATHS = {
    "/": ("home", None),
    "/leaderboard": ("leaderboard", None),
    "/leaderboard/": ("leaderboard", None),
    "/r/ab3cd": ("room", "AB3CD"),
    "/r/AB3CD/": ("room", "AB3CD"),
    "/r/ab3cd/history": ("replay", "AB3CD"),
    "/r/AB3CD/history/": ("replay", "AB3CD"),
    "/r/TOOLONG": (None, None),
    "/r/AB3CD/other": (None, None),
    "/rules/en/shithead.html": (None, None),
    "/leaderboards": (None, None),
    "/p/0123456789abcdef0123": ("player", "0123456789abcdef0123"),
    "/p/bot:strong": ("player", "bot:strong"),
    "/p/0123456789ABCDEF0123": (None, None),
    "/p/nobody": (None, None),
}


@pytest.mark.slow
def test_the_routes_table_matches_what_the_server_serves_as_the_app(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    page = new_context().new_page()
    page.goto(live.base + "/")
    page.wait_for_selector(".home")
    got = page.evaluate(
        "(paths) => import('/js/routes.js').then(m => paths.map(p => [m.match(p).name,"
        " m.match(p).code]))",
        list(PATHS),
    )
    assert dict(zip(PATHS, map(tuple, got), strict=True)) == PATHS
    # the server answers index.html for exactly the app's addresses
    files = StaticFiles.load(ROOT / "clients" / "web")
    app_page = files.lookup("/index.html")
    for path, (name, _) in PATHS.items():
        assert (files.lookup(path) is app_page) == (name is not None), path
    built = page.evaluate(
        "import('/js/routes.js').then(m => [m.paths.home(), m.paths.leaderboard(),"
        " m.paths.room('AB3CD'), m.paths.replay('AB3CD')])"
    )
    # and the paths it builds lead where they say
    assert built == ["/", "/leaderboard", "/r/AB3CD", "/r/AB3CD/history"]
    assert all(files.lookup(p) is app_page for p in built)


def test_no_address_pattern_outside_the_routes_table() -> None:
    # the app's paths are matched and built in routes.js only (no "/r/" or "/leaderboard"
    # literal, no regex on location.pathname elsewhere)
    for path in JS.glob("*.js"):
        if path.name == "routes.js":
            continue
        text = path.read_text()
        assert not re.search(r"""["'`]/(r/|leaderboard)|\\/r\\/|\\/leaderboard""", text), path
        assert not re.search(r"pathname\.match|\.test\(location", text), path


@pytest.mark.slow
def test_renderers_take_data_not_the_app() -> None:
    # only the controller holds the app; a game module's input handlers get it to act
    handlers = {"onAction", "onEnter", "chooseCard"}
    for path in JS.glob("*.js"):
        if path.name == "app.js":
            continue
        text = path.read_text()
        takers = set(re.findall(r"function (\w+)\(app\b", text))
        assert takers <= handlers, (path.name, takers - handlers)
        assert "fakeApp" not in text, path.name
