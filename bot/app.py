"""Builds the python-telegram-bot Application: storage, services, handlers, command menus."""

from __future__ import annotations

import logging

from telegram import BotCommand, LinkPreviewOptions
from telegram.constants import ParseMode
from telegram.ext import Application, ApplicationBuilder, ContextTypes, Defaults, Job

from bot import handlers
from bot.config import Config
from bot.delivery.ratelimit import ChatRateLimiter
from bot.delivery.redraw import Redrawer
from bot.delivery.throttle import Throttle
from bot.delivery.webhook import AcknowledgingProcessor, AcknowledgingQueue
from bot.handlers.challenges import reschedule_open_challenges, schedule_end
from bot.handlers.common import Services
from bot.presentation import texts
from bot.presentation.i18n import DEFAULT_LANGUAGE, LANGUAGES, translator
from bot.services.challenges import ChallengeService
from bot.services.games import GameService
from bot.services.hints import HintService
from bot.storage import Storage, open_storage
from bot.storage.lock import DatabaseLock

log = logging.getLogger(__name__)
# A fast human taps about five times a second; a burst of 60 covers frantic play, and
# anything sustained above 10 a second is a script.
TAPS_PER_SECOND = 10.0
TAP_BURST = 60.0
# Each hint costs a search of up to 50 ms on a worker: three in a row, then one every 2 s.
HINTS_PER_SECOND = 0.5
HINT_BURST = 3.0


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


async def _set_command_menus(application: Application) -> None:
    """One menu per language; Telegram shows each user the one for their app language."""
    for code in LANGUAGES:
        commands = [BotCommand(name, text) for name, text in texts.commands(translator(code))]
        language_code = None if code == DEFAULT_LANGUAGE else code
        await application.bot.set_my_commands(commands, language_code=language_code)


async def _adopt_open_challenges(context: ContextTypes.DEFAULT_TYPE) -> None:
    """With a shared database: schedule the end of challenges another process created.

    Every process ends every open challenge on time; `finish_challenge` lets exactly one of
    them post the final card and the winner. Without this, a challenge would wait for a
    restart if the process that created it went away.
    """
    application = context.application
    assert application.job_queue is not None
    for challenge in await application.bot_data["services"].storage.open_challenges():
        if not application.job_queue.get_jobs_by_name(f"end-{challenge.id}"):
            schedule_end(application, challenge)


async def _open_storage(application: Application, config: Config) -> Storage:
    """The configured database; a SQLite file is first locked for this process alone."""
    if config.database_url:
        return await open_storage(config)
    lock = DatabaseLock(config.database)
    lock.acquire()
    try:
        storage = await open_storage(config)
    except BaseException:
        lock.release()
        raise
    application.bot_data["database_lock"] = lock
    return storage


def build_application(config: Config) -> Application:
    builder = (
        ApplicationBuilder()
        .application_class(BotApplication)
        .token(config.token)
        .defaults(
            Defaults(
                parse_mode=ParseMode.HTML,
                link_preview_options=LinkPreviewOptions(is_disabled=True),
            )
        )
        # Honour retry_after per chat and keep groups near Telegram's 20 messages a minute,
        # with no global 30/s cap: that is broadcast guidance, and every tap costs two calls.
        .rate_limiter(ChatRateLimiter())
    )
    if config.webhook is None:
        # Different chats are served concurrently; GameService's per-chat lock keeps the
        # taps of one chat in arrival order.
        builder = builder.concurrent_updates(True)
    else:
        # The same, and each webhook request is answered once its update is handled, so
        # Telegram's one-at-a-time delivery per chat keeps the order across processes.
        queue = AcknowledgingQueue()
        builder = builder.update_queue(queue).concurrent_updates(AcknowledgingProcessor(queue))
    if config.base_url:
        builder = builder.base_url(config.api_url).base_file_url(config.file_url)

    async def post_init(application: Application) -> None:
        storage = await _open_storage(application, config)
        services = application.bot_data["services"] = Services(
            storage=storage,
            games=GameService(storage),
            challenges=ChallengeService(storage),
            redrawer=Redrawer(config.edit_interval),
            throttle=Throttle(rate=TAPS_PER_SECOND, burst=TAP_BURST),
            hints=HintService(budget_ms=config.hint_budget_ms),
            hint_throttle=Throttle(rate=HINTS_PER_SECOND, burst=HINT_BURST),
            card_interval=config.card_interval,
        )
        if config.hint_workers_at_start:
            services.hints.start_workers()
        await _set_command_menus(application)
        await reschedule_open_challenges(application)
        if config.database_url:
            assert application.job_queue is not None
            application.job_queue.run_repeating(
                _adopt_open_challenges,
                interval=config.challenge_sync_interval,
                name="adopt-open-challenges",
            )
        log.info("bot @%s ready, database %r", application.bot.username, storage)

    async def post_stop(application: Application) -> None:
        services = application.bot_data.get("services")
        if services is not None:
            await services.redrawer.drain(timeout=10)

    async def post_shutdown(application: Application) -> None:
        services = application.bot_data.get("services")
        if services is not None:
            services.hints.close()
            await services.storage.close()
        lock = application.bot_data.pop("database_lock", None)
        if lock is not None:
            lock.release()

    application = (
        builder.post_init(post_init).post_stop(post_stop).post_shutdown(post_shutdown).build()
    )
    handlers.register(application)
    return application
