"""A process of the service is declared gone only when it has stopped listening at two checks
running: one that lost its subscription for a moment (Redis slow, its loop busy under load)
and subscribed again keeps the seats of the clients it relays. Found when scale-out was merged:
under load a relaying process's brief resubscription cost its client the seat
(``not_in_room`` on the next move)."""

from __future__ import annotations

from server.runtime.cluster import channel
from server.tools.bench.redis_server import RedisServer
from tests.support.cluster import IdleProcess, process_me


class Seen(IdleProcess):
    """Who is connected here, as the cluster asks (nobody relayed to another process), and
    the rooms it reports to: the connections it disconnects are recorded."""

    def __init__(self) -> None:
        self.disconnected_conns: list[int] = []

    def disconnected(self, conn: int) -> None:
        self.disconnected_conns.append(conn)


async def test_a_peer_missed_once_keeps_its_clients_and_one_missed_twice_is_gone(
    redis_server: RedisServer,
) -> None:
    seen = Seen()
    async with process_me(redis_server.url, seen) as (cluster, peer):
        # a client of "peer" relayed to a room here (as its first message would have made it)
        cluster._remote[("peer", 7)] = -1
        listening = peer.pubsub()
        try:
            await listening.subscribe(channel("peer"))
            await cluster._check_peers(seen)  # listening: nothing happens
            await listening.unsubscribe(channel("peer"))
            await cluster._check_peers(seen)  # missed once (resubscribing, say)
            assert seen.disconnected_conns == []
            await listening.subscribe(channel("peer"))
            await cluster._check_peers(seen)  # back: still nothing
            assert seen.disconnected_conns == []
            await listening.unsubscribe(channel("peer"))
            await cluster._check_peers(seen)
            assert seen.disconnected_conns == []
            await cluster._check_peers(seen)  # missed twice running: gone
            assert seen.disconnected_conns == [-1]
        finally:
            await listening.aclose()
