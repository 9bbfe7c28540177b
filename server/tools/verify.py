"""``cardroom verify``: check every deal of a room's hand history (docs/protocol.md, "Fair
deals"): each game's revealed server seed and dealer hash to its commitment, the game was dealt
by that dealer, and its deck is the documented shuffle of that seed and the players'
contributions; a daily hand's commitment is the one ``GET /api/daily`` published for its day
and hand; and, where the item holds its actions, that they replay to its result under the
rules it was dealt with (its house rules).

With ``--event EVENT``, the public state of an event that is over (its page's JSON,
:class:`protocol.messages.EventInfo`) is checked too, and the histories given are its tables'
(docs/events.md, "Checking an event"): its revealed seed hashes to the commitment it published
when it was created, round 1's seats are the draw of that seed, and with duplicate deals every
game of every table is the event's deal for its round and hand.

Reads the JSON of ``GET /api/rooms/CODE/history`` from a file, from standard input (``-``) or
from a URL on loopback (then a daily hand's commitments are read from the same server's
``/api/daily``; else give them with ``--daily``). Prints one line per game; exits 0 when every
deal checks, 1 when one does not (naming the game and what is wrong) or when there is no game
at all, 2 when the input cannot be read.

>>> from server.rules.deal import DealProof
>>> proof = DealProof(bytes(32), (None, None), dealer=1)
>>> deck = [CODES[c] for c in proof.deck(range(52))]
>>> deal = {"deck": deck, "dealer": 1}
>>> item = {"g": 0, "game": "shithead", "deal": deal, "proof": proof.to_json()}
>>> check_game(item, {})
>>> check_game({**item, "deal": {**deal, "deck": deck[::-1]}}, {})
'the deal is not the shuffle of its seed and contributions'
>>> check_game({**item, "deal": {**deal, "dealer": 0}}, {})
'the game was not dealt by the dealer committed to'
"""

from __future__ import annotations

import argparse
import ipaddress
import json
import os
import sys
import urllib.request
from typing import Any
from urllib.parse import urlparse

from pydantic import ValidationError

from protocol.cards import CODES
from protocol.messages import EventInfo
from server.rooms.event_deals import deal_proof, draw, event_commitment
from server.rooms.event_seating import seat_in_order
from server.rules.base import RulesError
from server.rules.deal import DealProof
from server.rules.registry import game_spec
from server.store.history import replay

#: Seconds to wait for a history fetched from a URL.
FETCH_TIMEOUT = 10.0


#: A day's published daily commitments (``GET /api/daily``), by date: ten hex strings each.
Published = dict[str, list[str]]


def check_game(
    item: dict[str, Any], seen: dict[int, str], published: Published | None = None
) -> str | None:
    """What is wrong with one history item's deal, or ``None`` when it checks.
    ``seen``: commitments the user saw before the deal (game index -> hex), also checked;
    ``published``: the daily commitments of ``GET /api/daily`` by date (a daily hand's must be
    among them)."""
    data = item.get("proof")
    if not isinstance(data, dict):
        return "no proof: this game was not dealt fairly (or before fair deals)"
    if data.get("seed") is None:
        return "its seed is not revealed yet (a daily hand, until its day is over)"
    try:
        proof = DealProof.from_json(data)
        cards = game_spec(str(item["game"])).cards
        deck = [CODES[c] for c in proof.deck(cards)]
        dealt = list(item["deal"]["deck"])
        dealer = item["deal"].get("dealer")
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        return f"malformed proof or deal ({exc})"
    if proof.commitment != data.get("commitment"):
        return "the seed and dealer do not hash to the commitment"
    if proof.dealer is None:
        # the deck alone proves nothing of who got which cards: each seat could have been
        # given another's hand
        return "its dealer is not committed (a game dealt before dealers were)"
    if dealer != proof.dealer:
        return "the game was not dealt by the dealer committed to"
    index = int(item.get("g", -1))
    shown = seen.get(index)
    if shown is not None and shown != proof.commitment:
        return "the commitment is not the one shown before the deal"
    day = data.get("daily")
    if day is not None:
        day_commitments = (published or {}).get(str(day))
        if day_commitments is None:
            return f"a daily hand of {day}: give that day's published commitments (--daily)"
        if not 0 <= index < len(day_commitments) or day_commitments[index] != proof.commitment:
            return f"the commitment is not the one published for hand {index} of {day}"
    if deck != dealt:
        return "the deal is not the shuffle of its seed and contributions"
    if "log" in item:
        return _check_play(item)
    return None


