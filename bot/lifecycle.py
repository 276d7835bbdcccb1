"""One start and one stop for every way the bot runs.

Production (polling or webhook), the in-process tests, the playground and the benchmarks all
run this module, in this order:

1. `opened`: the web servers first (/healthz says "opening the database", and every other
   route 503), then the SQLite file's lock (or PostgreSQL's updates lock), the storage, the
   runtime (bot/wiring.py), the Application (bot/app.py) and the Mini App's API, whose routes
   the web server then serves on the socket it keeps open; no call to Telegram.
2. `serving`: /healthz says "waiting for Telegram" (and every other route 503) until the
   Application has started; Telegram's getMe, asked until it answers (bot/startup.py), the
   challenges' end jobs and the repeating jobs, the Application started, then the updates:
   long polling, or the webhook set. The bot's menus and descriptions (bot/profile.py) are
   set in the background from then on: nothing cosmetic holds up the start.

Each step's undoing is pushed as it is taken, so whatever ends the run undoes exactly what was
done, in reverse: the menus' calls end; the updates stop; the web servers refuse new work and
finish the requests they have; a picture being drawn gets `RENDER_GRACE`; the Application
stops, the chats' queues get `SHUTDOWN_DRAIN` to go out and what did not go is left owed;
the database closes last, then the locks. A stop signal that comes before the bot serves cancels the
start where it is, and `STOP_DEADLINE` bounds a stop whatever it waits on. The playground
starts its own Telegram stand-in between the two halves, which is the only reason they are
two.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import threading
import time
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from telegram import Update
from telegram.error import Conflict, InvalidToken, NetworkError, TelegramError
from telegram.ext import Application

from bot import metrics, profile
from bot.app import build_application
from bot.chat.announcements import catch_up, remind_daily
from bot.chat.echo import ChatEcho
from bot.chat.endings import schedule_open_challenges
from bot.chat.jobs import Callback, bounded, limit_for
from bot.config import Config, Webhook
from bot.handlers.context import BotContext
from bot.services.redelivery import KEEP_SECONDS
from bot.services.reminders import TURN_SECONDS
from bot.startup import TokenRejected, reach_telegram
from bot.storage import StorageUnavailable, open_storage
from bot.storage.lock import DatabaseLock
from bot.transport.telegram_health import TelegramHealth
from bot.web.health import Health
from bot.web.metrics import metrics_routes
from bot.web.miniapp.api import MiniApp
from bot.web.routes import opening_routes, route_sets
from bot.web.server import WebServer, build_web_app
from bot.wiring import Runtime, build_runtime

if TYPE_CHECKING:
    from bot.storage.postgres import UpdatesLock

log = logging.getLogger(__name__)
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
# Every process registers the same webhook at start-up; a brief refusal is no reason to die.
WEBHOOK_ATTEMPTS = 4
# At shutdown, seconds a picture already being drawn gets to finish; queued ones are dropped.
RENDER_GRACE = 3.0
# At shutdown, queued messages and edits get this many seconds to go out.
SHUTDOWN_DRAIN = 5.0
# How often the record of handled updates drops keys no redelivery can ask for any more.
FORGET_DELIVERIES_EVERY = 3600.0
# How often the dailies whose day is over get their places kept (bot/services/daily.py):
# a job of its own, as a day of 100,000 players takes longer than the catch-up's turn.
KEEP_PLACES_EVERY = 30.0
# With PostgreSQL, how long a chat's shared pace is kept after its last send, and a
# throttle's bucket after it was last spent: by then the budget is full and any slowed pace
# recovered (the slowest throttle fills in a minute), the same as one never used.
FORGET_BUDGETS_AFTER = 3600.0
# Seconds the long poll waits for an update before asking again.
POLL_TIMEOUT = 10
# At shutdown, seconds a call setting the menus, already on its way, gets to finish.
INTRODUCTION_GRACE = 2.0
# Seconds a stop may take, whatever it waits on, before the process exits regardless: a
# supervisor's own patience is often 10 s, after which it kills.
STOP_DEADLINE = 9.0


@dataclass(frozen=True, slots=True)
class BotProcess:
    """What one bot process runs on, opened; `serving` starts it."""

    config: Config
    runtime: Runtime
    application: Application
    miniapp: MiniApp
    health: Health
    # Listening since before the database was opened; stopped by `serving` or `opened`.
    servers: tuple[WebServer, ...] = ()
    # With PostgreSQL, who takes the updates; its `lost` ends the run.
    updates_lock: UpdatesLock | None = None
    # Set once the menus and descriptions have been set, or given up on.
    introduced: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def telegram(self) -> TelegramHealth:
        health = self.application.bot_data.telegram
        assert health is not None
        return health


def bot_id(token: str) -> int:
    """The bot's id, the token's part before the colon: known before Telegram is asked."""
    return int(token.partition(":")[0])


@asynccontextmanager
async def opened(
    config: Config, clock: Callable[[], float] = time.time
) -> AsyncIterator[BotProcess]:
    """The web servers, the locks, the storage, the runtime and the Application, built but not
    started.

    `clock`: the daily's (build_runtime).
    """
    async with AsyncExitStack() as steps:
        # Listening from the first moment, so that /healthz answers while a database far
        # away, slow or migrating is opened; the rest of the routes come once it is.
        health = Health()
        web, servers = _web_servers(config, health)
        for server in servers:
            await server.start()
            steps.push_async_callback(server.stop)
        updates_lock = None
        if config.database_url is None:
            # A SQLite file is locked for this process alone from before it is opened.
            lock = DatabaseLock(config.database)
            lock.acquire()
            steps.callback(lock.release)
        else:
            # With PostgreSQL: one polling process per bot and database, or webhooks only.
            # (asyncpg is imported only where PostgreSQL is in use.)
            from bot.storage.postgres import UpdatesLock

            updates_lock = UpdatesLock(
                config.database_url,
                bot_id(config.token),
                polling=config.webhook is None,
                wait=config.database_wait,
            )
            await updates_lock.acquire()
            steps.push_async_callback(updates_lock.release)
        storage = await open_storage(
            config.database_url or config.database,
            pool_size=config.database_pool_size,
            wait=config.database_wait,
        )
        steps.push_async_callback(storage.close)
        runtime = build_runtime(config, storage, clock)
        steps.callback(runtime.workers.close)
        _install_pacer_metrics(runtime)
        application = build_application(config, runtime)
        miniapp = MiniApp(
            token=config.token,
            games=runtime.games,
            players=runtime.players,
            reviews=runtime.reviews,
            throttle=runtime.throttle,
            hint_throttle=runtime.hint_throttle,
            chat=ChatEcho(application),
            max_age=config.webapp_max_age,
        )
        telegram = application.bot_data.telegram
        assert telegram is not None
        health.opened(storage.schema_version, telegram)
        if web is not None:
            routes = route_sets(config, application, miniapp, health)
            await web.replace(build_web_app(routes))
        yield BotProcess(config, runtime, application, miniapp, health, servers, updates_lock)


@asynccontextmanager
async def serving(process: BotProcess, poll_timeout: int = POLL_TIMEOUT) -> AsyncIterator[None]:
    """Telegram's side of an opened process, from getMe to the updates, undone in reverse."""
    config, runtime, application = process.config, process.runtime, process.application
    async with AsyncExitStack() as steps:
        # Serving /healthz (and refusing all else) since `opened`; stopped again below, after
        # the updates and before the Application, so that the requests in flight finish.
        servers = process.servers
        for server in servers:
            steps.push_async_callback(server.stop)
        await reach_telegram(application.bot, config)
        await application.initialize()
        steps.push_async_callback(application.shutdown)
        if config.hint_workers_at_start:
            runtime.workers.start_workers()
        await schedule_open_challenges(application)
        _schedule_jobs(application, config, runtime)
        await application.start()
        steps.push_async_callback(_stop, application, runtime)
        # Before the Application's stop, which waits for every update's work to end.
        steps.push_async_callback(runtime.workers.stop, grace=RENDER_GRACE)
        for server in servers:
            steps.push_async_callback(server.stop)
        # The webhook's updates and the Mini App's calls can be handled from here on.
        process.health.start_serving()
        steps.callback(process.health.stop_serving)
        if config.webhook is None:
            assert application.updater is not None
            await application.updater.start_polling(
                poll_interval=0,
                timeout=poll_timeout,
                allowed_updates=Update.ALL_TYPES,
                drop_pending_updates=False,
                error_callback=_polling_failed,
            )
            steps.push_async_callback(application.updater.stop)
        else:
            await _set_webhook(application, config.webhook)
        stopping = asyncio.Event()
        introducing = asyncio.create_task(
            profile.introduce(application, runtime.miniapp_page, stopping), name="introduce"
        )
        introducing.add_done_callback(lambda task: _introduced(task, process.introduced))
        steps.push_async_callback(_stop_introducing, introducing, stopping)
        log.info("bot @%s ready, database %r", application.bot.username, runtime.storage)
        yield


