"""Run the Application inside an event loop that someone else owns.

`Application.run_polling` owns the loop and blocks; the playground and the end-to-end tests
need the same start-up and shutdown sequence while they run a Bot API emulator in the same
loop. This mirrors run_polling's order so both paths behave alike.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from telegram import Update
from telegram.ext import Application


@asynccontextmanager
async def polling(application: Application, poll_timeout: int = 10) -> AsyncIterator[None]:
    await application.initialize()
    if application.post_init is not None:
        await application.post_init(application)
    assert application.updater is not None
    await application.updater.start_polling(
        poll_interval=0, timeout=poll_timeout, allowed_updates=Update.ALL_TYPES
    )
    await application.start()
    try:
        yield
    finally:
        await application.updater.stop()
        await application.stop()
        if application.post_stop is not None:
            await application.post_stop(application)
        await application.shutdown()
        if application.post_shutdown is not None:
            await application.post_shutdown(application)
