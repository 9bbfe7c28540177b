"""The history checker finds each kind of broken promise, and takes an unknown outcome (a
request refused as ``store_unavailable``, timed out or cut off) for neither lost nor stored."""

from __future__ import annotations

from protocol.records import ActionEntry
from server.tools.bench.history import History, Stored, check


def log(*seats: int, start: int = 1) -> list[ActionEntry]:
    return [{"v": start + i, "g": 0, "s": s, "a": "ready"} for i, s in enumerate(seats)]


def one_player() -> History:
    history = History()
    ann = history.client("ann", "ws://a")
    ann.sent("r1", "ROOMA", 0, {"kind": "ready"}, seat=0)
    ann.acked("r1", 1)
    ann.seen("ROOMA", 0, 1, {"phase": "play", "n": 1}, mover=0)
    return history


def test_a_clean_history_passes() -> None:
    verdict = check(one_player(), {"ROOMA": Stored(1, log(0))})
    assert verdict.ok and verdict.acknowledged == 1 and verdict.states == 1


def test_an_acknowledged_action_missing_or_changed_is_lost() -> None:
    assert check(one_player(), {}).lost == 1  # the room is gone
    assert check(one_player(), {"ROOMA": Stored(1, log(1))}).lost == 1  # another seat's
    swapped: list[ActionEntry] = [{"v": 1, "g": 0, "s": 0, "a": "swap"}]
    assert check(one_player(), {"ROOMA": Stored(1, swapped)}).lost == 1


def test_an_unknown_outcome_is_neither_lost_nor_required() -> None:
    history = one_player()
    ann = history.clients[0]
    ann.sent("r2", "ROOMA", 1, {"kind": "ready"}, seat=0)
    ann.refused("r2", "store_unavailable")
    ann.sent("r3", "ROOMA", 1, {"kind": "ready"}, seat=0)
    ann.refused("r3", "timeout")
    for held in (log(0), log(0, 0)):  # stored or not: both are right
        verdict = check(history, {"ROOMA": Stored(len(held), held)})
        assert verdict.ok and verdict.unknown == 2


def test_a_version_going_back_is_found() -> None:
    history = one_player()
    ann = history.clients[0]
    ann.seen("ROOMA", 0, 2, {"phase": "play", "n": 2}, mover=1)
    ann.seen("ROOMA", 0, 1, {"phase": "play", "n": 1}, mover=0)
    verdict = check(history, {"ROOMA": Stored(2, log(0, 1))})
    assert verdict.backwards == 1 and not verdict.ok


def test_two_views_of_one_version_are_found_across_connections() -> None:
    history = one_player()
    again = history.client("ann", "ws://b")  # the same seat on another process
    again.seen("ROOMA", 0, 1, {"phase": "play", "n": 99}, mover=0)
    verdict = check(history, {"ROOMA": Stored(1, log(0))})
    assert verdict.conflicts == 1 and verdict.bad_states[0].origin == "ws://b"


def test_a_state_the_store_never_held_is_found() -> None:
    history = one_player()
    stale = history.client("ann", "ws://a")
    stale.seen("ROOMA", 0, 2, {"phase": "play", "n": 2}, mover=0)  # above what is stored
    stale.seen("ROOMA", 1, 1, {"phase": "play"}, mover=1)  # v1 was seat 0's move
    verdict = check(history, {"ROOMA": Stored(1, log(0))})
    assert verdict.unheld == 2
    assert {s.origin for s in verdict.bad_states} == {"ws://a"}


def test_a_log_that_repeats_a_version_is_found() -> None:
    repeated = [*log(0), *log(1, start=1)]
    assert check(History(), {"ROOMA": Stored(1, repeated)}).gaps == 1
    # versions a record's save made (between games) leave a gap in the log: that is fine
    assert check(History(), {"ROOMA": Stored(9, [*log(0), *log(1, start=5)])}).ok


def test_an_action_undone_then_played_again_the_same_is_still_lost() -> None:
    """A failover that lost v2 took the room back to v1; the same deal and policy then played
    the same action at v2 again: stored as sent, but what was acknowledged was lost."""
    clock = iter(range(100))
    history = History(lambda: next(clock))
    ann = history.client("ann", "ws://a")
    ann.sent("r1", "ROOMA", 1, {"kind": "ready"}, seat=0)
    ann.acked("r1", 2)
    ann.seen("ROOMA", 0, 2, {"n": 2}, mover=0)
    ann.seen("ROOMA", 0, 1, {"n": 1}, mover=0)  # back: v2 is gone
    ann.sent("r2", "ROOMA", 1, {"kind": "ready"}, seat=0)
    ann.acked("r2", 2)  # the same action, at the same version, again
    verdict = check(history, {"ROOMA": Stored(2, log(0, 0))})
    assert verdict.lost == 1 and verdict.backwards == 1