@asynccontextmanager
async def running(
    config: Config, poll_timeout: int = POLL_TIMEOUT, clock: Callable[[], float] = time.time
) -> AsyncIterator[BotProcess]:
    """`opened`, then `serving`: the whole bot process, until the block ends."""
    async with opened(config, clock) as process, serving(process, poll_timeout):
        yield process


async def run(config: Config) -> None:
    """Run the bot until SIGINT or SIGTERM.

    A stop signal before the bot serves (while it waits for Telegram, say) cancels the start;
    whatever the stop then waits on, the process is gone within `STOP_DEADLINE`.

    Raises TokenRejected when Telegram refuses the token while the bot runs: nothing can
    work again until an operator changes it, so the process ends and its supervisor sees.
    Raises StorageUnavailable when another process took the updates lock while this one had
    lost it (a PostgreSQL restart): two pollers must never run at once.
    """
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in STOP_SIGNALS:
        loop.add_signal_handler(sig, stop.set)
    handlers = logging.getLogger().handlers
    for handler in handlers:
        handler.addFilter(_no_token_traceback)
    serving_now = asyncio.Event()
    body = asyncio.ensure_future(_serve(config, stop, serving_now))
    deadline: threading.Timer | None = None
    try:
        await _until_done(body, stop)
        if stop.is_set():
            deadline = threading.Timer(STOP_DEADLINE, _exit_late)
            deadline.daemon = True
            deadline.start()
            if not serving_now.is_set():
                body.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await body
    finally:
        if deadline is not None:
            deadline.cancel()
        for handler in handlers:
            handler.removeFilter(_no_token_traceback)
        for sig in STOP_SIGNALS:
            loop.remove_signal_handler(sig)
    if not body.cancelled() and body.result():
        raise TokenRejected("Unauthorized")


