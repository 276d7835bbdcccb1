"""The worker processes for CPU-bound work: hint searches and pictures, off the event loop.

A search or a replay render run on the event loop would freeze every chat while it runs.
They run in process pools instead, one worker per core the event loop does not need,
started with the bot so the first job after a restart is as quick as any other. What runs
there is a plain top-level function of picklable arguments; the pools know nothing of it.

Hints and pictures have a pool each: a hint takes 50 ms, a replay seconds, and a hint
queued behind replays would wait for all of them. Pictures wait in a bounded queue: one
per player, and `RENDERS_QUEUED` in all; beyond that a player is told at once to come back,
rather than left waiting minutes for a video.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import multiprocessing.connection
import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import AbstractAsyncContextManager
from typing import Any, TypeVar

from engine.solver import warm_up

T = TypeVar("T")


# Pictures drawn or waiting at once, for everyone: a replay takes seconds on one core.
RENDERS_QUEUED = 3


class Busy(Exception):
    """The key (a player) already has a job running: one at a time each."""


class Crowded(Exception):
    """The picture queue is full: `RENDERS_QUEUED` jobs are being drawn or waiting."""


def pool_size() -> int:
    """Every core but one, which the event loop keeps; at least one worker."""
    return max(1, (os.cpu_count() or 2) - 1)


def _start_worker() -> None:
    """In each worker: leave when the bot process is gone.

    A killed bot (SIGKILL, out of memory) cannot shut its pool down, and a worker would wait
    for work forever: it holds both ends of its task queue, so it never sees it close.
    """
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(target=_exit_with, args=(parent.sentinel,), daemon=True).start()


def _start_hint_worker() -> None:
    """In each hint worker: the same, and build the solver's tables before the first hint."""
    _start_worker()
    warm_up()


def _exit_with(parent_sentinel: int) -> None:
    multiprocessing.connection.wait([parent_sentinel])
    os._exit(0)


class RenderSlot:
    """A place in the picture queue; a `with` block gives it back when it ends."""

    def __init__(self, running: set[object], key: object) -> None:
        self._running = running
        self._key = key

    def __enter__(self) -> RenderSlot:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.release()

    def release(self) -> None:
        """Give the place back: the picture will not be drawn here."""
        self._running.discard(self._key)


class WorkerPool:
    def __init__(
        self,
        workers: int = 0,
        renders_queued: int = RENDERS_QUEUED,
        claim: Callable[[str], AbstractAsyncContextManager[bool]] | None = None,
    ) -> None:
        """`claim` extends the one-picture-per-player rule to other processes: it tells
        whether a name is free everywhere, and holds it for its block (the database's
        `exclusive`)."""
        self._workers = workers or pool_size()
        self._claim = claim
        # "spawn": a forked copy of a process with running threads (SQLite, HTTP) is unsafe.
        spawn = multiprocessing.get_context("spawn")
        self._pool = ProcessPoolExecutor(
            max_workers=self._workers, mp_context=spawn, initializer=_start_hint_worker
        )
        self._render_pool = ProcessPoolExecutor(
            max_workers=self._workers, mp_context=spawn, initializer=_start_worker
        )
        self._renders_queued = renders_queued
        self._running: set[object] = set()
        # Submitted and not finished: the pool's future of each, and the one awaited here.
        self._jobs: dict[Future[Any], asyncio.Future[Any]] = {}
        self._stopped = False

    def start_workers(self) -> None:
        """Start every hint worker now, in the background, rather than on the first hints.

        Picture workers start on the first picture: it takes seconds anyway.

        The pool starts a worker for each call that finds none idle, so as many trivial calls
        as workers, made at once, start them all.
        """
        for _ in range(self._workers):
            self._pool.submit(os.getpid)

    async def run(self, function: Callable[..., T], *args: object) -> T:
        """A quick job (a hint search), on the pool no picture ever waits in."""
        return await self._submit(self._pool, function, *args)

    async def _submit(
        self, pool: ProcessPoolExecutor, function: Callable[..., T], *args: object
    ) -> T:
        """Run `function` on `pool`, known to `stop` until it finishes."""
        if self._stopped:  # shutting down: the job is cancelled like those already queued
            raise asyncio.CancelledError
        submitted = pool.submit(function, *args)
        job = asyncio.wrap_future(submitted)
        self._jobs[submitted] = job
        job.add_done_callback(lambda _: self._jobs.pop(submitted, None))
        return await job

    def claim(self, key: object) -> RenderSlot:
        """A place in the picture queue for `key`, held until the slot's `with` block ends.

        Raises Busy at once if `key` holds one already, Crowded if the queue is full. The
        queue is this process's; `render` keeps a player to one picture across processes.
        """
        if key in self._running:
            raise Busy(key)
        if self.crowded():
            raise Crowded(key)
        self._running.add(key)
        return RenderSlot(self._running, key)

    async def render(self, key: object, function: Callable[..., T], *args: object) -> T:
        """Draw `key`'s picture on the render pool, inside the slot claimed for it; with a
        `claim`, only while no other process draws one for `key` (else Busy)."""
        if self._claim is None:
            return await self._submit(self._render_pool, function, *args)
        async with self._claim(f"job:{key}") as claimed:
            if not claimed:
                raise Busy(key)
            return await self._submit(self._render_pool, function, *args)

    async def run_alone(self, key: object, function: Callable[..., T], *args: object) -> T:
        """Claim a slot for `key` (or raise Busy or Crowded at once) and draw in it."""
        with self.claim(key):
            return await self.render(key, function, *args)

    def crowded(self) -> bool:
        """Whether a picture asked for now would be refused: the queue is full."""
        return len(self._running) >= self._renders_queued

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
        for pool in (self._pool, self._render_pool):
            for process in list(getattr(pool, "_processes", {}).values()):
                process.terminate()
        self.close()

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._render_pool.shutdown(wait=False, cancel_futures=True)
