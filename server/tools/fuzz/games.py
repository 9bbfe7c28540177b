"""Real games beside the fuzz: every seat is a scripted human of the fuzzer, so the fuzzer knows
every action (its own ``ack`` says at which version) and can rebuild each game with the rules
alone, then compare every view anyone received (seats, spectators, hostile watchers) with the
rules' view of that seat at that version.

* Sheepshead rooms play the *daily* match (SS-9.2). Its deals are secret (the server's keys), so
  each hand is rebuilt from its deal as the room's history reveals it after the hand (fetched
  by the fuzzer's seated host, while the room is open).
* Shithead deals are secret (the server's seed), so the deal is pieced together from what the
  seats saw: each hand and the face-up cards at the deal, every card drawn (in order), every
  face-down card turned over. Cards no one ever saw are placed anywhere unseen: no view shows
  them, so any placement gives the same views.

A version the fuzzer did not cause (a gap in the log) is a state change nobody asked for.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import random
import urllib.request
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from clients import CardroomClient, CardroomError, ClientError
from protocol import messages as m
from protocol.cards import card_codes
from protocol.messages import GameName
from protocol.views import ActionWire, View, shithead_view
from server.rules.base import Action, Game
from server.rules.records import DealRecord
from server.rules.sheepshead import Sheepshead
from server.rules.shithead import Shithead
from server.rules.shithead_deal import deck_from_deal
from server.tools.fuzz.mutate import Known

ALL_CARDS = card_codes(list(range(52)))


@dataclass
class GameLog:
    """One game of a room: the version of its deal and every action after it."""

    deal: int
    actions: list[tuple[int, int, ActionWire]] = field(
        default_factory=list
    )  # version, seat, action


@dataclass
class RoomRun:
    """A real room's record as the fuzzer saw it."""

    code: str
    game: str
    seats: int
    daily: str | None = None
    games: list[GameLog] = field(default_factory=list)
    states: list[tuple[int | None, m.State]] = field(default_factory=list)  # (seat, state)
    finished: int = 0  # games played to the end
    refused_legal: list[str] = field(default_factory=list)  # legal refused, illegal accepted
    deals: list[DealRecord] = field(default_factory=list)  # each finished game's deal (history)
    refusals: int = 0  # illegal moves our players tried, each refused
    stalled: str | None = None  # the game stopped moving (no reply or state for 60 s)


@dataclass
class Verdict:
    checked: int = 0  # states compared with the rules' view
    mismatches: list[str] = field(default_factory=list)
    gaps: list[str] = field(default_factory=list)  # versions nobody of ours caused


def choose(view: View, rng: random.Random) -> ActionWire:
    """A quick human policy: mostly the lowest Shithead play, sometimes any legal action."""
    legal = view["legal"]
    if view["game"] == "shithead":
        if view["phase"] == "swap":
            swaps = [a for a in legal if a["kind"] == "swap"]
            return rng.choice(swaps) if swaps and rng.random() < 0.3 else {"kind": "ready"}
        plays = [a for a in legal if a["kind"] == "play"]
        if plays and rng.random() < 0.85:
            order = "3456789JQKA2T"
            return min(plays, key=lambda a: (order.index(a["cards"][0][0]), -len(a["cards"])))
    return rng.choice(legal)


async def _collect(client: CardroomClient, seat: int | None, run: RoomRun) -> None:
    async for msg in client.messages():
        if isinstance(msg, m.State) and msg.room == run.code:
            run.states.append((seat, msg))


async def _play_seat(
    client: CardroomClient, seat: int, run: RoomRun, known: Known, rng: random.Random
) -> None:
    """Play this seat's turns until its game is over."""
    log = run.games[-1]
    while True:
        state = await client.wait_turn(timeout=60)
        if state.version < log.deal:
            await client.wait_state(lambda s: s.version >= log.deal, timeout=60)
            continue
        if state.view["phase"] == "over":
            return
        if rng.random() < 0.08:
            await _refused(client, state, run, rng)
            continue
        action = choose(state.view, rng)
        try:
            ack = await client.act(action, version=state.version, timeout=60)
        except CardroomError as exc:
            if exc.code == "stale_version":
                continue  # another seat moved first (a simultaneous phase)
            run.refused_legal.append(f"{run.code} v{state.version} seat {seat} {action}: {exc}")
            raise
        assert ack.version is not None
        log.actions.append((ack.version, seat, action))
        known.versions[run.code] = ack.version
        frame = {"type": "act", "id": 1, "room": run.code, "version": state.version}
        known.add_sample({**frame, "action": action})


