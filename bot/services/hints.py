"""Hints computed off the event loop, so one player's search never delays another's tap.

The expectimax search is pure Python and CPU-bound: run on the event loop, a 50 ms search
would freeze every chat for 50 ms. It runs in a process pool instead, one worker per core
the event loop does not need, each with the 4×4 tables built once at start.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import multiprocessing.connection
import os
import threading
from concurrent.futures import ProcessPoolExecutor

from engine import Direction
from engine.board import Board
from engine.solver import DEFAULT_BUDGET_MS, best_move, warm_up


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


class HintService:
    def __init__(self, workers: int = 0, budget_ms: float = DEFAULT_BUDGET_MS) -> None:
        self._budget_ms = budget_ms
        self._workers = workers or pool_size()
        # "spawn": a forked copy of a process with running threads (SQLite, HTTP) is unsafe.
        self._pool = ProcessPoolExecutor(
            max_workers=self._workers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_start_worker,
        )

    def start_workers(self) -> None:
        """Start every worker now, in the background, rather than on the first hints.

        The pool starts a worker for each call that finds none idle, so as many trivial calls
        as workers, made at once, start them all.
        """
        for _ in range(self._workers):
            self._pool.submit(os.getpid)

    async def suggest(self, board: Board, size: int) -> Direction | None:
        loop = asyncio.get_running_loop()
        hint = await loop.run_in_executor(self._pool, best_move, board, size, self._budget_ms)
        return None if hint is None else hint.direction

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
