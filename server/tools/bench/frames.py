"""``cardroom bench frames``: what one outgoing state frame costs the server, piece by piece.

From real Sheepshead states (random legal hands, every seat's view at every step): building a
view, serialising the frame through the pydantic model or straight with orjson
(``protocol.messages.dump_state``), and framing it for a WebSocket with each compression
setting (websockets' sans-I/O protocol, so no socket is involved), with the bytes it puts on the
wire and the zlib memory each setting holds per connection. CPU time of this process, pinned to
one CPU; best of ``--repeat``.
"""

from __future__ import annotations

import argparse
import copy
import gc
import os
import random
import time
import tracemalloc
from collections.abc import Callable, Sequence
from typing import Any

from websockets.client import ClientProtocol
from websockets.extensions.base import ServerExtensionFactory
from websockets.extensions.permessage_deflate import (
    ServerPerMessageDeflateFactory,
    enable_client_permessage_deflate,
)
from websockets.server import ServerProtocol
from websockets.uri import parse_uri

from protocol import messages as m
from server.rules.sheepshead import Sheepshead


def _deflate(**options: Any) -> list[ServerExtensionFactory]:
    settings = {"server_max_window_bits": 12, "client_max_window_bits": 12, **options}
    settings.setdefault("compress_settings", {"memLevel": 5})
    return [ServerPerMessageDeflateFactory(**settings)]


#: Server-side compression settings compared: websockets' default, cheaper or smaller variants.
SETTINGS: dict[str, list[ServerExtensionFactory] | None] = {
    "off (extension declined)": None,
    "deflate, websockets' default (12-bit window, memLevel 5)": _deflate(),
    "deflate, no context takeover": _deflate(
        server_no_context_takeover=True, client_no_context_takeover=True
    ),
    "deflate, 9-bit window, memLevel 1": _deflate(
        server_max_window_bits=9, client_max_window_bits=9, compress_settings={"memLevel": 1}
    ),
}


def states(hands: int, seed: int) -> list[list[tuple[Sheepshead, int]]]:
    """Per hand and seat, the (game, seat) at each step of a random legal hand: the views one
    connection receives in turn. The games are copies taken at each step."""
    rng = random.Random(seed)
    streams: list[list[tuple[Sheepshead, int]]] = []
    for h in range(hands):
        game = Sheepshead.new(5, h % 5, seed=rng.getrandbits(63))
        steps: list[Sheepshead] = []
        while not game.is_over():
            steps.append(copy.deepcopy(game))
            seat = game.to_act()[0]
            legal = game.legal_actions(seat)
            game.apply(seat, legal[rng.randrange(len(legal))])
        streams.extend([(g, s) for g in steps] for s in range(5))
    return streams


def _timed(work: Callable[[], int], repeat: int) -> float:
    """Best CPU seconds per item over ``repeat`` runs of ``work`` (which returns its items)."""
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        n = work()
        best = min(best, (time.process_time() - start) / n)
    return best


def _pair(extensions: Sequence[ServerExtensionFactory] | None) -> ServerProtocol:
    """A server protocol after its handshake with a client offering deflate as browsers do."""
    client = ClientProtocol(
        parse_uri("ws://127.0.0.1/"), extensions=enable_client_permessage_deflate(None)
    )
    server = ServerProtocol(extensions=extensions)
    client.send_request(client.connect())
    server.receive_data(b"".join(client.data_to_send()))
    request = server.events_received()[0]
    server.send_response(server.accept(request))  # type: ignore[arg-type]
    server.data_to_send()
    return server


def _memory(extensions: Sequence[ServerExtensionFactory] | None, count: int = 50) -> float:
    """Bytes a server protocol holds per connection after sending one small frame."""
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    kept = [_pair(extensions) for _ in range(count)]
    for server in kept:
        server.send_text(b'{"type":"welcome","ref":1}')
        server.data_to_send()
    used = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    return used / count


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="cardroom bench frames")
    parser.add_argument("--hands", type=int, default=60)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--cpu", type=int, default=0, help="pin to this CPU (-1: do not pin)")
    args = parser.parse_args(argv)
    if args.cpu >= 0 and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {args.cpu})
    streams = states(args.hands, args.seed)
    seen = [step for stream in streams for step in stream]
    views = [(game.view(seat), seat) for game, seat in seen]
    texts = [
        [m.dump_state("ABCDE", v, seat, game.view(seat), [], None).encode() for v, (game, seat) in
         enumerate(stream)]
        for stream in streams
    ]  # fmt: skip
    frames = sum(map(len, texts))

    games = list({id(game): game for game, _ in seen}.values())

    def build() -> int:
        for game in games:  # as the room does after an action: every seat's view in turn
            game.tricks_memo = None  # nothing kept from an earlier repeat
            for seat in range(5):
                game.view(seat)
        return 5 * len(games)

    def pydantic() -> int:
        for view, seat in views:
            m.dump(m.State(room="ABCDE", version=7, seat=seat, view=view, events=[]))
        return len(views)

    def direct() -> int:
        for view, seat in views:
            m.dump_state("ABCDE", 7, seat, view, [], None)
        return len(views)

    size = sum(len(t) for stream in texts for t in stream) / frames
    print(
        f"{frames:,} Sheepshead state frames ({size:,.0f} bytes on average), CPU time per "
        f"frame, best of {args.repeat}:"
    )
    print(f"  building the view (5 seats in turn)   {_timed(build, args.repeat) * 1e6:6.1f} µs")
    print(f"  State model + model_dump_json         {_timed(pydantic, args.repeat) * 1e6:6.1f} µs")
    print(f"  dump_state (orjson, no model)         {_timed(direct, args.repeat) * 1e6:6.1f} µs")
    print("framing one frame for a WebSocket (server side), by compression setting:")
    for name, extensions in SETTINGS.items():
        wire = 0
        servers = [_pair(extensions) for _ in texts]  # a connection per seat and hand

        def frame(servers: list[ServerProtocol] = servers) -> int:
            nonlocal wire
            wire = 0
            for server, stream in zip(servers, texts, strict=True):
                for text in stream:  # the seat's views in turn
                    server.send_text(text)
                    wire += sum(map(len, server.data_to_send()))
            return frames

        cost = _timed(frame, args.repeat)
        print(
            f"  {name:<56} {cost * 1e6:6.1f} µs, {wire / frames:6.0f} bytes on the wire, "
            f"{_memory(extensions) / 1024:5.1f} KiB held per connection"
        )
    return 0
