"""A store call's reply that its waiter may take up in the callback that sets it.

An :class:`asyncio.Future` wakes whoever awaits it through the loop: the task that waits runs
a turn after the reply was set, behind every callback the loop queued meanwhile. On a
saturated server that turn was a millisecond or two of every persist, between Redis's answer
read and the room's ack. A room's
actor that drives its own step (:mod:`server.runtime.actor`) instead hands the reply a
``resume`` to call at once, in the turn the reply is set (the batch's ``data_received``): no
turn between the reply and the ack. Awaited by a task as usual, it is a plain future.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any


class Answer(asyncio.Future[Any]):
    """A future whose one waiter outside the loop's tasks is called as it is settled."""

    __slots__ = ("_resume",)

    def __init__(self, *, loop: asyncio.AbstractEventLoop | None = None) -> None:
        super().__init__(loop=loop)
        self._resume: Callable[[], None] | None = None

    def on_settled(self, resume: Callable[[], None]) -> None:
        """Call ``resume`` (which must not raise) in the callback that settles this answer,
        instead of a task's wake-up a turn later. Only for a waiter that drives the awaiting
        coroutine itself; one waiter at most, and only while the answer is pending."""
        assert not self.done() and self._resume is None
        self._resume = resume

    def _settled(self) -> None:
        resume, self._resume = self._resume, None
        if resume is not None:
            resume()

    def set_result(self, result: Any, /) -> None:
        super().set_result(result)
        self._settled()

    def set_exception(self, exception: type[BaseException] | BaseException, /) -> None:
        super().set_exception(exception)
        self._settled()
