"""Builds the python-telegram-bot Application: storage, services, handlers, command menus."""

from __future__ import annotations

import contextlib
import logging
import time
from typing import TYPE_CHECKING

from telegram import (
    BotCommand,
    BotCommandScopeAllGroupChats,
    BotCommandScopeAllPrivateChats,
    LinkPreviewOptions,
    MenuButtonWebApp,
    WebAppInfo,
)
from telegram.constants import ParseMode
from telegram.ext import Application, ApplicationBuilder, Defaults, Job

from bot import handlers, metrics
from bot.config import Config
from bot.handlers.announcements import catch_up
from bot.handlers.challenges import schedule_open_challenges
from bot.handlers.commands import menu
from bot.handlers.context import CONTEXT_TYPES, BotContext, Runtime
from bot.handlers.webapp import ChatEcho
from bot.presentation import texts
from bot.presentation.i18n import DEFAULT_LANGUAGE, LANGUAGES, translator
from bot.services.challenges import ChallengeService
from bot.services.games import GameService
from bot.services.hints import HintService
from bot.services.locks import ChatLocks
from bot.services.outbox import Outbox
from bot.services.players import PlayerService
from bot.services.redelivery import KEEP_SECONDS, UpdateLog
from bot.services.sharing import SharingService
from bot.services.workers import WorkerPool
from bot.storage import Storage, StorageUnavailable, open_storage
from bot.storage.lock import DatabaseLock
from bot.transport.pacer import Pacer
from bot.transport.ratelimit import ChatRateLimiter
from bot.transport.telegram_health import TelegramHealth, WatchedRequest
from bot.transport.throttle import Throttle
from bot.transport.updates import ChatOrderedProcessor
from bot.transport.webhook import AcknowledgingProcessor, AcknowledgingQueue
from bot.web.miniapp.api import PAGE_PATH, WebApp

if TYPE_CHECKING:
    from bot.storage.postgres import PostgresStorage, UpdatesLock

log = logging.getLogger(__name__)
# A fast human taps about five times a second; a burst of 60 covers frantic play, and
# anything sustained above 10 a second is a script.
TAPS_PER_SECOND = 10.0
TAP_BURST = 60.0
# Each hint costs a search of up to 50 ms on a worker: three in a row, then one every 2 s.
HINTS_PER_SECOND = 0.5
HINT_BURST = 3.0
# Each inline query costs database reads and maybe card uploads, and clients send one per
# keystroke: a word's worth at once, then one a second.
INLINE_QUERIES_PER_SECOND = 1.0
INLINE_QUERY_BURST = 10.0
# Each message (a command, mostly) costs a reply: a few at once, then one a second per user,
# and in a group no more than the group can be answered (Telegram: about 20 a minute).
MESSAGES_PER_SECOND = 1.0
MESSAGE_BURST = 10.0
GROUP_MESSAGES_PER_SECOND = 20 / 60
GROUP_MESSAGE_BURST = 20.0
# How often the record of handled updates drops keys no redelivery can ask for any more.
FORGET_DELIVERIES_EVERY = 3600.0
# With PostgreSQL, how long a chat's shared pace is kept after its last send: by then its
# budget is full and any slowed pace recovered, the same as a chat never seen.
FORGET_PACES_AFTER = 3600.0
# At shutdown, queued messages and edits get this many seconds to go out.
SHUTDOWN_DRAIN = 5.0
# python-telegram-bot's own sizes: concurrent Bot API calls, and the one long poll.
API_CONNECTIONS = 256


class BotApplication(Application):
    """python-telegram-bot's Application without its memory of every user and chat.

    After each update the Application notes the update's chat and user ids for its persistence
    to save, and empties those sets only when it saves. This bot has no persistence (the
    database is its memory), so the sets were never emptied: a few hundred bytes per distinct
    user and chat, kept for the life of the process.
    """

    def _mark_for_persistence_update(
        self, *, update: object | None = None, job: Job | None = None
    ) -> None:
        if self.persistence is not None:
            super()._mark_for_persistence_update(update=update, job=job)


class _DatabaseOnceOpen:
    """The chats' budgets in the PostgreSQL database that post_init opens, for the pacer the
    rate limiter is built with before then: until it is open, as while the database is away,
    the process paces each chat on its own (no chat hears from the bot before post_init)."""

    def __init__(self) -> None:
        self.storage: PostgresStorage | None = None

    def _opened(self) -> PostgresStorage:
        if self.storage is None:
            raise StorageUnavailable("the database is not open yet")
        return self.storage

    async def reserve_send(
        self, chat_id: int, interval: float, burst: float, recovery: float
    ) -> tuple[float, float]:
        return await self._opened().reserve_send(chat_id, interval, burst, recovery)

    async def hold_back(
        self, chat_id: int, seconds: float, recovery: float, slowest: float
    ) -> None:
        await self._opened().hold_back(chat_id, seconds, recovery, slowest)


