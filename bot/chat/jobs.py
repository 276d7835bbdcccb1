"""A job that keeps its time: cut off when it overruns, and said once, not at every turn.

python-telegram-bot's job queue starts a repeating job again at its next turn only if the
last run has ended; one that hangs (on a database that stopped answering, say) would make
every later turn a warning, and the job itself would do nothing again. `bounded` cancels a
run at its limit, below the job's interval, so the next turn starts afresh: one line when a
job first overruns, one when a run keeps its time again.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from telegram.ext import CallbackContext

log = logging.getLogger(__name__)
Callback = Callable[[CallbackContext[Any, Any, Any, Any]], Awaitable[None]]
# The share of its interval a repeating job's run may take: the rest leaves room for the
# cancelled run's unwinding before the next turn.
SHARE_OF_INTERVAL = 0.75


def limit_for(interval: float) -> float:
    """How long a run of a job repeated every `interval` seconds may take."""
    return interval * SHARE_OF_INTERVAL


def bounded(callback: Callback, limit: float) -> Callback:
    """`callback` as a job whose run is cancelled after `limit` seconds."""
    late = False  # the last run overran: said once until a run keeps its time again

    async def run(context: CallbackContext[Any, Any, Any, Any]) -> None:
        nonlocal late
        name = context.job.name if context.job is not None else callback.__name__
        try:
            async with asyncio.timeout(limit) as cutoff:
                await callback(context)
        except TimeoutError:
            if not cutoff.expired():
                raise
            if not late:
                late = True
                log.warning(
                    "job %s took longer than %g s: cut off, and run again at its next turn",
                    name,
                    limit,
                )
            return
        if late:
            late = False
            log.warning("job %s keeps its time again", name)

    run.__name__ = callback.__name__
    return run