async def _serve(config: Config, stop: asyncio.Event, serving_now: asyncio.Event) -> bool:
    """The bot, until `stop` or a refused token; True for the latter."""
    refused = asyncio.Event()
    lock = None
    try:
        async with opened(config) as process:
            refused = process.telegram.token_refused
            lock = process.updates_lock
            async with serving(process):
                serving_now.set()
                log.info("running")
                await _until(stop, refused, *([] if lock is None else [lock.lost]))
    except InvalidToken:  # the polling loop's end, raised again as it is stopped
        if not refused.is_set():
            raise
    if lock is not None and lock.lost.is_set() and not refused.is_set():
        raise StorageUnavailable(lock.reason)
    return refused.is_set()


def _exit_late() -> None:
    """The stop's last resort, from a thread of its own: whatever holds the loop up."""
    log.error("still stopping after %g s; exiting now, what was not sent stays owed", STOP_DEADLINE)
    os._exit(1)


def _no_token_traceback(record: logging.LogRecord) -> bool:
    """A call that met the refused token logs its traceback; the process says it in one line
    as it ends (bot/__main__.py), whichever call met it first."""
    return record.exc_info is None or not isinstance(record.exc_info[1], InvalidToken)


async def _until_done(body: asyncio.Future[bool], stop: asyncio.Event) -> None:
    """Wait for the bot's run to end by itself or for a stop signal, whichever comes first."""
    stopped = asyncio.ensure_future(stop.wait())
    try:
        await asyncio.wait([body, stopped], return_when=asyncio.FIRST_COMPLETED)
    finally:
        stopped.cancel()


async def _until(*events: asyncio.Event) -> None:
    """Wait for the first of `events`: a stop signal, Telegram refusing the token, the
    updates lock taken by another process."""
    waits = [asyncio.ensure_future(event.wait()) for event in events]
    try:
        await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for wait in waits:
            wait.cancel()


def _web_servers(config: Config, health: Health) -> tuple[WebServer | None, tuple[WebServer, ...]]:
    """The bot's web server (None without one), serving what it can before the database is
    open, and every server the process runs, the metrics' own address's included."""
    web = None
    if config.web_address is not None:
        web = WebServer(build_web_app(opening_routes(config, health)), *config.web_address)
    servers = () if web is None else (web,)
    if config.metrics_address is not None:  # an address of its own, such as localhost's
        servers += (WebServer(build_web_app([metrics_routes()]), *config.metrics_address),)
    return web, servers