async def _set_command_menus(application: Application) -> None:
    """A private and a group menu per language, each listing only what works there.

    Telegram shows each user the menu of the chat's kind in their app language; the default
    language's menus are also the ones for every language the bot does not speak.
    """
    scopes = ((False, BotCommandScopeAllPrivateChats()), (True, BotCommandScopeAllGroupChats()))
    for code in LANGUAGES:
        language_code = None if code == DEFAULT_LANGUAGE else code
        for in_group, scope in scopes:
            lines = menu(translator(code), in_group=in_group)
            commands = [BotCommand(name, text) for name, text in lines]
            await application.bot.set_my_commands(
                commands, scope=scope, language_code=language_code
            )


async def _introduce(application: Application) -> None:
    """The bot's description (an empty chat's start screen) and short description (its
    profile), per language like the menus; set only where Telegram shows something else, as
    every process does it at every start."""
    bot = application.bot
    for code in LANGUAGES:
        t = translator(code)
        language_code = None if code == DEFAULT_LANGUAGE else code
        wanted = texts.description(t)
        if (await bot.get_my_description(language_code)).description != wanted:
            await bot.set_my_description(wanted, language_code)
        wanted = texts.short_description(t)
        shown = await bot.get_my_short_description(language_code)
        if shown.short_description != wanted:
            await bot.set_my_short_description(wanted, language_code)


async def _set_menu_button(application: Application, page: str) -> None:
    """The chat's menu button opens the Mini App on the player's game, in every private chat."""
    button = MenuButtonWebApp("2048", WebAppInfo(page))
    await application.bot.set_chat_menu_button(menu_button=button)


def _webapp(config: Config, application: Application, runtime: Runtime) -> WebApp:
    return WebApp(
        token=config.token,
        games=runtime.games,
        players=runtime.players,
        hints=runtime.hints,
        throttle=runtime.throttle,
        hint_throttle=runtime.hint_throttle,
        chat=ChatEcho(application),
        max_age=config.webapp_max_age,
    )


def _services(config: Config, storage: Storage, pacer: Pacer) -> Runtime:
    locks = ChatLocks(storage)
    # One picture at a time per player, across the processes that share the database.
    workers = WorkerPool(claim=storage.exclusive if storage.shared else None)
    games = GameService(storage, locks)
    outbox = Outbox(storage)
    return Runtime(
        storage=storage,
        players=PlayerService(storage, locks),
        games=games,
        challenges=ChallengeService(storage, locks, outbox=outbox),
        workers=workers,
        hints=HintService(workers, budget_ms=config.hint_budget_ms),
        sharing=SharingService(storage, locks, games, outbox=outbox),
        update_log=UpdateLog(storage),
        outbox=outbox,
        pacer=pacer,
        throttle=Throttle(rate=TAPS_PER_SECOND, burst=TAP_BURST),
        hint_throttle=Throttle(rate=HINTS_PER_SECOND, burst=HINT_BURST),
        inline_throttle=Throttle(rate=INLINE_QUERIES_PER_SECOND, burst=INLINE_QUERY_BURST),
        message_throttle=Throttle(rate=MESSAGES_PER_SECOND, burst=MESSAGE_BURST),
        group_message_throttle=Throttle(rate=GROUP_MESSAGES_PER_SECOND, burst=GROUP_MESSAGE_BURST),
        card_interval=config.card_interval,
        webapp_page=config.webapp_url and config.webapp_url + PAGE_PATH + "/",
    )


async def _schedule_open_challenges(context: BotContext) -> None:
    await schedule_open_challenges(context.application, context.runtime)


async def _forget_idle_paces(context: BotContext) -> None:
    from bot.storage.postgres import PostgresStorage

    storage = context.runtime.storage
    assert isinstance(storage, PostgresStorage)
    await storage.forget_paces(FORGET_PACES_AFTER)


async def _forget_old_deliveries(context: BotContext) -> None:
    forgotten = await context.runtime.update_log.forget_old()
    log.debug("forgot %d handled updates too old to be delivered again", forgotten)
    sent = await context.runtime.outbox.forget_sent(time.time() - KEEP_SECONDS)
    log.debug("forgot %d announcements sent long ago", sent)


async def _catch_up(context: BotContext) -> None:
    await catch_up(context.bot, context.runtime)


