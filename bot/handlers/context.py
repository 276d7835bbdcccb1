"""The typed handler context: the bot's services and who is asking, in which language.

Handlers receive a `BotContext` (registered through `ContextTypes`, as in python-telegram-bot's
contexttypesbot example) instead of fishing untyped objects out of `bot_data` by string key.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from cachetools import TTLCache
from telegram import InlineQueryResultCachedPhoto, InlineQueryResultsButton
from telegram.constants import ChatType
from telegram.ext import Application, CallbackContext, ContextTypes, ExtBot

from bot.models import Player
from bot.presentation.i18n import Translator
from bot.services.challenges import ChallengeService
from bot.services.games import GameService
from bot.services.hints import HintService
from bot.services.outbox import Outbox
from bot.services.players import PlayerService
from bot.services.redelivery import UpdateLog
from bot.services.sharing import SharingService
from bot.services.workers import WorkerPool
from bot.storage import Storage
from bot.transport.pacer import Pacer
from bot.transport.telegram_health import TelegramHealth
from bot.transport.throttle import Throttle
from bot.web.miniapp.api import WebApp

GROUP_TYPES = (ChatType.GROUP, ChatType.SUPERGROUP)
# How long an inline answer is kept, by Telegram (`cache_time`) and by the bot alike, and
# how many at most.
INLINE_ANSWER_SECONDS = 10
INLINE_ANSWERS_KEPT = 10_000
# An inline query's answer: its results, and the button above them (if any).
InlineAnswer = tuple[list[InlineQueryResultCachedPhoto], InlineQueryResultsButton | None]


@dataclass
class Runtime:
    """Everything the handlers work with, built once at start-up (bot/app.py)."""

    storage: Storage
    players: PlayerService
    games: GameService
    challenges: ChallengeService
    workers: WorkerPool
    hints: HintService
    sharing: SharingService
    update_log: UpdateLog  # updates handled, so a redelivery applies once
    outbox: Outbox  # announcements owed, until they are sent
    # Everything sent into a chat goes through it, at the chat's pace.
    pacer: Pacer
    throttle: Throttle  # taps per user
    hint_throttle: Throttle  # hints per user
    inline_throttle: Throttle  # inline queries per user
    message_throttle: Throttle  # messages per user
    group_message_throttle: Throttle  # messages per group
    # Seconds between two edits of one challenge card: a few a minute, whatever the load.
    card_interval: float = 20.0
    # Inline answers as last given, per (user, query): kept a few seconds, as Telegram does.
    inline_answers: TTLCache[tuple[int, str], InlineAnswer] = field(
        default_factory=lambda: TTLCache(INLINE_ANSWERS_KEPT, ttl=INLINE_ANSWER_SECONDS)
    )
    # The Mini App's page (WEBAPP_URL + PAGE_PATH); None shows no Swipe button.
    webapp_page: str | None = None


class BotData:
    """The application-wide state python-telegram-bot keeps: the services, once started."""

    runtime: Runtime | None = None
    webapp: WebApp | None = None  # what the Mini App's API works with, once started
    telegram: TelegramHealth | None = None  # how the calls to Telegram went


@dataclass(frozen=True, slots=True)
class Audience:
    """Who sent an update, and the languages to answer in.

    `for_sender` is the sender's language, for toasts meant for them alone; `for_chat` is
    what the bot writes into the chat: the group's language when its admins chose one, else
    `for_sender`.
    """

    player: Player
    for_sender: Translator
    for_chat: Translator
    chat_id: int
    in_group: bool
    # An anonymous admin writing as the group: Telegram hides who it is, so no player.
    as_group: bool = False


class BotContext(
    CallbackContext[ExtBot[None], dict[object, object], dict[object, object], BotData]
):
    """A handler's context: `services`, and the `audience` bookkeeping found for the update."""

    def __init__(
        self, application: Application, chat_id: int | None = None, user_id: int | None = None
    ) -> None:
        super().__init__(application=application, chat_id=chat_id, user_id=user_id)
        self._audience: Audience | None = None

    @property
    def runtime(self) -> Runtime:
        runtime = self.bot_data.runtime
        assert runtime is not None, "services are set in post_init, before any update"
        return runtime

    @property
    def audience(self) -> Audience:
        """Set for every update with a user and a chat, before any handler runs."""
        assert self._audience is not None, "bookkeeping runs in group -1 for every update"
        return self._audience

    @audience.setter
    def audience(self, audience: Audience) -> None:
        self._audience = audience


CONTEXT_TYPES = ContextTypes(context=BotContext, bot_data=BotData)