def _polling_failed(error: TelegramError) -> None:
    """One line for a failed long poll, where python-telegram-bot would log a traceback.

    A 409 Conflict is counted and said where every call passes
    (bot/transport/telegram_health.py), once a minute however often it comes.
    """
    if not isinstance(error, Conflict):
        log.warning("polling Telegram for updates failed (%s); trying again", error)


def _introduced(task: asyncio.Task[None], introduced: asyncio.Event) -> None:
    introduced.set()
    if not task.cancelled() and (error := task.exception()) is not None:
        log.error("setting the bot's menus and descriptions failed", exc_info=error)


async def _stop_introducing(task: asyncio.Task[None], stopping: asyncio.Event) -> None:
    """Its waits end at once; a call on its way gets `INTRODUCTION_GRACE` to finish."""
    stopping.set()
    with contextlib.suppress(TimeoutError, asyncio.CancelledError):
        await asyncio.wait_for(task, INTRODUCTION_GRACE)


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


async def _stop(application: Application, runtime: Runtime) -> None:
    # No job starts while python-telegram-bot waits for the running ones to end: one that
    # started after that would be cancelled halfway, and logged as an error.
    assert application.job_queue is not None
    application.job_queue.scheduler.pause()
    await application.stop()
    # A player's last move should reach the screen; a card waiting out its interval would
    # hold the shutdown up for nothing (the next tap redraws it).
    await runtime.pacer.drain(timeout=SHUTDOWN_DRAIN)
    # What did not go out is owed still: the next process to look sends it.
    with contextlib.suppress(StorageUnavailable):
        await runtime.outbox.release()


def _schedule_jobs(application: Application, config: Config, runtime: Runtime) -> None:
    assert application.job_queue is not None
    jobs = application.job_queue

    def every(callback: Callback, interval: float, name: str, first: float | None = None) -> None:
        """A repeating job, each run cut off before the next one is due."""
        jobs.run_repeating(
            bounded(callback, limit_for(interval)), interval=interval, first=first, name=name
        )

    # What a restart, an outage or another process left owed, now and every few seconds.
    every(_catch_up, config.outbox_interval, "catch-up", first=0)
    # The day's reminders, a batch a turn from midnight on (or from the start, if it missed it).
    every(_remind_daily, TURN_SECONDS, "daily-reminders", first=0)
    every(_keep_daily_places, KEEP_PLACES_EVERY, "daily-places", first=0)
    every(_forget_old_deliveries, FORGET_DELIVERIES_EVERY, "forget-deliveries")
    if runtime.shared is not None:
        every(_forget_idle_budgets, FORGET_BUDGETS_AFTER, "forget-budgets")
        every(_schedule_open_challenges, config.challenge_sync_interval, "schedule-open-challenges")


async def _catch_up(context: BotContext) -> None:
    await catch_up(context.bot, context.runtime)


async def _remind_daily(context: BotContext) -> None:
    await remind_daily(context.bot, context.runtime)


async def _keep_daily_places(context: BotContext) -> None:
    with contextlib.suppress(StorageUnavailable):  # logged by the storage; the next turn tries
        kept = await context.runtime.daily.keep_places()
        if kept:
            log.info("kept %d players' places in the dailies that ended", kept)


async def _forget_old_deliveries(context: BotContext) -> None:
    runtime = context.runtime
    forgotten = await runtime.update_log.forget_old()
    log.debug("forgot %d handled updates too old to be delivered again", forgotten)
    sent = await runtime.outbox.forget_sent(time.time() - KEEP_SECONDS)
    log.debug("forgot %d announcements sent long ago", sent)


async def _forget_idle_budgets(context: BotContext) -> None:
    shared = context.runtime.shared
    assert shared is not None, "scheduled only with a shared database"
    await shared.forget_budgets(FORGET_BUDGETS_AFTER)


async def _schedule_open_challenges(context: BotContext) -> None:
    await schedule_open_challenges(context.application)


def _install_pacer_metrics(runtime: Runtime) -> None:
    """/metrics reads the pacer's backlog and flood waits when it is asked."""
    pacer = runtime.pacer
    metrics.PACER_QUEUED.set_function(lambda: pacer.backlog()[0])
    metrics.PACER_LONGEST_WAIT.set_function(lambda: pacer.backlog()[1])
    metrics.FLOOD_WAITS.set_function(pacer.flood_waits)
