"""The load test's ceiling: a bare ``websockets`` server with no game in it.

``python -m server.tools.bench.echo --port P --samples FILE [--size 5]``: a client connects to
``/GROUP``; when ``size`` members are in a group the server sends each ``go``; from then on every
frame a member sends is answered with one frame to each member of its group (``size`` frames
out per request, as a Cardroom action sends a state to each seat of a room of five). The
frames are samples of real Cardroom state frames (``FILE``: a JSON list of strings), so the
compression work is like the real server's. The event loop is the one ``cardroom serve`` uses
(uvloop when installed), and ``--compression`` is given Cardroom's policy by the load test.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
from pathlib import Path

import orjson
from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed

#: A state-sized frame used when no samples are given (only in tests).
FALLBACK = orjson.dumps({"type": "state", "view": {"pad": "x" * 1200}}).decode()


class EchoServer:
    def __init__(self, samples: list[str], size: int) -> None:
        self.samples = samples or [FALLBACK]
        self.size = size
        self.groups: dict[str, list[ServerConnection]] = {}
        self.sent: dict[str, int] = {}

    async def handle(self, ws: ServerConnection) -> None:
        name = ws.request.path if ws.request is not None else "/"
        members = self.groups.setdefault(name, [])
        members.append(ws)
        if len(members) == self.size:
            for member in members:
                await member.send("go")
        samples = self.samples
        try:
            async for _ in ws:
                n = self.sent.get(name, 0)
                self.sent[name] = n + 1
                base = n * self.size
                for k, member in enumerate(members):
                    with contextlib.suppress(ConnectionClosed):
                        await member.send(samples[(base + k) % len(samples)])
        except ConnectionClosed:
            pass
        finally:
            members.remove(ws)


async def _serve(port: int, samples: list[str], size: int, compression: str | None) -> None:
    echo = EchoServer(samples, size)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    async with serve(echo.handle, "127.0.0.1", port, max_size=65536, compression=compression):
        print(f"echo serving on ws://127.0.0.1:{port}/", flush=True)
        await stop.wait()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m server.tools.bench.echo")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--samples", type=Path, help="JSON list of frames to send")
    parser.add_argument("--size", type=int, default=5, help="members per group")
    parser.add_argument(
        "--compression",
        choices=("off", "deflate"),
        default="off",
        help="permessage-deflate policy (the load test passes Cardroom's)",
    )
    args = parser.parse_args(argv)
    samples: list[str] = orjson.loads(args.samples.read_bytes()) if args.samples else []
    compression = "deflate" if args.compression == "deflate" else None
    serving = _serve(args.port, samples, args.size, compression)
    try:
        import uvloop  # the loop cardroom serve uses when it is installed
    except ImportError:
        asyncio.run(serving)
    else:
        uvloop.run(serving)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
