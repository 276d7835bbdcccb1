"""GET /healthz: whether this process can do its job, for the platform that runs it.

200 "ok" when the database answers and Telegram answered the last call (or has been
unreachable only briefly while the calls are retried: bot/transport/telegram_health.py); else 503
with one line saying which. Anyone may ask: the answer names no token, address or person.
"""

from __future__ import annotations

import asyncio

from aiohttp import web
from telegram.ext import Application

from bot.web.server import RouteSet

# Seconds the database has to answer a trivial query before the process counts as unhealthy.
DATABASE_TIMEOUT = 3.0


async def _trouble(application: Application) -> str | None:
    runtime = application.bot_data.runtime
    if runtime is None:
        return "starting"
    try:
        await asyncio.wait_for(runtime.storage.schema_version(), DATABASE_TIMEOUT)
    except TimeoutError:
        return f"the database did not answer within {DATABASE_TIMEOUT:g} s"
    except Exception as error:
        return f"the database cannot be used ({error.__class__.__name__})"
    return application.bot_data.telegram.trouble()


def health_routes(application: Application) -> RouteSet:
    async def healthz(_: web.Request) -> web.Response:
        trouble = await _trouble(application)
        if trouble is not None:
            return web.Response(status=503, text=trouble + "\n")
        return web.Response(text="ok\n")

    def register(app: web.Application) -> None:
        app.router.add_get("/healthz", healthz)

    return register
