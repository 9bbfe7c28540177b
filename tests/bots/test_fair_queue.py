"""The bot pool's fair queue: round-robin by owner, then by room; FIFO within a room."""

from __future__ import annotations

from server.bots.fair import FairQueue


def drain(q: FairQueue[str]) -> list[str]:
    out = []
    while (item := q.pop()) is not None:
        out.append(item)
    return out


def test_a_rooms_backlog_waits_behind_one_request_of_every_other_room() -> None:
    q: FairQueue[str] = FairQueue()
    for i in range(5):
        q.push("ann", "FLOOD", f"f{i}")
    q.push("ann", "QUIET", "q0")
    q.push("ann", "QUIET", "q1")
    assert drain(q) == ["f0", "q0", "f1", "q1", "f2", "f3", "f4"]


def test_an_owners_rooms_share_one_turn_per_round() -> None:
    q: FairQueue[str] = FairQueue()
    for room in ("A", "B", "C"):
        for i in range(2):
            q.push("mallory", room, f"{room}{i}")
    q.push("bob", "V", "v0")
    q.push("bob", "V", "v1")
    assert q.queued("mallory") == 6 and q.queued("bob") == 2 and len(q) == 8
    # mallory's three rooms together get one turn for each of bob's
    assert drain(q) == ["A0", "v0", "B0", "v1", "C0", "A1", "B1", "C1"]
    assert len(q) == 0 and q.queued("mallory") == 0


def test_a_late_owner_is_served_after_at_most_one_request_per_owner_ahead() -> None:
    q: FairQueue[str] = FairQueue()
    for i in range(10):
        q.push("x", "X", f"x{i}")
    assert q.pop() == "x0"
    q.push("y", "Y", "y0")
    assert [q.pop(), q.pop()] == ["x1", "y0"]


def test_accept_skips_to_the_next_room_head_it_accepts_never_past_a_head() -> None:
    q: FairQueue[str] = FairQueue()
    q.push("a", "A", "long-a")
    q.push("a", "A", "short-a")  # behind its own room's head: not taken before it
    q.push("b", "B", "short-b")
    assert q.pop(lambda item: item.startswith("short")) == "short-b"
    assert q.pop(lambda item: item.startswith("short")) is None
    assert drain(q) == ["long-a", "short-a"]


def test_remove_takes_one_waiting_item_out_and_forgets_empty_rooms() -> None:
    q: FairQueue[str] = FairQueue()
    q.push("a", "A", "a0")
    q.push("b", "B", "b0")
    assert q.remove("a", "A", "a0")
    assert not q.remove("a", "A", "a0")  # not twice
    assert not q.remove("zed", "Z", "a0")
    assert q.queued("a") == 0 and len(q) == 1
    assert drain(q) == ["b0"]
