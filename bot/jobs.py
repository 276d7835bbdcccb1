"""Repeating jobs that never pile up: every run has a deadline.

A job that waits on something that stopped answering (a database that swallows its packets)
would otherwise run on forever, while the scheduler refused every later run with a warning
each time. Here a run that outlasts its deadline is cancelled, and said in one WARNING line;
later overruns are only counted (`bot2048_jobs_overrun_total`) until a run ends in time
again, which is said too. A run that comes while an earlier one still works, or still
winds down after its cancel, is skipped without a word.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TypeVar

from bot.metrics import JOBS_OVERRUN

log = logging.getLogger(__name__)
C = TypeVar("C")
# Runs of one job the scheduler may start at once: the wrapper decides which work, and a
# second start is how it learns that one comes while the last still runs.
MAX_INSTANCES = 2


def with_deadline(
    name: str, job: Callable[[C], Awaitable[None]], deadline: float
) -> Callable[[C], Awaitable[None]]:
    """`job`, each run cancelled if it has not ended within `deadline` seconds."""
    running: asyncio.Future[None] | None = None
    overran = False

    async def bounded(context: C) -> None:
        nonlocal running, overran
        if running is not None and not running.done():
            return
        run = running = asyncio.ensure_future(job(context))
        await asyncio.wait([run], timeout=deadline)
        if run.done():
            if overran:
                overran = False
                log.warning("the %s job ends in time again", name)
            await run  # its error, if any, goes where every job's goes
            return
        run.cancel()
        run.add_done_callback(_wound_down)
        JOBS_OVERRUN.labels(name).inc()
        if not overran:
            overran = True
            log.warning(
                "the %s job ran over its %g s and was cancelled; it runs again as usual, "
                "and further overruns are counted in bot2048_jobs_overrun_total",
                name,
                deadline,
            )

    return bounded


def _wound_down(run: asyncio.Future[None]) -> None:
    """A cancelled run may still fail as it winds down; it was said already."""
    if not run.cancelled():
        run.exception()
