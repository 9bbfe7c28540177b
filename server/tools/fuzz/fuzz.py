"""``cardroom fuzz``: hostile frames against a server on this machine, with figures.

Against ``--url`` (a server already running on 127.0.0.1) or, by default, a ``cardroom
serve`` child process it starts with its limits changed explicitly (and says so). Frames come
from four sources, in sessions of one connection each:

* the protocol's own schema (:mod:`server.tools.fuzz.strategies`): every client message type;
* mutations of valid frames taken from real games and from the schema
  (:mod:`server.tools.fuzz.mutate`): wrong types, missing and extra fields, huge and deep
  values, other rooms' codes, stale and future versions, other rooms' and damaged tokens;
* garbage: binary frames, text that is not JSON or not an object, frames cut short;
* protocol abuse: many requests pipelined in one TCP write (and one connection asking to be in
  two rooms at once), half-open sockets, slow readers, oversize frames, bad UTF-8, bad frame
  headers.

Beside it, real games run in other rooms (:mod:`server.tools.fuzz.games`) and quiet sentinel rooms
are aimed at (:mod:`server.tools.fuzz.sentinels`). It checks, and prints: every frame got a typed
answer or a documented close (counts by answer code and close code); the server process never
died and logged no error; no sentinel room changed; the real games' views equal the rules'
views rebuilt from their logs (which also proves no connection, hostile watchers included,
received another seat's hidden card); no ghost seat; every room and connection closed once
everyone left. Exit status 1 when any check fails. Bounded in frames and seconds; loopback only.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import random
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_args

from prometheus_client.parser import text_string_to_metric_families

from protocol import messages as m
from protocol.messages import GameName
from server.tools.bench import procs
from server.tools.fuzz.games import RoomRun, Verdict, play_room, verify
from server.tools.fuzz.mutate import Frame, Known, encode, garbage, mutate
from server.tools.fuzz.probe import Session, Tally
from server.tools.fuzz.raw import check_loopback
from server.tools.fuzz.sentinels import (
    KINDS,
    Sentinel,
    diff,
    ghosts,
    open_sentinel,
    open_victim,
    refused_inside,
    snapshot,
)

#: The child server's limits, changed from the defaults so one fuzzing client is not throttled
#: and abandoned rooms close within the run.
CHILD_LIMITS = {
    "--rate": "100000",  # default 20 messages/s per connection
    "--burst": "100000",  # default 40
    "--grace": "1",  # default 60 s before a disconnected seat is freed
    "--idle-timeout": "3",  # default 300 s before an empty room closes
    "--hello-timeout": "3",  # default 10 s to say hello: idle probes wait a little longer
    "--max-per-address": "1000",  # default 50 connections from one address (all ours)
    "--rooms-per-minute": "100000",  # default 10 rooms a minute from one address
    "--rooms-burst": "100000",  # default 20
    "--rooms-per-address": "10000",  # default 20 rooms open from one address
    "--chat-per-minute": "100000",  # default 60 chat lines a minute per room
    "--chat-burst": "100000",  # default 20
    "--chat-each-per-minute": "100000",  # default 20 chat lines a minute per sender
    "--chat-each-burst": "100000",  # default 6
    "--history-rate": "100000",  # default 2 reads a second per address: it reads every history
    "--history-burst": "100000",  # default 20
    "--miss-rate": "100000",  # default 0.2 misses a second: its hostile frames name any room
    "--miss-burst": "100000",  # default 10
    # default on: its Sheepshead rooms seat five fuzzer people at the day's deals (unranked)
    "--daily-alone": "off",
}
HELLO_TIMEOUT = float(CHILD_LIMITS["--hello-timeout"])
HELLO = {"type": "hello", "protocol": 1}


def _talk(frame: str) -> bool:
    """Whether ``frame`` is a chat line or a reaction (accepted anywhere a seat is)."""
    try:
        parsed = json.loads(frame)
    except ValueError:
        return False
    return isinstance(parsed, dict) and parsed.get("type") in ("chat", "react")


@dataclass
class Options:
    url: str | None = None
    frames: int = 100_000
    seconds: float = 900.0
    seed: int = 1
    workers: int = 8
    idle_wait: float = HELLO_TIMEOUT + 3  # seconds a connection that never says hello is watched
    server_log: str | None = None  # where to keep the child server's log


@dataclass
class Report:
    tally: Tally = field(default_factory=Tally)
    sessions: Counter[str] = field(default_factory=Counter)
    unexpected_accepts: list[str] = field(default_factory=list)  # insiders' frames accepted
    sentinel_changes: list[str] = field(default_factory=list)
    ghost_probes: int = 0
    ghost_seats: int = 0
    double_joins: int = 0  # one connection answered `joined` twice in one write
    idle_held: int = 0  # connections that never said hello and were never closed by the server
    idle_probes: int = 0
    slow_closed: Counter[int] = field(default_factory=Counter)
    verdict: Verdict = field(default_factory=Verdict)
    games_finished: Counter[str] = field(default_factory=Counter)
    refused_legal: list[str] = field(default_factory=list)
    fuzzer_errors: Counter[str] = field(default_factory=Counter)  # our bugs, not the server's
    stalled: list[str] = field(default_factory=list)  # real games that stopped moving
    game_refusals: int = 0  # illegal moves seated players made in real games, all refused
    server_alive: bool = True
    server_errors: list[str] = field(default_factory=list)
    error_kinds: Counter[str] = field(default_factory=Counter)
    hostile_states: int = 0  # states hostile connections received, each checked for its seat
    rooms_left: float = 0.0
    connections_left: float = 0.0
    seconds: float = 0.0
    limits: str = ""

    def failures(self) -> list[str]:
        t = self.tally
        checks = {
            "frames with no answer on a connection left open": t.unanswered,
            "closes with an undocumented code": sum(t.undocumented_closes.values()),
            "server frames off the protocol's schema": t.bad_server_frames,
            "refused-by-design frames that were accepted": len(self.unexpected_accepts),
            "sentinel rooms changed": len(self.sentinel_changes),
            "ghost seats": self.ghost_seats,
            "connections that never said hello, held past the hello timeout": self.idle_held,
            "connections answered `joined` twice in one write": self.double_joins,
            "views that differ from the rules' views": len(self.verdict.mismatches),
            "versions nobody asked for": len(self.verdict.gaps),
            "stuck rooms (a real game that stopped moving for 60 s)": len(self.stalled),
            "legal moves refused or illegal ones accepted in real games": len(self.refused_legal),
            "server errors logged": len(self.server_errors),
            "rooms left open after everyone left": int(self.rooms_left),
            "connections left open after everyone left": int(self.connections_left),
        }
        out = [f"{name}: {n}" for name, n in checks.items() if n]
        if not self.server_alive:
            out.append("the server process died")
        return out


class Fuzzer:
    def __init__(self, url: str, opts: Options) -> None:
        self.url = url
        self.opts = opts
        self.rng = random.Random(opts.seed)
        self.known = Known()
        self.report = Report()
        self.ids = itertools.count(1)
        self.sent = 0
        self.deadline = time.monotonic() + opts.seconds
        self.pool: list[Frame] = []
        self.sentinels: list[Sentinel] = []
        self.insiders: dict[str, Session] = {}
        self.lost: set[str] = set()  # insiders that could not get back in
        self.hostile_states: list[tuple[int | None, m.State]] = []
        self.victims: list[Any] = []
        self.runs: list[RoomRun] = []

    # ------------------------------------------------------------------ frames

    def _id(self, rng: random.Random) -> int | str:
        n = next(self.ids)
        return n if rng.random() < 0.5 else f"f{n}"

    def _retarget(self, frame: Frame, rng: random.Random) -> Frame:
        frame = {**frame, "id": self._id(rng)}
        if "room" in frame and self.known.codes and rng.random() < 0.6:
            frame["room"] = rng.choice(self.known.codes)
        if frame.get("type") == "act" and rng.random() < 0.5:
            frame["version"] = self.known.versions.get(frame["room"], 0)
        return frame

    def frame(self, rng: random.Random) -> str | bytes:
        """One hostile frame from the mix."""
        roll = rng.random()
        if roll < 0.30 and self.pool:
            return encode(self._retarget(rng.choice(self.pool), rng), rng)
        if roll < 0.75:
            samples = self.known.samples or self.pool
            base = self._retarget(rng.choice(samples), rng) if samples else {"type": "ping"}
            return mutate(base, rng, self.known)
        if roll < 0.90:
            return garbage(rng, rng.choice(self.known.samples) if self.known.samples else None)
        harmless: list[Frame] = [
            {"type": "ping"},
            {**HELLO},
            {"type": "watch", "room": rng.choice(self.known.codes or ["AAAAA"])},
        ]
        return json.dumps({**rng.choice(harmless), "id": self._id(rng)})

    def _hello(self, rng: random.Random) -> str:
        return json.dumps({**HELLO, "id": self._id(rng)})

    def _budget_left(self) -> bool:
        return self.sent < self.opts.frames and time.monotonic() < self.deadline

    # ------------------------------------------------------------------ sessions

    async def outsider(self, rng: random.Random) -> None:
        """A new connection: hello, then a batch of hostile frames, pipelined or not."""
        session = Session(self.url)
        await session.open()
        size = rng.choice([5, 10, 20, 40, 200]) if rng.random() < 0.9 else 1
        frames: list[str | bytes] = [self._hello(rng)] if rng.random() < 0.9 else []
        frames += [self.frame(rng) for _ in range(size)]
        await session.send(frames, one_write=rng.random() < 0.7)
        self.sent += len(frames)
        await session.settle(self.report.tally, timeout=15)
        self._keep_states(session)
        await session.raw.close(abrupt=rng.random() < 0.3)
        self.report.sessions["outsider"] += 1

    async def hostile_host(self, rng: random.Random) -> None:
        """A host of its own room who drives it through valid but unruly sequences (bots in and
        out, kicks, starts, next games, moves at guessed versions, leaving and coming back),
        with hostile frames between, in a few bursts while the bots play."""
        session = Session(self.url)
        await session.open()
        game = rng.choice(["shithead", "shithead", "sheepshead"])
        seats = 5 if game == "sheepshead" else rng.randrange(2, 6)
        create = {"type": "create", "game": game, "seats": seats, "name": "Unruly"}
        create["turn_timer"] = rng.choice([None, 1, 2])
        await session.send([self._hello(rng), json.dumps({**create, "id": self._id(rng)})])
        self.sent += 2
        await session.raw.wait(
            lambda: bool(session.parse_new(self.report.tally)) and bool(session.seat_in), 10
        )
        code = next(iter(session.seat_in), "AAAAA")
        ops = list(get_args(m.HostOp))
        for _burst in range(rng.randrange(2, 6)):
            frames: list[str | bytes] = []
            for _ in range(rng.randrange(3, 15)):
                roll = rng.random()
                frame: Frame = {"id": self._id(rng), "room": code}
                if roll < 0.4:
                    frame.update(
                        type="host", op=rng.choice(ops), seat=rng.choice([None, 0, 1, 2, 3, 4])
                    )
                    if rng.random() < 0.5:
                        frame["level"] = rng.choice(["random", "basic"])
                elif roll < 0.75:
                    version = max((s.version for _, s in session.states), default=0)
                    legal = [a for _, s in session.states[-1:] for a in s.view["legal"]]
                    action = (
                        rng.choice(legal)
                        if legal
                        else {"kind": rng.choice(["ready", "pass", "play"])}
                    )
                    frame.update(
                        type="act", version=version + rng.choice([0, 0, 0, 1, -1]), action=action
                    )
                elif roll < 0.8:
                    frame.update(type="leave")
                elif roll < 0.85:
                    frame.update(type="join", name=f"Back{rng.randrange(100)}")
                elif roll < 0.9:
                    frame.update(type="chat", text="gg")
                else:
                    frames.append(self.frame(rng))
                    continue
                frames.append(json.dumps(frame))
            await session.send(frames)
            self.sent += len(frames)
            await session.raw.wait(
                lambda: (session.parse_new(self.report.tally), session.answered())[1], 10
            )
            await asyncio.sleep(rng.choice([0.0, 0.1, 0.5, 1.5]))
        await session.settle(self.report.tally, timeout=15)
        self._keep_states(session)
        await session.raw.close(abrupt=rng.random() < 0.5)
        self.report.sessions["hostile host"] += 1

    async def insider(self, rng: random.Random) -> None:
        """A batch from inside a sentinel: its seated host (frames it must refuse only) or one
        of its spectators (anything); a ping every few frames keeps the bad-frame streak short
        of the server's limit, so the seat is never dropped."""
        sentinel = rng.choice(self.sentinels)
        seated = rng.random() < 0.6
        session = await self._insider_session(sentinel, seated, rng)
        if session is None:
            return
        frames = self._inside_frames(sentinel, seated, rng)
        before = len(session.messages)
        await session.send(frames, one_write=rng.random() < 0.5)
        self.sent += len(frames)

        def done() -> bool:
            session.parse_new(self.report.tally)
            return session.answered()

        await session.raw.wait(done, 15)
        session.parse_new(self.report.tally)
        if seated:
            self._check_refused(sentinel, session, session.messages[before:])
        self.report.sessions["insider batch"] += 1

    async def _insider_session(
        self, sentinel: Sentinel, seated: bool, rng: random.Random
    ) -> Session | None:
        """The sentinel's insider, let in again if the server closed it (``None``: it could
        not get back in, which is reported once)."""
        key = f"{sentinel.code}:{'seat' if seated else 'watch'}"
        session = self.insiders.get(key)
        if session is not None and session.raw.closed:  # closed by the server: count it
            session.parse_new(self.report.tally)
            session.account(self.report.tally)
            self._keep_states(session)
            await session.raw.close()
            session = None
        if session is not None:
            return session
        if key in self.lost:
            return None
        session = await self._enter(sentinel, seated, rng)
        if sentinel.code not in session.seat_in:  # its seat is gone: say so once
            self.lost.add(key)
            self.report.sentinel_changes.append(
                f"{sentinel.kind} {sentinel.code}: its "
                f"{'seat' if seated else 'watcher'} could not come back"
            )
            await session.raw.close()
            return None
        self.insiders[key] = session
        return session

    def _inside_frames(
        self, sentinel: Sentinel, seated: bool, rng: random.Random
    ) -> list[str | bytes]:
        frames: list[str | bytes] = []
        while len(frames) < 30:
            text = self.frame(rng)
            if isinstance(text, str) and len(text.encode()) > 60_000:
                continue
            if seated and not refused_inside(text, sentinel):
                continue
            frames.append(text)
            if len(frames) % 6 == 5:
                frames.append(json.dumps({"type": "ping", "id": self._id(rng)}))
        if seated and sentinel.guest is not None and sentinel.guest.token:
            # the other human's token, from inside the room: refused, never a second seat
            steal = {"type": "resume", "room": sentinel.code, "token": sentinel.guest.token}
            frames.append(json.dumps({**steal, "id": self._id(rng)}))
        return frames

    def _check_refused(
        self, sentinel: Sentinel, session: Session, replies: list[m.ServerMessage]
    ) -> None:
        """The seated insider sent only frames the room must refuse (or harmless ones)."""
        for msg in replies:
            if not isinstance(msg, m.Ack | m.Joined):
                continue
            frame = session.frame_for(msg.ref)
            if isinstance(msg, m.Ack) and isinstance(frame, str) and _talk(frame):
                continue  # chat and reactions change no record
            if isinstance(msg, m.Joined) and msg.room == sentinel.code and msg.seat == 0:
                continue  # its own seat, resumed again
            self.report.unexpected_accepts.append(f"{sentinel.kind}: {frame!r} -> {msg!r}")

    async def _enter(self, sentinel: Sentinel, seated: bool, rng: random.Random) -> Session:
        session = Session(self.url)
        await session.open()
        if seated:
            ask = {"type": "resume", "room": sentinel.code, "token": sentinel.token}
        else:
            ask = {"type": "watch", "room": sentinel.code}
        await session.send([self._hello(rng), json.dumps({**ask, "id": self._id(rng)})])
        self.sent += 2

        def joined() -> bool:
            session.parse_new(self.report.tally)
            return any(isinstance(x, m.Joined) for x in session.messages)

        await session.raw.wait(joined, 15)
        if seated:  # a resume rotates the seat's token: the next one is made with the fresh one
            for msg in session.messages:
                if isinstance(msg, m.Joined) and msg.token:
                    sentinel.token = msg.token
                    self.known.tokens.setdefault(sentinel.code, []).append(msg.token)
        return session

    async def ghost_probe(self, rng: random.Random) -> None:
        """One write asking for two places at once; then vanish (such a prober once left its seat
        shown as a connected person: a ghost)."""
        if len(self.victims) < 2:
            return
        a, b = (v.room for v in rng.sample(self.victims, 2))
        variants = [
            [("join", a), ("join", b)],
            [("watch", a), ("join", b)],
            [("join", a), ("join", a)],
            [("watch", a), ("watch", b)],
            [("watch", a), ("create", None)],
        ]
        session = Session(self.url)
        await session.open()
        frames: list[str | bytes] = [self._hello(rng)]
        for kind, code in rng.choice(variants):
            frame: Frame = {"type": kind, "id": self._id(rng)}
            if kind == "create":
                frame.update(game="shithead", seats=3, name="Ghost")
            else:
                frame["room"] = code
            if kind == "join":
                frame["name"] = f"Ghost{rng.randrange(1000)}"
            frames.append(json.dumps(frame))
        await session.send(frames)
        self.sent += len(frames)
        await session.settle(self.report.tally, timeout=15)
        joined = sum(isinstance(x, m.Joined) for x in session.messages)
        if joined > 1:
            self.report.double_joins += 1
        await session.raw.close(abrupt=True)
        self.report.ghost_probes += 1
        for victim in self.victims:
            self.report.ghost_seats += await ghosts(victim, 0.3)
        # let the grace period free the seats before the next probe
        await asyncio.sleep(1.5)
        self.report.sessions["ghost probe"] += 1

    async def abuse(self, rng: random.Random, what: str) -> None:
        """Frames that break the WebSocket layer, or sockets that misbehave."""
        session = Session(self.url)
        await session.open()
        hello = self._hello(rng)
        if what == "oversize":
            frames: list[str | bytes] = [hello, json.dumps({"type": "ping", "id": "x" * 70_000})]
            await session.send(frames)
        elif what == "bad_utf8":
            await session.send([hello])
            session.broken_on_purpose = True
            session.sent.append(b"\xff")  # counts as a frame; its answer is the 1007 close
            await session.raw.send_bad_text(b'{"type": "ping", "id": "\xff\xfe"}')
        elif what == "bad_header":
            await session.send([hello])
            session.broken_on_purpose = True
            session.sent.append(b"\x00")
            # reserved bits set and no mask: a client frame the RFC says to fail (1002)
            await session.raw.send_bytes(b"\xf1\x05hello")
        elif what == "half_open":
            await session.send([hello])
            session.broken_on_purpose = True
            await session.raw.send_bytes(b"\x81\xfe\x10\x00")  # a header promising 4 KiB
            await session.raw.half_close()
        else:  # vanish: requests in flight, then the TCP connection is gone
            frames = [hello, *(self.frame(rng) for _ in range(10))]
            await session.send(frames)
            self.sent += len(frames)
            await session.raw.close(abrupt=True)
            self.report.sessions["abuse vanish"] += 1
            return
        self.sent += len(session.sent)
        await session.settle(self.report.tally, timeout=15)
        await session.raw.close(abrupt=True)
        self.report.sessions[f"abuse {what}"] += 1

    async def idle_probe(self) -> None:
        """Connections that never say hello: does the server close them by itself?"""
        session = Session(self.url)
        await session.open()
        await session.raw.wait(lambda: False, self.opts.idle_wait)
        closed = session.raw.closed
        self.report.idle_probes += 1
        if not closed:
            self.report.idle_held += 1
        await session.raw.close(abrupt=True)
        self.report.sessions["idle (no hello)"] += 1

    async def slow_reader(self, rng: random.Random) -> None:
        """A connection that asks for a great deal and reads nothing: closed with 1013."""
        session = Session(self.url)
        await session.open(rcvbuf=4096)
        session.raw.reading = False
        create = {"type": "create", "game": "shithead", "seats": 5, "name": "Slow"}
        frames: list[str | bytes] = [
            self._hello(rng),
            json.dumps({**create, "id": self._id(rng)}),
        ]
        for i in range(1500):
            op = "lock" if i % 2 else "unlock"
            frames.append(
                json.dumps({"type": "host", "id": self._id(rng), "room": "ZZZZZ", "op": op})
            )
        await session.send(frames[:2])
        await asyncio.sleep(0.2)
        session.raw.reading = True
        await session.raw.wait(lambda: any("joined" in t for t in session.raw.got.texts), 10)
        session.raw.reading = False
        session.parse_new(self.report.tally)
        room = next((x.room for x in session.messages if isinstance(x, m.Joined)), "ZZZZZ")
        frames = [
            f.replace('"ZZZZZ"', json.dumps(room)) if isinstance(f, str) else f for f in frames
        ]
        session.sent = frames[:2]
        await session.send(frames[2:])
        self.sent += len(frames)
        await asyncio.sleep(3)
        session.raw.reading = True
        await session.settle(self.report.tally, timeout=20)
        self.report.slow_closed[session.raw.got.close_code or 0] += 1
        await session.raw.close(abrupt=True)
        self.report.sessions["slow reader"] += 1

    def _keep_states(self, session: Session) -> None:
        self.hostile_states.extend(session.states)

    # ------------------------------------------------------------------ the run

    async def worker(self, n: int) -> None:
        """Hostile sessions, one after another, until the budget is spent."""
        rng = random.Random(self.opts.seed * 1000 + n)
        while self._budget_left():
            roll = rng.random()
            if roll < 0.7:
                await self._guard(self.outsider(rng))
            elif roll < 0.85:
                await self._guard(self.insider(rng))
            else:
                await self._guard(self.hostile_host(rng))

    async def abuser(self) -> None:
        """Protocol abuse, one kind after another in turn, beside the workers: ghost probes,
        WebSocket-level breakage, connections that never say hello, a slow reader."""
        rng = random.Random(self.opts.seed * 1000 - 1)
        kinds = ["ghost", "oversize", "bad_utf8", "ghost", "bad_header", "half_open", "vanish"]
        slow_every = max(20_000, self.opts.frames // 3)
        for turn in itertools.count():
            if not self._budget_left():
                return
            kind = kinds[turn % len(kinds)]
            if kind == "ghost":
                await self._guard(self.ghost_probe(rng))
            else:
                await self._guard(self.abuse(rng, kind))
            if turn % 10 == 3:
                await self._guard(self.idle_probe())
            if sum(self.report.slow_closed.values()) < 1 + self.sent // slow_every:
                await self._guard(self.slow_reader(rng))

    async def _guard(self, session: Any) -> None:
        try:
            await session
        except (OSError, TimeoutError) as exc:
            self.report.sessions[f"could not connect ({type(exc).__name__})"] += 1
            await asyncio.sleep(0.5)
        except Exception as exc:  # a bug of the fuzzer's own: shown, and the run goes on
            self.report.fuzzer_errors[f"{type(exc).__name__}: {exc}"[:120]] += 1

    async def games(self, stop: asyncio.Event) -> None:
        """Real rooms, one Shithead and one Sheepshead at a time, until ``stop``."""

        async def keep(game: GameName, rng: random.Random) -> None:
            while not stop.is_set():
                run = await play_room(self.url, game, self.known, stop, rng)
                self.runs.append(run)

        await asyncio.gather(
            keep("shithead", random.Random(self.opts.seed + 1)),
            keep("sheepshead", random.Random(self.opts.seed + 2)),
        )

    async def run(self, metrics_url: str) -> Report:
        from server.tools.fuzz.strategies import client_frames  # hypothesis: the fuzz extra

        start = time.monotonic()
        self.pool = await asyncio.to_thread(
            client_frames, min(5000, max(200, self.opts.frames // 20)), self.opts.seed
        )
        stop = asyncio.Event()
        games = asyncio.create_task(self.games(stop))
        self.sentinels = [await open_sentinel(self.url, k, self.rng) for k in KINDS]
        self.victims = [await open_victim(self.url) for _ in range(2)]
        for s in self.sentinels:
            self.known.codes.append(s.code)
            self.known.tokens[s.code] = [s.token]
            self.known.versions[s.code] = s.version
        for s in self.sentinels:  # insiders take the seats before the first look
            for seated in (True, False):
                key = f"{s.code}:{'seat' if seated else 'watch'}"
                if key not in self.insiders:
                    self.insiders[key] = await self._enter(s, seated, self.rng)
            s.before = await snapshot(self.url, s.code)
        await asyncio.gather(self.abuser(), *(self.worker(i) for i in range(self.opts.workers)))
        stop.set()
        await games
        for s in self.sentinels:
            after = await snapshot(self.url, s.code)
            assert s.before is not None
            changes = diff(s.before, after)
            if changes:
                closed = [
                    f"its {key.split(':')[1]} insider was closed with {x.raw.got.close_code}"
                    for key, x in self.insiders.items()
                    if key.startswith(s.code) and x.raw.got.close_code is not None
                ]
                why = f" ({'; '.join(closed)})" if closed else ""
                self.report.sentinel_changes.append(f"{s.kind} {s.code}: {', '.join(changes)}{why}")
        for session in self.insiders.values():
            session.parse_new(self.report.tally)
            session.account(self.report.tally)
            self._keep_states(session)
            await session.raw.close()
        for s in self.sentinels:
            await s.host.close()
            if s.guest is not None:
                await s.guest.close()
        for victim in self.victims:
            await victim.close()
        self._verify_games()
        self.report.seconds = time.monotonic() - start
        await self._left_open(metrics_url)
        return self.report

    def _verify_games(self) -> None:
        total = self.report.verdict
        by_room: dict[str, list[m.State]] = {}
        for seat, state in self.hostile_states:
            if state.seat != seat or (seat is None and state.view["hand"] is not None):
                total.mismatches.append(
                    f"{state.room} v{state.version}: a connection in seat {seat} got the view "
                    f"of seat {state.seat}"
                )
            by_room.setdefault(state.room, []).append(state)
            self.report.hostile_states += 1
        for run in self.runs:
            verdict = verify(run, by_room.pop(run.code, []))
            total.checked += verdict.checked
            total.mismatches += verdict.mismatches
            total.gaps += verdict.gaps
            self.report.games_finished[run.game] += run.finished
            self.report.refused_legal += run.refused_legal
            self.report.game_refusals += run.refusals
            if run.stalled:
                self.report.stalled.append(run.stalled)

    async def _left_open(self, metrics_url: str) -> None:
        """Wait past the idle timeout: every room and connection should be gone."""
        end = time.monotonic() + 30
        while True:
            values = await asyncio.to_thread(read_metrics, metrics_url)
            self.report.rooms_left = values.get("cardroom_rooms", 0.0)
            self.report.connections_left = values.get("cardroom_connections", 0.0)
            if not (self.report.rooms_left or self.report.connections_left):
                return
            if time.monotonic() > end:
                return
            await asyncio.sleep(1)


def read_metrics(url: str) -> dict[str, float]:
    """Every sample of a Prometheus ``/metrics`` page (labels folded into the name)."""
    with urllib.request.urlopen(url, timeout=10) as r:
        text = r.read().decode()
    out: dict[str, float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            labels = ",".join(f"{k}={v}" for k, v in sorted(sample.labels.items()))
            out[f"{sample.name}{{{labels}}}" if labels else sample.name] = sample.value
    return out


def print_report(report: Report, opts: Options) -> None:
    t = report.tally
    print(f"cardroom fuzz: {t.frames:,} frames in {report.seconds:.0f} s (seed {opts.seed})")
    print(report.limits)
    print("sessions: " + ", ".join(f"{k} {v:,}" for k, v in report.sessions.most_common()))
    print("answers by code:")
    for code, n in t.answers.most_common():
        print(f"  {code:32} {n:>9,}")
    print("notices (ref: null): " + (", ".join(f"{k} {v}" for k, v in t.notices.items()) or "0"))
    print("closes by the server, by code: " + _counts(t.closes))
    print("frames unanswered because their connection was closed, by close code: ")
    print("  " + _counts(t.dropped_at_close))
    print(f"frames with no answer on a connection left open: {t.unanswered}")
    print(f"replies beyond the frames sent: {t.extra_replies}")
    print(f"undocumented close codes: {_counts(t.undocumented_closes)}")
    print(f"server frames off the protocol's schema: {t.bad_server_frames}")
    print(f"insiders' must-refuse frames accepted: {len(report.unexpected_accepts)}")
    print(f"sentinel rooms changed: {len(report.sentinel_changes)} of {len(KINDS)}")
    print(
        f"ghost probes: {report.ghost_probes}, ghost seats: {report.ghost_seats}, "
        f"double joins: {report.double_joins}"
    )
    print(f"slow readers, by close code: {_counts(report.slow_closed)}")
    print(
        f"connections that never said hello, held {opts.idle_wait:.0f} s by the server: "
        f"{report.idle_held} of {report.idle_probes}"
    )
    print(
        f"real games finished: {_counts(report.games_finished)}; states compared with the "
        f"rules' views: {report.verdict.checked:,}; differing: {len(report.verdict.mismatches)}; "
        f"versions nobody asked for: {len(report.verdict.gaps)}"
    )
    print(f"stuck rooms (a real game that stopped moving for 60 s): {len(report.stalled)}")
    print(f"illegal moves by seated players in real games, refused: {report.game_refusals}")
    if report.fuzzer_errors:
        print("errors of the fuzzer itself: " + _counts(report.fuzzer_errors))
    print(f"server alive: {report.server_alive}; errors logged: {len(report.server_errors)}")
    for kind, n in report.error_kinds.most_common(10):
        print(f"  {n:>6} x {kind}")
    print(f"states received by hostile connections, each its own seat's: {report.hostile_states:,}")
    print(
        f"left open after everyone left: rooms {report.rooms_left:.0f}, "
        f"connections {report.connections_left:.0f}"
    )
    for line in (
        t.samples
        + report.unexpected_accepts[:5]
        + report.sentinel_changes
        + report.verdict.mismatches[:5]
        + report.verdict.gaps[:5]
        + report.refused_legal[:5]
        + report.stalled[:5]
        + report.server_errors[:5]
    ):
        print("  ! " + line)
    failures = report.failures()
    print("FAILED: " + "; ".join(failures) if failures else "all checks passed")


def server_errors(log: str) -> tuple[list[str], Counter[str]]:
    """The ERROR lines of a server log, and how many of each exception their tracebacks end
    with (the first line after a traceback's indented frames)."""
    lines = log.splitlines()
    errors = [line for line in lines if " ERROR " in line or " CRITICAL " in line]
    kinds: Counter[str] = Counter()
    in_tb = False
    for line in lines:
        if line.startswith("Traceback"):
            in_tb = True
        elif in_tb and line and not line.startswith(" "):
            kinds[line[:120]] += 1
            in_tb = False
    return errors, kinds


def _counts(counter: Counter[Any]) -> str:
    return ", ".join(f"{k}: {v:,}" for k, v in sorted(counter.items())) or "none"


async def _run(opts: Options) -> Report:
    if opts.url is not None:
        check_loopback(opts.url)
        http = opts.url.replace("ws://", "http://").rstrip("/")
        report = await Fuzzer(opts.url, opts).run(f"{http}/metrics")
        report.limits = "limits: the running server's own (raise its --rate/--burst first)"
        return report
    port = procs.free_port()
    extra = [x for kv in CHILD_LIMITS.items() for x in kv]
    with tempfile.TemporaryFile(mode="w+") as log:
        child = procs.start(procs.serve_command(port, *extra), stderr=log)
        try:
            await _wait_healthy(port, child)
            report = await Fuzzer(f"ws://127.0.0.1:{port}/", opts).run(
                f"http://127.0.0.1:{port}/metrics"
            )
            report.server_alive = child.poll() is None
        finally:
            await asyncio.to_thread(procs.stop, child)
        log.seek(0)
        text = log.read()
        if opts.server_log:
            await asyncio.to_thread(Path(opts.server_log).write_text, text)
        report.server_errors, report.error_kinds = server_errors(text)
    report.limits = (
        "limits: child `cardroom serve` on 127.0.0.1 with "
        + " ".join(f"{k} {v}" for k, v in CHILD_LIMITS.items())
        + " (defaults: rate 20, burst 40, grace 60, idle timeout 300, hello timeout 10, "
        "50 per address), --bot-delay 0"
    )
    return report


async def _wait_healthy(port: int, child: subprocess.Popen[bytes]) -> None:
    try:
        await asyncio.to_thread(procs.wait_http, port, "/healthz", 20.0, child)
    except ChildProcessError as exc:
        raise SystemExit(str(exc)) from None
    except TimeoutError:
        raise SystemExit("the server did not become healthy in 20 s") from None


def run(opts: Options) -> Report:
    return asyncio.run(_run(opts))


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="cardroom fuzz", description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", help="a running server on 127.0.0.1 (default: start one)")
    parser.add_argument("--frames", type=int, default=100_000, help="frames to send (about)")
    parser.add_argument("--seconds", type=float, default=900, help="stop sending after this")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=8, help="concurrent hostile sessions")
    parser.add_argument("--server-log", help="keep the child server's log in this file")
    args = parser.parse_args(argv)
    try:
        import hypothesis  # noqa: F401
    except ImportError:
        print("cardroom fuzz needs hypothesis: pip install -e '.[fuzz]'", file=sys.stderr)
        return 2
    opts = Options(
        args.url, args.frames, args.seconds, args.seed, args.workers, server_log=args.server_log
    )
    report = run(opts)
    print_report(report, opts)
    return 1 if report.failures() else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
