"""The worker processes for CPU-bound work: hint searches and pictures, off the event loop.

A search or a replay render run on the event loop would freeze every chat while it runs.
They run in one process pool instead, one worker per core the event loop does not need,
started with the bot so the first job after a restart is as quick as any other. What runs
there is a plain top-level function of picklable arguments; the pool knows nothing of it.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import multiprocessing.connection
import os
import threading
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from contextlib import AbstractAsyncContextManager
from typing import TypeVar

from engine.solver import warm_up

T = TypeVar("T")


class Busy(Exception):
    """The key (a player) already has a job running: one at a time each."""


def pool_size() -> int:
    """Every core but one, which the event loop keeps; at least one worker."""
    return max(1, (os.cpu_count() or 2) - 1)


def _start_worker() -> None:
    """In each worker: build the solver's tables, and leave when the bot process is gone.

    A killed bot (SIGKILL, out of memory) cannot shut its pool down, and a worker would wait
    for work forever: it holds both ends of its task queue, so it never sees it close.
    """
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(target=_exit_with, args=(parent.sentinel,), daemon=True).start()
    warm_up()


def _exit_with(parent_sentinel: int) -> None:
    multiprocessing.connection.wait([parent_sentinel])
    os._exit(0)


class WorkerPool:
    def __init__(
        self,
        workers: int = 0,
        claim: Callable[[str], AbstractAsyncContextManager[bool]] | None = None,
    ) -> None:
        """`claim` extends `run_alone`'s rule to other processes: it tells whether a name is
        free everywhere, and holds it for its block (the database's `exclusive`)."""
        self._workers = workers or pool_size()
        self._claim = claim
        # "spawn": a forked copy of a process with running threads (SQLite, HTTP) is unsafe.
        self._pool = ProcessPoolExecutor(
            max_workers=self._workers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_start_worker,
        )
        self._running: set[object] = set()

    def start_workers(self) -> None:
        """Start every worker now, in the background, rather than on the first jobs.

        The pool starts a worker for each call that finds none idle, so as many trivial calls
        as workers, made at once, start them all.
        """
        for _ in range(self._workers):
            self._pool.submit(os.getpid)

    async def run(self, function: Callable[..., T], *args: object) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, function, *args)

    async def run_alone(self, key: object, function: Callable[..., T], *args: object) -> T:
        """Run the job unless `key` has one running already (then raise Busy at once), in
        this process or, with a `claim`, in any other.
        """
        if key in self._running:
            raise Busy(key)
        self._running.add(key)
        try:
            if self._claim is None:
                return await self.run(function, *args)
            async with self._claim(f"job:{key}") as claimed:
                if not claimed:
                    raise Busy(key)
                return await self.run(function, *args)
        finally:
            self._running.discard(key)

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
