"""Scripted failures, so reliability code (retries, RetryAfter handling) gets exercised.

A fault is consumed by the next request(s) of one method; the request is then answered
with exactly the error JSON Telegram would send, without touching simulated state. A hold
keeps the next request of a method waiting until the test releases it, the way a slow
network lets a later request overtake an earlier one.
"""

from __future__ import annotations

import asyncio
from collections import deque

from .errors import ApiError, too_many_requests

_DEFAULT_DESCRIPTIONS = {
    400: "Bad Request: injected failure",
    401: "Unauthorized",
    403: "Forbidden: bot was blocked by the user",
    404: "Not Found",
    409: "Conflict: terminated by other getUpdates request",
    500: "Internal Server Error",
    502: "Bad Gateway",
}


def make_fault(description: str | None, error_code: int, retry_after: int | None) -> ApiError:
    """The ApiError for ``fail_next``; 429 without ``retry_after`` means retry after 1 s."""
    if error_code == 429:
        seconds = 1 if retry_after is None else retry_after
        if description is None:
            return too_many_requests(seconds)
        return ApiError(429, description, retry_after=seconds)
    text = description or _DEFAULT_DESCRIPTIONS.get(error_code, f"Error {error_code}")
    return ApiError(error_code, text, retry_after=retry_after)


class Hold:
    """One request kept waiting: `arrived` is set when it comes in, `release()` lets it run."""

    def __init__(self) -> None:
        self.arrived = asyncio.Event()
        self._released = asyncio.Event()

    def release(self) -> None:
        self._released.set()

    async def wait(self) -> None:
        self.arrived.set()
        await self._released.wait()


class Faults:
    """Per-method queues of errors to return instead of running the method, and of holds."""

    def __init__(self) -> None:
        self._pending: dict[str, deque[ApiError]] = {}
        self._holds: dict[str, deque[Hold]] = {}

    def add(self, method: str, error: ApiError, count: int = 1) -> None:
        """Fail the next ``count`` calls of ``method`` (case-insensitive) with ``error``."""
        self._pending.setdefault(method.lower(), deque()).extend([error] * count)

    def take(self, method: str) -> ApiError | None:
        """Consume and return the next fault for ``method``, if any."""
        queue = self._pending.get(method.lower())
        return queue.popleft() if queue else None

    def hold(self, method: str) -> Hold:
        """Keep the next call of ``method`` (case-insensitive) waiting until released."""
        held = Hold()
        self._holds.setdefault(method.lower(), deque()).append(held)
        return held

    def take_hold(self, method: str) -> Hold | None:
        queue = self._holds.get(method.lower())
        return queue.popleft() if queue else None
