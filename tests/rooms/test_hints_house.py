"""Hints under house rules: in a Shithead room with all three options and in a
Sheepshead room with the jack of diamonds, the doubler and cracking, every hint asked is one
of the seat's legal actions, and the server takes it as it is. Real WebSockets on loopback."""

from __future__ import annotations

import pytest

from clients import CardroomClient, CardroomError
from protocol import messages as m
from protocol.views import View, result_of, sheepshead_view
from server.net.server import CardroomServer
from tests.support.house import HOUSE_SH, HOUSE_SS, crack_deal
from tests.support.server import choose

pytestmark = pytest.mark.slow

#: Hints asked per game at most (the strong bot thinks a while each time); then plain play.
HINTS = 8


def legal_of(view: View) -> list[m.ActionModel]:
    return [m.ActionModel.model_validate(a) for a in view["legal"]]


async def play_on_hints(ann: CardroomClient, scripted: dict[str, str] | None = None) -> list[str]:
    """Play Ann's turns to the end of the game, each on the hint asked for it (while HINTS
    last; the swap phase and the phases ``scripted`` names are played without); return the
    hinted kinds."""
    hinted: list[str] = []
    while True:
        state = await ann.wait_turn(timeout=60)
        view = state.view
        if view["phase"] == "over":
            return hinted
        if view["phase"] == "swap" or (scripted and view["phase"] in scripted):
            # the swap is everyone's at once (the other seat's ready moves the version on)
            kind = scripted[view["phase"]] if scripted and view["phase"] in scripted else "ready"
            action: m.ActionModel | dict[str, object] = {"kind": kind}
        elif len(hinted) < HINTS:
            advice = await ann.hint()
            assert advice.version == state.version
            # rules SH-7.5, SS-10.6: the hint is a legal action under the options in force
            assert advice.action in legal_of(view), (advice.action, view["legal"])
            hinted.append(advice.action.kind)
            action = advice.action
        else:
            action = dict(choose(view))
        try:
            await ann.act(action, version=state.version)
        except CardroomError as exc:
            assert exc.code == "stale_version", exc  # the swap phase: the others move too


async def sheepshead_on_hints(
    server: CardroomServer, ann: CardroomClient, seed: int, pick: str
) -> list[str]:
    """A hand of a Sheepshead room with HOUSE_SS and hints, dealt from ``seed``, Ann making
    ``pick`` (pick or pass) and every later decision on a hint; the hinted kinds."""
    await ann.create("sheepshead", seats=5, name="Ann", options=HOUSE_SS, hints=True)
    assert ann.room is not None
    server.manager.rooms[ann.room].core.seed = seed
    await ann.host("start")
    return await play_on_hints(ann, scripted={"pick": pick})


async def test_hints_are_legal_in_a_shithead_room_with_all_three_house_rules(
    server: CardroomServer,
) -> None:
    async with CardroomClient.connect(server.url) as ann:
        await ann.create("shithead", seats=2, name="Ann", options=HOUSE_SH, hints=True)
        await ann.host("start")
        hinted = await play_on_hints(ann)
        assert "play" in hinted
        assert ann.view is not None and ann.view["options"] == HOUSE_SH


async def test_hints_are_legal_through_a_crack_with_the_jack_and_the_doubler(
    server: CardroomServer,
) -> None:
    # a deal where Ann, passing, is asked to crack (SS-10.4): the hint answers it
    async with CardroomClient.connect(server.url) as ann:
        hinted = await sheepshead_on_hints(server, ann, crack_deal(), "pass")
        assert {"crack", "no_crack"} & set(hinted), hinted
        assert "play" in hinted
        assert ann.view is not None
        final = sheepshead_view(ann.view)
        raised = (final["cracked"] is not None) + (final["recracked"] is not None)
        assert result_of(final)["multiplier"] == 2**raised  # SS-10.5


async def test_hints_are_legal_for_the_picker_choosing_the_jacks_partner(
    server: CardroomServer,
) -> None:
    async with CardroomClient.connect(server.url) as ann:
        hinted = await sheepshead_on_hints(server, ann, 4, "pick")  # seat 0 is asked first
        # SS-10.2: after burying, the picker's choice is the jack's partner or alone
        assert {"jd_partner", "alone"} & set(hinted), hinted
        assert "bury" in hinted
