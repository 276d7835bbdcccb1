"""The bot process from start to exit, in polling and webhook mode alike.

python-telegram-bot's `run_polling` and `run_webhook` own the event loop and know nothing of
other servers; this runs the same sequence with the bot's web server beside the Application:
start the services, serve, fetch updates (long polling, or the webhook route), and on a stop
signal undo each step in reverse. Every step that was taken is undone whatever ends the run,
so the database is closed on every way out.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal

from telegram import Update
from telegram.error import InvalidToken, NetworkError
from telegram.ext import Application

from bot.app import build_application
from bot.config import Config, Webhook
from bot.startup import TokenRejected
from bot.transport.telegram_health import TelegramHealth
from bot.web.metrics import metrics_routes
from bot.web.routes import route_sets
from bot.web.server import WebServer, build_web_app

log = logging.getLogger(__name__)
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
# Every process registers the same webhook at start-up; a brief refusal is no reason to die.
WEBHOOK_ATTEMPTS = 4
# At shutdown, seconds a picture already being drawn gets to finish; queued ones are dropped.
RENDER_GRACE = 3.0


async def run(config: Config) -> None:
    """Run the bot until SIGINT or SIGTERM.

    Raises TokenRejected when Telegram refuses the token while the bot runs: nothing can
    work again until an operator changes it, so the process ends and its supervisor sees.
    """
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in STOP_SIGNALS:
        loop.add_signal_handler(sig, stop.set)
    application = build_application(config)
    calls = application.bot_data.telegram
    assert calls is not None
    handlers = logging.getLogger().handlers
    for handler in handlers:
        handler.addFilter(_no_token_traceback)
    try:
        async with contextlib.AsyncExitStack() as steps:
            await _serve(application, config, steps)
            await _until(stop, calls)
    except InvalidToken:  # the polling loop's end, raised again as it is stopped
        if not calls.token_refused.is_set():
            raise
    finally:
        for handler in handlers:
            handler.removeFilter(_no_token_traceback)
        for sig in STOP_SIGNALS:
            loop.remove_signal_handler(sig)
    if calls.token_refused.is_set():
        raise TokenRejected("Unauthorized")


def _no_token_traceback(record: logging.LogRecord) -> bool:
    """A call that met the refused token logs its traceback; the process says it in one line
    as it ends (bot/__main__.py), whichever call met it first."""
    return record.exc_info is None or not isinstance(record.exc_info[1], InvalidToken)


async def _serve(
    application: Application, config: Config, steps: contextlib.AsyncExitStack
) -> None:
    """Start everything, each step's undoing pushed onto `steps`."""
    await application.initialize()
    steps.push_async_callback(_shut_down, application)
    if application.post_init is not None:
        await application.post_init(application)  # opens the database
    await application.start()
    steps.push_async_callback(_stop, application)
    # Before the Application's stop, which waits for every update's work to end.
    steps.push_async_callback(_stop_workers, application)
    servers = []
    if config.web_address is not None:
        app = build_web_app(route_sets(config, application))
        servers.append(WebServer(app, *config.web_address))
    if config.metrics_address is not None:  # an address of its own, such as localhost's
        servers.append(WebServer(build_web_app([metrics_routes]), *config.metrics_address))
    for server in servers:
        await server.start()
        steps.push_async_callback(server.stop)
    if config.webhook is None:
        assert application.updater is not None
        await application.updater.start_polling(
            allowed_updates=Update.ALL_TYPES, drop_pending_updates=False
        )
        steps.push_async_callback(application.updater.stop)
    else:
        await _set_webhook(application, config.webhook)
    log.info("running")


async def _until(stop: asyncio.Event, calls: TelegramHealth) -> None:
    """Wait for a stop signal or for Telegram to refuse the token, whichever comes first."""
    waits = [asyncio.ensure_future(stop.wait()), asyncio.ensure_future(calls.token_refused.wait())]
    try:
        await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for wait in waits:
            wait.cancel()


async def _set_webhook(application: Application, webhook: Webhook) -> None:
    for attempt in range(1, WEBHOOK_ATTEMPTS + 1):
        try:
            await application.bot.set_webhook(
                webhook.url,
                secret_token=webhook.secret,
                allowed_updates=Update.ALL_TYPES,
                drop_pending_updates=False,
                # Updates of different chats in parallel (each chat's stay in order); the
                # database pool has a connection for each (Config.database_pool_size).
                max_connections=webhook.max_connections,
            )
            return
        except NetworkError as error:
            if attempt == WEBHOOK_ATTEMPTS:
                raise
            log.warning("setting the webhook failed (%s); trying again", error)
            await asyncio.sleep(attempt)


async def _stop_workers(application: Application) -> None:
    runtime = application.bot_data.runtime
    if runtime is not None:
        await runtime.workers.stop(grace=RENDER_GRACE)


async def _stop(application: Application) -> None:
    await application.stop()
    if application.post_stop is not None:
        await application.post_stop(application)


async def _shut_down(application: Application) -> None:
    await application.shutdown()
    if application.post_shutdown is not None:
        await application.post_shutdown(application)