def build_application(config: Config) -> Application:
    # With PostgreSQL, one pace per chat for all the bot's processes: its budget in the database.
    shared = _DatabaseOnceOpen() if config.database_url else None
    pacer = Pacer(config.pace, shared=shared)
    # A network blip or a Bot API restart is no trouble; two of the longest pauses between
    # attempts to reach Telegram (TELEGRAM_RETRY_MAX_SECONDS) without an answer are.
    calls = TelegramHealth(patience=2 * config.telegram_retry_max)
    metrics.PACER_QUEUED.set_function(lambda: pacer.backlog()[0])
    metrics.PACER_LONGEST_WAIT.set_function(lambda: pacer.backlog()[1])
    metrics.FLOOD_WAITS.set_function(pacer.flood_waits)
    # A SQLite file is locked for this process alone from before it is opened until closed.
    lock = None if config.database_url else DatabaseLock(config.database)
    # With PostgreSQL: one polling process per bot and database, or webhook processes only.
    updates_lock: UpdatesLock | None = None
    builder = (
        ApplicationBuilder()
        .application_class(BotApplication)
        .token(config.token)
        .defaults(
            Defaults(
                parse_mode=ParseMode.HTML,
                link_preview_options=LinkPreviewOptions(is_disabled=True),
                # A reply still goes out when the command it answers was deleted meanwhile.
                allow_sending_without_reply=True,
            )
        )
        # Every send and edit at its chat's pace, a flood wait per chat, and no global 30/s
        # cap: that is broadcast guidance, and every tap costs two calls.
        .rate_limiter(ChatRateLimiter(pacer))
        .context_types(CONTEXT_TYPES)
        .request(WatchedRequest(calls, connection_pool_size=API_CONNECTIONS))
    )
    if config.webhook is None:
        # Different chats are served concurrently, each chat's updates one at a time in order.
        # Two connections: at shutdown the long poll being cancelled may still hold one while
        # the last call, which confirms what was fetched, needs the other.
        builder = builder.concurrent_updates(ChatOrderedProcessor()).get_updates_request(
            WatchedRequest(calls, connection_pool_size=2)
        )
    else:
        # The same, and each webhook request is answered once its update is handled, so
        # Telegram's one-at-a-time delivery per chat keeps the order across processes.
        # The bot's web server receives the updates (bot/web/webhook.py): no Updater.
        queue = AcknowledgingQueue()
        builder = (
            builder.update_queue(queue)
            .concurrent_updates(AcknowledgingProcessor(queue))
            .updater(None)
        )
    if config.base_url:
        builder = builder.base_url(config.api_url).base_file_url(config.file_url)

    async def post_init(application: Application) -> None:
        nonlocal updates_lock
        if lock is not None:
            lock.acquire()
        if config.database_url:
            from bot.storage.postgres import UpdatesLock

            updates_lock = UpdatesLock(
                config.database_url, application.bot.id, polling=config.webhook is None
            )
            await updates_lock.acquire()
        try:
            storage = await open_storage(
                config.database_url or config.database,
                pool_size=config.database_pool_size,
                wait=config.database_wait,
            )
        except BaseException:
            if lock is not None:
                lock.release()
            if updates_lock is not None:
                await updates_lock.release()
            raise
        runtime = application.bot_data.runtime = _services(config, storage, pacer)
        if shared is not None:
            from bot.storage.postgres import PostgresStorage

            assert isinstance(storage, PostgresStorage)
            shared.storage = storage
        application.bot_data.webapp = _webapp(config, application, runtime)
        if config.hint_workers_at_start:
            runtime.workers.start_workers()
        await _set_command_menus(application)
        await _introduce(application)
        if runtime.webapp_page is not None:
            await _set_menu_button(application, runtime.webapp_page)
        await schedule_open_challenges(application, runtime)
        assert application.job_queue is not None
        # What a restart, an outage or another process left owed, now and every few seconds.
        application.job_queue.run_repeating(
            _catch_up, interval=config.outbox_interval, first=0, name="catch-up"
        )
        application.job_queue.run_repeating(
            _forget_old_deliveries, interval=FORGET_DELIVERIES_EVERY, name="forget-deliveries"
        )
        if storage.shared:
            application.job_queue.run_repeating(
                _forget_idle_paces, interval=FORGET_PACES_AFTER, name="forget-paces"
            )
            application.job_queue.run_repeating(
                _schedule_open_challenges,
                interval=config.challenge_sync_interval,
                name="schedule-open-challenges",
            )
        log.info("bot @%s ready, database %r", application.bot.username, storage)

    async def post_stop(application: Application) -> None:
        runtime = application.bot_data.runtime
        if runtime is not None:
            # A player's last move should reach the screen; a card waiting out its interval
            # would hold the shutdown up for nothing (the next tap redraws it).
            await runtime.pacer.drain(timeout=SHUTDOWN_DRAIN)
            # What did not go out is owed still: the next process to look sends it.
            with contextlib.suppress(StorageUnavailable):
                await runtime.outbox.release()

    async def post_shutdown(application: Application) -> None:
        runtime = application.bot_data.runtime
        if runtime is not None:
            runtime.workers.close()
            await runtime.storage.close()
        if lock is not None:
            lock.release()
        if updates_lock is not None:
            await updates_lock.release()

    application = (
        builder.post_init(post_init).post_stop(post_stop).post_shutdown(post_shutdown).build()
    )
    application.bot_data.telegram = calls
    handlers.register(application)
    return application
