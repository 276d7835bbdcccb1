"""The python-telegram-bot Application: how it reaches Telegram, paces, orders and routes.

Only wiring: the runtime it serves is built before it (bot/wiring.py), and when it starts
and stops is bot/lifecycle.py's business.
"""

from __future__ import annotations

from telegram import LinkPreviewOptions
from telegram.constants import ParseMode
from telegram.ext import Application, ApplicationBuilder, Defaults, Job

from bot import handlers
from bot.config import Config
from bot.handlers.context import CONTEXT_TYPES
from bot.handlers.throttling import OverflowRefusal
from bot.transport.ratelimit import ChatRateLimiter
from bot.transport.telegram_health import TelegramHealth, WatchedRequest
from bot.transport.updates import BoundedUpdateQueue, ChatOrderedProcessor
from bot.transport.webhook import AcknowledgingProcessor, AcknowledgingQueue
from bot.wiring import Runtime

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


def build_application(config: Config, runtime: Runtime) -> Application:
    """The Application over `runtime`, every handler registered; nothing is started."""
    # A network blip or a Bot API restart is no trouble; two of the longest pauses between
    # attempts to reach Telegram (TELEGRAM_RETRY_MAX_SECONDS) without an answer are.
    health = TelegramHealth(patience=2 * config.telegram_retry_max)
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
        # cap but the broadcasts': that is broadcast guidance, and every tap costs two calls.
        .rate_limiter(ChatRateLimiter(runtime.pacer, runtime.broadcasts))
        .context_types(CONTEXT_TYPES)
        .request(WatchedRequest(health, connection_pool_size=API_CONNECTIONS))
    )

    overflow = OverflowRefusal(runtime)
    if config.webhook is None:
        # Different chats are served concurrently, each chat's updates one at a time in order.
        # Two connections: at shutdown the long poll being cancelled may still hold one while
        # the last call, which confirms what was fetched, needs the other.
        processor = ChatOrderedProcessor(overflow=overflow)
        builder = (
            builder.update_queue(BoundedUpdateQueue()).concurrent_updates(processor)
        ).get_updates_request(WatchedRequest(health, connection_pool_size=2))
    else:
        # The same, and each webhook request is answered once its update is handled, so
        # Telegram's one-at-a-time delivery per chat keeps the order across processes.
        # The bot's web server receives the updates (bot/web/webhook.py): no Updater.
        queue = AcknowledgingQueue()
        builder = (
            builder.update_queue(queue)
            .concurrent_updates(AcknowledgingProcessor(queue, overflow=overflow))
            .updater(None)
        )
    if config.base_url:
        builder = builder.base_url(config.api_url).base_file_url(config.file_url)
    application = builder.build()
    application.bot_data.runtime = runtime
    application.bot_data.telegram = health
    handlers.register(application)
    return application