async def _refused(
    client: CardroomClient, state: m.State, run: RoomRun, rng: random.Random
) -> None:
    """A move the room must refuse, from a seated player in the middle of a real game: a card
    not held, a kind no game has, or a version not yet reached. The rebuild later proves the
    refusal changed nothing."""
    view = state.view
    # every card this seat may name in a play: its hand, its face-up cards (Shithead, played once
    # the hand is empty) and the card a Sheepshead picker set aside for an unknown-card call
    held = set(view["hand"] or [])
    if view["game"] == "shithead":
        if state.seat is not None:
            held.update(view["seats"][state.seat]["face_up"])
    elif view["unknown_card"]:
        held.add(view["unknown_card"])
    roll = rng.random()
    version = state.version
    if roll < 0.4:
        action: Mapping[str, object] = {
            "kind": "play",
            "cards": [rng.choice([c for c in ALL_CARDS if c not in held])],
        }
    elif roll < 0.7:
        action = {"kind": "dance"}
    else:
        # far ahead: in a simultaneous phase the room may move a step or two meanwhile
        action, version = rng.choice(view["legal"]), version + rng.choice([1000, 10**6])
    try:
        await client.act(action, version=version, timeout=60)
    except CardroomError:
        run.refusals += 1
        return
    run.refused_legal.append(f"{run.code} v{state.version}: accepted {action} at v{version}")


async def play_room(
    url: str, game: GameName, known: Known, stop: asyncio.Event, rng: random.Random
) -> RoomRun:
    """Open a locked room of fuzzer humans (and one spectator); play games until ``stop``."""
    seats = 5 if game == "sheepshead" else rng.randrange(2, 6)
    clients = [await CardroomClient.connect(url, timeout=60, history=200_000) for _ in range(seats)]
    watcher = await CardroomClient.connect(url, timeout=60, history=200_000)
    host = clients[0]
    collectors: list[asyncio.Task[None]] = []
    try:
        await host.create(game, seats=seats, name="Real 0", daily=game == "sheepshead")
        code = host.room or ""
        run = RoomRun(code, game, seats)
        for i, client in enumerate(clients[1:], start=1):
            await client.join(code, name=f"Real {i}", seat=i)
        await watcher.watch(code)
        await host.host("lock")
        collectors = [asyncio.create_task(_collect(c, i, run)) for i, c in enumerate(clients)] + [
            asyncio.create_task(_collect(watcher, None, run))
        ]
        known.codes.append(code)
        known.tokens[code] = [c.token or "" for c in clients]
        known.add_sample({"type": "join", "id": 1, "room": code, "name": "Real", "seat": 1})
        known.add_sample({"type": "host", "id": 1, "room": code, "op": "next_game"})
        try:
            await _play_games(host, clients, run, known, stop, rng)
        except (ClientError, TimeoutError) as exc:  # a game that stopped moving: a finding
            run.stalled = f"{code} after v{known.versions.get(code)}: {exc!r}"
        if run.daily is None and host.room_info is not None:
            run.daily = host.room_info.daily
        if game == "sheepshead":  # the deals, revealed once each hand is over
            run.deals = await asyncio.to_thread(_dealt, url, code, host.token or "")
        return run
    finally:
        for client in [*clients, watcher]:
            await client.close()
        for task in collectors:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


async def _play_games(
    host: CardroomClient,
    clients: list[CardroomClient],
    run: RoomRun,
    known: Known,
    stop: asyncio.Event,
    rng: random.Random,
) -> None:
    ack = await host.host("start")
    while True:
        run.games.append(GameLog(ack.version or 0))
        known.versions[run.code] = ack.version or 0
        await asyncio.gather(
            *(
                _play_seat(c, i, run, known, random.Random(rng.random()))
                for i, c in enumerate(clients)
            )
        )
        run.finished += 1
        if stop.is_set():
            return
        try:
            ack = await host.host("next_game")
        except CardroomError as exc:
            if exc.code == "not_between_games":  # the ten hands of a match are over
                return
            raise


def _dealt(url: str, code: str, token: str) -> list[DealRecord]:
    """Each finished game's deal record, from the room's history (its players may read it)."""
    base = url.replace("ws://", "http://", 1).rstrip("/")
    request = urllib.request.Request(  # the fuzzer's own loopback server
        f"{base}/api/rooms/{code}/history", headers={"Authorization": f"Bearer {token}"}
    )
    with urllib.request.urlopen(request, timeout=30) as r:
        games: list[dict[str, Any]] = json.loads(r.read())["games"]
    return [item["deal"] for item in games]


# ---------------------------------------------------------------------------- rebuilding


def _action(data: Mapping[str, object]) -> Action:
    return Action.from_json({k: v for k, v in data.items() if v is not None and v != []})


def _own_states(run: RoomRun) -> dict[int, dict[int, m.State]]:
    """Each seat's own states by version: the first of each version, the one with its events
    (a snapshot sent again after a refusal has none)."""
    out: dict[int, dict[int, m.State]] = {}
    for seat, state in run.states:
        if seat is not None:
            out.setdefault(seat, {}).setdefault(state.version, state)
    return out


