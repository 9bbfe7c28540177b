"""One hostile connection and its bookkeeping: every frame sent must be answered (a reply whose
``ref`` is the frame's ``id``, or an ``error`` with ``ref: null`` when its ``id`` was unreadable)
or the connection must have been closed with a documented close code.

:class:`Tally` adds up every session of a run: answers by code, closes by code, and the
frames that got neither (each one a defect, with samples kept to print).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import orjson
from pydantic import ValidationError

from protocol import messages as m
from server.tools.fuzz.raw import RawSocket

#: Close codes docs/protocol.md documents (1000: a normal close, ours or the server's).
DOCUMENTED_CLOSES = {1000, 1001, 1008, 1009, 1013}
#: Close codes RFC 6455 requires for frames we broke on purpose (1002 bad framing, 1007 bad
#: UTF-8); counted apart, and only on connections that sent such a frame.
RFC_CLOSES = {1002, 1007}
#: Errors that answer no frame: notices (``ref: null``).
NOTICES = {"replaced", "removed", "policy_violation", "rate_limited"}
#: Most bytes a frame may have and still be read for its ``id`` (the server's message limit).
READABLE = 4096


def expected_ref(frame: str | bytes) -> Any:
    """The ``ref`` the server's answer to ``frame`` should carry (``None``: unreadable id)."""
    if isinstance(frame, bytes) or len(frame.encode()) > READABLE:
        return None
    try:
        data = orjson.loads(frame)  # the server's own parser (ints past 64 bits: unreadable)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(data, dict):
        return None
    value = data.get("id")
    if isinstance(value, bool):
        return None
    if isinstance(value, int) or (isinstance(value, str) and 0 < len(value) <= 64):
        return value
    return None


def _key(ref: Any) -> str:
    return json.dumps(ref)


@dataclass
class Tally:
    frames: int = 0
    answers: Counter[str] = field(default_factory=Counter)
    closes: Counter[int] = field(default_factory=Counter)
    dropped_at_close: Counter[int] = field(default_factory=Counter)
    unanswered: int = 0
    extra_replies: int = 0
    notices: Counter[str] = field(default_factory=Counter)
    bad_server_frames: int = 0
    binary_from_server: int = 0
    undocumented_closes: Counter[int] = field(default_factory=Counter)
    samples: list[str] = field(default_factory=list)  # frames that got no answer

    def sample(self, text: str, keep: int = 12) -> None:
        if len(self.samples) < keep:
            self.samples.append(text[:300])


class Session:
    """A :class:`RawSocket` that remembers what it sent and checks what came back."""

    def __init__(self, url: str) -> None:
        self.raw = RawSocket(url)
        self.sent: list[str | bytes] = []
        self.broken_on_purpose = False  # sent bad UTF-8 or a malformed frame
        self.states: list[tuple[int | None, m.State]] = []  # (our seat then, state)
        self.seat_in: dict[str, int | None] = {}  # room -> our seat there (None: watching)
        self._parsed = 0
        self.messages: list[m.ServerMessage] = []

    async def open(self, **kwargs: Any) -> None:
        await self.raw.open(**kwargs)

    async def send(self, frames: list[str | bytes], *, one_write: bool = True) -> None:
        self.sent.extend(frames)
        await self.raw.send(frames, one_write=one_write)

    def parse_new(self, tally: Tally) -> list[m.ServerMessage]:
        """Parse what arrived since the last call (a frame off the schema is a defect)."""
        new: list[m.ServerMessage] = []
        texts = self.raw.got.texts
        while self._parsed < len(texts):
            text = texts[self._parsed]
            self._parsed += 1
            try:
                msg = m.parse_server(text)
            except ValidationError:
                tally.bad_server_frames += 1
                tally.sample("server sent off-schema: " + text)
                continue
            new.append(msg)
            if isinstance(msg, m.State):
                self.states.append((self.seat_in.get(msg.room), msg))
            elif isinstance(msg, m.Joined):
                self.seat_in[msg.room] = msg.seat
        self.messages.extend(new)
        return new

    def _outstanding(self) -> tuple[Counter[str], int]:
        """Refs still waiting for an answer, and frames with unreadable ids still waiting."""
        want: Counter[str] = Counter()
        nulls = 0
        for frame in self.sent:
            ref = expected_ref(frame)
            if ref is None:
                nulls += 1
            else:
                want[_key(ref)] += 1
        for msg in self.messages:
            ref = getattr(msg, "ref", None)
            if isinstance(msg, m.Error) and msg.code in NOTICES and ref is None:
                continue
            if ref is None and isinstance(msg, m.Error):
                if nulls:
                    nulls -= 1
                else:
                    # an id we thought readable was not (too large, not JSON to the server)
                    first = next((k for k, v in want.items() if v > 0), None)
                    if first is not None:
                        want[first] -= 1
            elif ref is not None:
                k = _key(ref)
                if want[k] > 0:
                    want[k] -= 1
                elif nulls:
                    # an id the model coerced (``-0.0`` is ``0``) that the frame layer
                    # would not have read: the reply carries the coerced value
                    nulls -= 1
        return +want, nulls

    def frame_for(self, ref: Any) -> str | bytes | None:
        """The frame we sent whose ``id`` is ``ref``."""
        for frame in self.sent:
            if ref is not None and expected_ref(frame) == ref:
                return frame
        return None

    def answered(self) -> bool:
        want, nulls = self._outstanding()
        return not want and nulls == 0

    async def settle(self, tally: Tally, timeout: float) -> None:
        """Wait for every answer (or a close), then add this session's figures to ``tally``."""

        def done() -> bool:
            self.parse_new(tally)
            return self.answered()

        await self.raw.wait(done, timeout)
        self.parse_new(tally)
        self.account(tally)

    def account(self, tally: Tally) -> None:
        """Count answers and closes (call once, when the session is over)."""
        tally.frames += len(self.sent)
        tally.binary_from_server += self.raw.got.binary
        replies = 0
        for msg in self.messages:
            if isinstance(msg, m.Error):
                if msg.code in NOTICES and msg.ref is None:
                    tally.notices[msg.code] += 1
                    continue
                tally.answers[f"error:{msg.code}"] += 1
                replies += 1
            elif isinstance(msg, m.Welcome | m.Joined | m.Ack | m.Pong):
                tally.answers[msg.type] += 1
                replies += 1
        want, nulls = self._outstanding()
        missing = sum(want.values()) + nulls
        if replies > len(self.sent):
            tally.extra_replies += replies - len(self.sent)
        code = self.raw.got.close_code
        if code is not None:
            tally.closes[code] += 1
            allowed = DOCUMENTED_CLOSES | (RFC_CLOSES if self.broken_on_purpose else set())
            if code not in allowed and not (code == 1006 and self.broken_on_purpose):
                tally.undocumented_closes[code] += 1
                tally.sample(f"close {code} after: " + _last(self.sent))
        if missing:
            if code is not None:  # the close itself is judged above
                tally.dropped_at_close[code] += missing
            else:
                tally.unanswered += missing
                for frame in _unanswered(self.sent, want):
                    tally.sample("no answer: " + (frame if isinstance(frame, str) else repr(frame)))


def _last(sent: list[str | bytes]) -> str:
    if not sent:
        return "(nothing)"
    frame = sent[-1]
    return frame if isinstance(frame, str) else repr(frame[:60])


def _unanswered(sent: list[str | bytes], want: Counter[str]) -> list[str | bytes]:
    out: list[str | bytes] = []
    for frame in sent:
        ref = expected_ref(frame)
        if ref is not None and want.get(_key(ref), 0) > 0:
            out.append(frame)
    return out[:3]