def _check_play(item: dict[str, Any]) -> str | None:
    """What is wrong with a dealt game's actions: they must replay, under the rules its deal
    record names (the house rules included), to the result it records."""
    try:
        outcome = replay(item).outcome()
    except (KeyError, TypeError, ValueError, RulesError) as exc:
        return f"its actions do not replay under its rules ({exc})"
    if outcome is None or outcome.to_json() != item.get("result"):
        return "its actions under its rules do not end in its result"
    return None


def verify(
    history: dict[str, Any], seen: dict[int, str], published: Published | None = None
) -> list[tuple[int, str | None]]:
    """``(game index, what is wrong or None)`` for every game of a history."""
    return [
        (int(item.get("g", i)), check_game(item, seen, published))
        for i, item in enumerate(history["games"])
    ]


def check_event(event: EventInfo, histories: list[dict[str, Any]]) -> list[tuple[str, str | None]]:
    """``(what was checked, what is wrong or None)`` for an event and its tables' histories."""
    if event.seed is None:
        return [("event", "its seed is not revealed yet (the event is not over)")]
    seed = bytes.fromhex(event.seed)
    wrong = None if event_commitment(seed) == event.commitment else "the seed does not hash to it"
    out: list[tuple[str, str | None]] = [("event commitment", wrong)]
    if event.seatings:
        drawn = seat_in_order(draw(seed, [p.name for p in event.people]), event.table_size)
        shown = [tuple(t.seats) for t in event.seatings[0].tables]
        out.append(("round 1 seats", None if shown == drawn else "not the draw of the seed"))
    if not event.duplicate:
        return out
    tables = {
        t.room: r for r, seating in enumerate(event.seatings) for t in seating.tables if t.room
    }
    for history in histories:
        room = str(history.get("room"))
        round_ = tables.get(room)
        if round_ is None:
            out.append((f"room {room}", "not a table of this event"))
            continue
        for i, item in enumerate(history["games"]):
            game = int(item.get("g", i))
            expected = deal_proof(seed, round_, game, event.table_size)
            proof = item.get("proof") if isinstance(item.get("proof"), dict) else {}
            same = proof.get("seed") == expected.seed.hex() and proof.get("dealer") == (
                expected.dealer
            )
            why = None if same else f"not the event's deal of round {round_ + 1}, hand {game + 1}"
            out.append((f"room {room} game {game}", why))
    return out


def daily_days(history: dict[str, Any]) -> list[str]:
    """The dates of the daily hands a history holds."""
    days = set()
    for item in history["games"]:
        proof = item.get("proof") if isinstance(item, dict) else None
        if isinstance(proof, dict) and isinstance(proof.get("daily"), str):
            days.add(proof["daily"])
    return sorted(days)


def read_published(source: str) -> Published:
    """A ``GET /api/daily`` answer (a file, ``-`` or a loopback URL): its day's commitments,
    and the day before's.

    Raises:
        ValueError: not such an answer, or a URL not on loopback. OSError: it cannot be read.
    """
    data = _load(source, None)
    out: Published = {}
    for day in (data, data.get("previous")):
        if isinstance(day, dict) and isinstance(day.get("commitments"), list):
            out[str(day.get("date"))] = [str(c) for c in day["commitments"]]
    if not out:
        raise ValueError("not an /api/daily answer (no commitments)")
    return out


