"""``cardroom verify``: check every deal of a room's hand history (docs/protocol.md, "Fair
deals"): each game's revealed server seed hashes to its commitment, and its deck is the
documented shuffle of that seed and the players' contributions; and, where the item holds its
actions, that they replay to its result under the rules it was dealt with (its house rules).

Reads the JSON of ``GET /api/rooms/CODE/history`` from a file, from standard input (``-``) or
from a URL on loopback. Prints one line per game; exits 0 when every deal checks, 1 when one
does not (naming the game and what is wrong), 2 when the input cannot be read.

>>> from server.rules.deal import DealProof
>>> proof = DealProof(bytes(32), (None, None))
>>> deck = [CODES[c] for c in proof.deck(range(52))]
>>> item = {"g": 0, "game": "shithead", "deal": {"deck": deck}, "proof": proof.to_json()}
>>> check_game(item, {})
>>> check_game({**item, "deal": {"deck": deck[::-1]}}, {})
'the deal is not the shuffle of its seed and contributions'
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

from protocol.cards import CODES
from server.rules.base import RulesError
from server.rules.deal import DealProof
from server.rules.registry import game_spec
from server.store.history import replay

#: Seconds to wait for a history fetched from a URL.
FETCH_TIMEOUT = 10.0


def check_game(item: dict[str, Any], seen: dict[int, str]) -> str | None:
    """What is wrong with one history item's deal, or ``None`` when it checks.
    ``seen``: commitments the user saw before the deal (game index -> hex), also checked."""
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
    except (KeyError, TypeError, ValueError) as exc:
        return f"malformed proof or deal ({exc})"
    if proof.commitment != data.get("commitment"):
        return "the seed does not hash to the commitment"
    shown = seen.get(int(item.get("g", -1)))
    if shown is not None and shown != proof.commitment:
        return "the commitment is not the one shown before the deal"
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


def verify(history: dict[str, Any], seen: dict[int, str]) -> list[tuple[int, str | None]]:
    """``(game index, what is wrong or None)`` for every game of a history."""
    return [
        (int(item.get("g", i)), check_game(item, seen)) for i, item in enumerate(history["games"])
    ]


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
    if not isinstance(data, dict) or not isinstance(data.get("games"), list):
        raise ValueError("not a hand history (no games)")
    return data


def _seen(values: list[str]) -> dict[int, str]:
    seen: dict[int, str] = {}
    for value in values:
        game, _, hexed = value.partition("=")
        seen[int(game)] = hexed.lower()
    return seen


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="cardroom verify", description=__doc__.split("\n\n")[0])
    parser.add_argument("source", help="a history JSON file, - for stdin, or a loopback URL")
    parser.add_argument(
        "--commitment",
        action="append",
        default=[],
        metavar="G=HEX",
        help="a commitment you saw before game G was dealt (repeatable): checked too",
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
        history = read(args.source, args.token)
        seen = _seen(args.commitment)
    except (OSError, ValueError) as exc:
        print(f"cardroom verify: {exc}", file=sys.stderr)
        return 2
    results = verify(history, seen)
    for game, wrong in results:
        print(f"game {game}: " + ("deal verified" if wrong is None else f"WRONG: {wrong}"))
    bad = [game for game, wrong in results if wrong is not None]
    if not results:
        print("no finished game to verify")
    if bad:
        print(f"{len(bad)} of {len(results)} deals do not verify: game {', '.join(map(str, bad))}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
