"""Browser helpers shared by the web tests: screenshots checked by axe at every width, rooms
created and started through the page, and actions done through the client."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from typing import Any

from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import BrowserContext, Page, ViewportSize

from clients import CardroomClient
from protocol.messages import GameName
from server.rooms.matches import Match
from server.rules.base import Action
from tests.support.server import play_until_over
from tests.web.conftest import SCREENSHOTS, LiveServer, create_room, open_room_form

WIDTHS = (375, 1280)


def check_axe(page: Page, where: str) -> None:
    results = Axe().run(page)
    bad = [
        f"{v['id']} ({v['impact']}): {[n['target'] for n in v['nodes']][:4]}"
        for v in results.response["violations"]
        if v["impact"] in ("serious", "critical")
    ]
    assert not bad, f"{where}: {bad}"


def watch_console(page: Page) -> list[str]:
    """Console errors and failed or refused requests of the page (a test asserts none)."""
    bad: list[str] = []
    page.on("console", lambda m: bad.append(m.text) if m.type == "error" else None)
    page.on("requestfailed", lambda r: bad.append(f"failed: {r.url}"))
    page.on("response", lambda r: bad.append(f"{r.status}: {r.url}") if r.status >= 400 else None)
    return bad


def shoot(page: Page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 800 if width < 1000 else 900})
        page.wait_for_timeout(350)  # let short animations finish
        page.screenshot(path=str(SCREENSHOTS / f"{name}-{width}.png"), full_page=True)
        check_axe(page, f"{name} at {width} px")


def create_hints_room(page: Page, base: str, name: str, game: str, seats: int = 2) -> str:
    open_room_form(page, base)
    page.fill("#name", name)
    page.check(f'input[name="game"][value="{game}"]')
    if game == "shithead":
        page.select_option("#seats", str(seats))
    page.check("#hints")
    page.click('#create-form button[type="submit"]')
    page.wait_for_selector(".lobby .code")
    return page.inner_text(".lobby .code").strip()


def ordinary_call(kinds: set[str]) -> bool:
    """The picker may call an ace (SS-4.1)."""
    return "call" in kinds


def scripted_deal(calls: Callable[[set[str]], bool] = ordinary_call) -> tuple[int, list[str]]:
    """A seed whose first hand lets seat 0 pick first, and the two cards to bury after which
    the kinds of call open to the picker satisfy ``calls`` (the rules core is the oracle; the
    page knows nothing)."""
    for seed in range(4, 3000, 5):  # seed % 5 == 4: seat 4 deals, seat 0 is asked first
        game = Match.create("sheepshead", 5, seed=seed).current
        if list(game.to_act()) != [0]:
            continue
        game.apply(0, Action.from_str("pick"))
        for bury in [a for a in game.view(0)["legal"] if a["kind"] == "bury"]:
            trial = Match.create("sheepshead", 5, seed=seed).current
            trial.apply(0, Action.from_str("pick"))
            trial.apply(0, Action.from_str("bury " + " ".join(bury["cards"])))
            if calls({a["kind"] for a in trial.view(0)["legal"]}):
                return seed, list(bury["cards"])
    raise AssertionError("no scripted deal found")


def start_scripted(
    page: Page, live: LiveServer, calls: Callable[[set[str]], bool] = ordinary_call
) -> list[str]:
    """Open a Sheepshead room on ``page`` and start the :func:`scripted_deal` for ``calls`` in
    it; return the two cards to bury."""
    seed, bury = scripted_deal(calls)
    code = create_room(page, live.base, "Sam", "sheepshead")

    def set_seed() -> None:
        live.server.manager.rooms[code].core.seed = seed

    live.call(set_seed)
    page.click('[data-act="host"][data-op="start"]')
    return bury


PHONE: ViewportSize = {"width": 375, "height": 667}


def act_first(page: Page, prefer: str | None = None) -> None:
    """Do the page's first legal action (of kind ``prefer`` if there is one) through the client
    (fast: the layout is under test), and wait until the state it made is on screen."""
    version = page.evaluate(
        """(prefer) => { const app = window.cardroom, legal = app.state.view.legal;
                   const a = legal.find(x => x.kind === prefer) || legal[0];
                   if (a) app.act(a); return app.state.version; }""",
        prefer,
    )
    page.wait_for_function(
        "(n) => window.cardroom.state.version > n && !window.cardroom.acting", arg=version
    )


TOKEN = re.compile(r"[A-Za-z0-9_-]{16,64}")


def on_server(live: LiveServer, coro: Any, timeout: float = 60) -> Any:
    """Run a coroutine on the server's own event loop (its stores belong to that loop)."""
    return asyncio.run_coroutine_threadsafe(coro, live.loop).result(timeout)


def device_of(page: Page) -> str:
    token = page.evaluate("JSON.parse(localStorage.getItem('cardroom.device'))")
    assert isinstance(token, str) and TOKEN.fullmatch(token), token
    return token


def finished(
    live: LiveServer,
    game: GameName,
    seats: int,
    games: int = 1,
    options: dict[str, Any] | None = None,
) -> tuple[str, str]:
    """Games (or hands) played to their end by a scripted player and bots: (room, seat token).
    ``options``: the room's house rules (none: the book's)."""

    async def play() -> tuple[str, str]:
        me = await CardroomClient.connect(live.server.url)
        await me.create(game, seats=seats, name="Ann", options=options)
        await me.host("start")
        await play_until_over(me)
        for _ in range(games - 1):
            await me.host("next_game")
            await play_until_over(me)
        assert me.room is not None and me.token is not None
        room, token = me.room, me.token
        await me.close()
        return room, token

    result: tuple[str, str] = on_server(live, play())
    return result


def seated(ctx: BrowserContext, room: str, token: str) -> BrowserContext:
    """A browser that holds the seat (its token kept as the page keeps it)."""
    session = json.dumps({"room": room, "token": token, "seat": 0})
    ctx.add_init_script(
        f"if (!localStorage.getItem('cardroom.session')) "
        f"localStorage.setItem('cardroom.session', {json.dumps(session)})"
    )
    return ctx


#: An init script: every line added to the live region, in order (what a screen reader is
#: handed), kept in ``window.__lines``.
ANNOUNCE_SPY = """
(() => {
  window.__lines = [];
  new MutationObserver((records) => {
    for (const r of records) {
      if (!r.target.closest || !r.target.closest('#announce')) continue;
      for (const n of r.addedNodes) if (n.textContent) window.__lines.push(n.textContent);
    }
  }).observe(document, {subtree: true, childList: true});
})();
"""
