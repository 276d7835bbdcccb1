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
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any, TypeVar

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
    def __init__(self, workers: int = 0) -> None:
        self._workers = workers or pool_size()
        # "spawn": a forked copy of a process with running threads (SQLite, HTTP) is unsafe.
        self._pool = ProcessPoolExecutor(
            max_workers=self._workers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_start_worker,
        )
        self._running: set[object] = set()
        # Submitted and not finished: the pool's future of each, and the one awaited here.
        self._jobs: dict[Future[Any], asyncio.Future[Any]] = {}
        self._stopped = False

    def start_workers(self) -> None:
        """Start every worker now, in the background, rather than on the first jobs.

        The pool starts a worker for each call that finds none idle, so as many trivial calls
        as workers, made at once, start them all.
        """
        for _ in range(self._workers):
            self._pool.submit(os.getpid)

    async def run(self, function: Callable[..., T], *args: object) -> T:
        if self._stopped:  # shutting down: the job is cancelled like those already queued
            raise asyncio.CancelledError
        submitted = self._pool.submit(function, *args)
        job = asyncio.wrap_future(submitted)
        self._jobs[submitted] = job
        job.add_done_callback(lambda _: self._jobs.pop(submitted, None))
        return await job

    async def run_alone(self, key: object, function: Callable[..., T], *args: object) -> T:
        """Run the job unless `key` has one running already (then raise Busy at once).

        Per process: with several bot processes a player could have one job in each.
        """
        if key in self._running:
            raise Busy(key)
        self._running.add(key)
        try:
            return await self.run(function, *args)
        finally:
            self._running.discard(key)

    async def stop(self, grace: float) -> None:
        """At shutdown: cancel the queued jobs, give those running `grace` seconds, end them.

        A queue of replays takes minutes to draw; a supervisor kills a process that takes
        that long to stop. Whoever awaits a job that will not run gets CancelledError.
        """
        self._stopped = True
        # The pool cancels a job only while it waits; the others are running or next.
        running = [job for submitted, job in list(self._jobs.items()) if not submitted.cancel()]
        if running:
            await asyncio.wait(running, timeout=grace)
        for job in running:
            job.cancel()
        # ProcessPoolExecutor ends busy workers only from Python 3.14 (terminate_workers);
        # until then, its own table of them. Without this the interpreter's exit would wait.
        for process in list(getattr(self._pool, "_processes", {}).values()):
            process.terminate()
        self.close()

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