def _loopback(url: str) -> bool:
    host = urlparse(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def read(source: str, token: str | None = None) -> dict[str, Any]:
    """The history JSON from a file, ``-`` (stdin) or a loopback ``http://`` URL (``token``:
    a seat token, sent as ``Authorization: Bearer``, to read an open room's history).

    Raises:
        ValueError: a URL not on loopback, or not JSON. OSError: it cannot be read.
    """
    data = _load(source, token)
    if not isinstance(data.get("games"), list):
        raise ValueError("not a hand history (no games)")
    return data


def _load(source: str, token: str | None) -> dict[str, Any]:
    if source == "-":
        text = sys.stdin.read()
    elif source.startswith(("http://", "https://")):
        if not _loopback(source):
            raise ValueError(
                "verify fetches from loopback only; save the history and pass the file"
            )
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        request = urllib.request.Request(source, headers=headers)
        with urllib.request.urlopen(request, timeout=FETCH_TIMEOUT) as response:
            text = response.read().decode()
    else:
        with open(source, encoding="utf-8") as f:
            text = f.read()
    data = json.loads(text)
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    return data


def _seen(values: list[str]) -> dict[int, str]:
    seen: dict[int, str] = {}
    for value in values:
        game, _, hexed = value.partition("=")
        seen[int(game)] = hexed.lower()
    return seen


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="cardroom verify", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "source", nargs="+", help="a history JSON file, - for stdin, or a loopback URL"
    )
    parser.add_argument(
        "--event",
        metavar="SOURCE",
        help="an event's public state once it is over (a file, - or a loopback URL): its seed, "
        "its draw and, with duplicate deals, that the histories' games are its deals",
    )
    parser.add_argument(
        "--commitment",
        action="append",
        default=[],
        metavar="G=HEX",
        help="a commitment you saw before game G was dealt (repeatable): checked too",
    )
    parser.add_argument(
        "--daily",
        action="append",
        default=[],
        metavar="SOURCE",
        help="a day's published commitments, the answer of GET /api/daily?date=YYYY-MM-DD (a "
        "file, - or a loopback URL; repeatable): a daily hand must be among them (read from "
        "the history's own server when it is fetched from a URL)",
    )
    parser.add_argument(
        "--token",
        default=os.environ.get("CARDROOM_TOKEN") or None,
        metavar="TOKEN",
        # a token may start with "-" (one in 64): argparse takes only --token=TOKEN then
        help="a seat token, to fetch an open room's history; write it --token=TOKEN "
        "(default: $CARDROOM_TOKEN)",
    )
    args = parser.parse_args(argv)
    try:
        histories = [read(source, args.token) for source in args.source]
        seen = _seen(args.commitment)
        published: Published = {}
        for source in args.daily:
            published.update(read_published(source))
        for source, history in zip(args.source, histories, strict=True):
            if source.startswith(("http://", "https://")):  # the same server's, if needed
                base = urlparse(source)
                for day in daily_days(history):
                    if day not in published:
                        url = f"{base.scheme}://{base.netloc}/api/daily?date={day}"
                        published.update(read_published(url))
        event = EventInfo.model_validate(_load(args.event, None)) if args.event else None
    except (OSError, ValueError, ValidationError) as exc:
        print(f"cardroom verify: {exc}", file=sys.stderr)
        return 2
    several = len(histories) > 1
    results = []
    for history in histories:
        for game, wrong in verify(history, seen, published):
            name = f"room {history.get('room')} game {game}" if several else f"game {game}"
            results.append((name, wrong))
            print(f"{name}: " + ("deal verified" if wrong is None else f"WRONG: {wrong}"))
    if event is not None:
        for name, wrong in check_event(event, histories):
            results.append((name, wrong))
            print(f"{name}: " + ("the event's, verified" if wrong is None else f"WRONG: {wrong}"))
    bad = [name for name, wrong in results if wrong is not None]
    if not results:  # nothing proven: not a success
        print("no finished game to verify")
        return 1
    if bad:
        print(f"{len(bad)} of {len(results)} checks fail: {', '.join(bad)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
