"""A tiny "something changed" broadcaster for predicate-based waiting.

Long polls, ``wait_request`` and ``wait_answer`` all wait for *some* state to appear.
Instead of one event per condition, every mutation calls :meth:`Notifier.notify` and
waiters re-check their predicate. Everything runs on one event loop, so there is no
window between checking a predicate and registering the wake-up future.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


class Notifier:
    """Wakes every pending waiter whenever the emulator's state changes."""

    def __init__(self) -> None:
        self._waiters: set[asyncio.Future[None]] = set()

    def notify(self) -> None:
        """Wake all current waiters so they re-evaluate their predicates."""
        waiters, self._waiters = self._waiters, set()
        for future in waiters:
            if not future.done():
                future.set_result(None)

    async def wait_until(self, predicate: Callable[[], T | None], timeout: float) -> T | None:
        """Return the first non-None predicate value, or None once ``timeout`` elapses."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            value = predicate()
            if value is not None:
                return value
            remaining = deadline - loop.time()
            if remaining <= 0:
                return None
            future: asyncio.Future[None] = loop.create_future()
            self._waiters.add(future)
            # asyncio.wait, not wait_for: on Python 3.11, wait_for swallows a cancellation that
            # arrives just as the future completes, and the waiter would then never stop.
            try:
                await asyncio.wait({future}, timeout=remaining)
            finally:
                self._waiters.discard(future)