def _shithead_deal(run: RoomRun, log: GameLog, own: dict[int, dict[int, m.State]]) -> Shithead:
    """The deal of one Shithead game, pieced together from the seats' own views."""
    n = run.seats
    first = {s: shithead_view(own[s][log.deal].view) for s in range(n)}
    dealer: int = first[0]["dealer"]
    up = [list(first[0]["seats"][s]["face_up"]) for s in range(n)]
    hand = [list(first[s]["hand"] or []) for s in range(n)]
    down: list[list[str | None]] = [[None, None, None] for _ in range(n)]
    drawn: list[str] = []
    for version, _seat, _action_json in log.actions:
        events = next(iter(own[s][version].events for s in range(n) if version in own[s]), [])
        picked = {c for e in events if e["kind"] == "picked_up" for c in e.get("cards", [])}
        for event in events:
            who: int = event["seat"]
            if event["kind"] in ("played", "flipped") and event.get("source", "face_down") == (
                "face_down"
            ):
                if event.get("slot") is not None:
                    down[who][event["slot"]] = event["cards"][0]
            elif event["kind"] == "drew":
                before = _latest_before(own[who], version).view["hand"]
                after = own[who][version].view["hand"]
                new = sorted(set(after or []) - set(before or []) - picked)
                if len(new) != event["count"]:
                    raise ValueError(f"v{version}: seat {who} drew {event['count']}, saw {new}")
                drawn.extend(new)
    seen = {c for cards in (*up, *hand) for c in cards} | set(drawn)
    seen |= {c for slots in down for c in slots if c is not None}
    unseen = iter(c for c in ALL_CARDS if c not in seen)
    filled = [[c if c is not None else next(unseen) for c in slots] for slots in down]
    deck = deck_from_deal(
        n,
        dealer,
        down=[" ".join(d) for d in filled],
        up=[" ".join(u) for u in up],
        hand=[" ".join(h) for h in hand],
        stock=" ".join(drawn),
    )
    return Shithead.new(n, dealer, deck=deck)


def _latest_before(states: dict[int, m.State], version: int) -> m.State:
    return states[max(v for v in states if v < version)]


def _replay(run: RoomRun) -> Iterator[tuple[int, Game]]:
    """(version, game) after every version of the room, rebuilt by the rules alone.

    The game object is the same one, mutated: look at it before taking the next step.
    """
    if run.game == "sheepshead":
        for log, deal in zip(run.games, run.deals, strict=False):  # hands not over: unknown
            hand = Sheepshead.from_deal_record(deal)
            yield log.deal, hand
            for version, seat, action in log.actions:
                hand.apply(seat, _action(action))
                yield version, hand
        return
    own = _own_states(run)
    for log in run.games:
        game = _shithead_deal(run, log, own)
        yield log.deal, game
        for version, seat, action in log.actions:
            game.apply(seat, _action(action))
            yield version, game


def _same(view: View) -> dict[str, object]:
    """A view with its legal actions as a set, and in Shithead by rank: their order and the
    suit chosen to represent a rank follow the order cards were dealt into a hand, which a
    rebuilt deal knows only up to the sorted hand (any card of that rank is accepted)."""
    legal: list[Mapping[str, object]] = list(view["legal"])
    if view["game"] == "shithead":
        legal = [{**a, "cards": [c[0] for c in a.get("cards", [])]} for a in view["legal"]]
    return {**view, "legal": sorted(json.dumps(a, sort_keys=True) for a in legal)}


def verify(run: RoomRun, extra: list[m.State]) -> Verdict:
    """Compare every state of the room (seats, spectator, and ``extra`` from hostile
    watchers) with the rules' view at its version; report versions nobody of ours caused."""
    verdict = Verdict()
    wanted: dict[int, list[tuple[int | None, m.State]]] = {}
    for seat, state in [*run.states, *((None, s) for s in extra)]:
        if state.seat != seat:
            verdict.mismatches.append(f"v{state.version}: seat {seat} was sent seat {state.seat}")
        wanted.setdefault(state.version, []).append((state.seat, state))
    expected = 0
    for log in run.games:
        versions = [log.deal, *sorted(v for v, _, _ in log.actions)]
        if expected and log.deal != expected + 1:
            verdict.gaps.append(f"{run.code}: deal at v{log.deal}, expected v{expected + 1}")
        for a, b in itertools.pairwise(versions):
            if b != a + 1:
                verdict.gaps.append(f"{run.code}: v{a} -> v{b}")
        expected = versions[-1]
    try:
        for version, game in _replay(run):
            for seat, state in wanted.pop(version, []):
                got, want = _same(state.view), _same(game.view(seat))
                if got != want:
                    keys = [k for k in want if got.get(k) != want[k]]
                    detail = "; ".join(f"{k}: {got.get(k)} != {want[k]}" for k in keys)[:400]
                    verdict.mismatches.append(
                        f"{run.code} ({run.game}) v{version} seat {seat}: {detail}"
                    )
                verdict.checked += 1
    except Exception as exc:  # a log the rules refuse is itself a finding
        verdict.mismatches.append(f"{run.code}: could not rebuild: {exc!r}")
        return verdict
    beyond = [v for v in wanted if v > expected]
    if beyond:
        verdict.gaps.append(f"{run.code}: states of versions never caused: {sorted(beyond)[:5]}")
    return verdict
