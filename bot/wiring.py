"""The composition root: what a bot process runs on, built once its storage is open.

Every choice that depends on how the bot is deployed is made here, once. One process on a
SQLite file keeps copies of what it saved, and paces its chats and throttles its players' taps
alone. Several processes on one PostgreSQL database read every time, keep each chat's pace
and each player's taps in the database, claim a player's picture across processes and look
at a board again after editing it. Everything else is handed the `Runtime` this builds and
never asks which mode it runs in.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from cachetools import TTLCache
from telegram import InlineQueryResultCachedPhoto, InlineQueryResultsButton
from telegram.ext import Application

from bot.config import MINIAPP_PATH, Config
from bot.services.cache import no_cache, recent_cache
from bot.services.challenges import ChallengeService
from bot.services.daily import DailyService
from bot.services.games import GameService
from bot.services.group_daily import GroupDailyService
from bot.services.hints import HintService
from bot.services.locks import ChatLocks
from bot.services.outbox import Outbox
from bot.services.players import PlayerService, TapBudget, TapLedger
from bot.services.redelivery import UpdateLog
from bot.services.reminders import ReminderService
from bot.services.reviews import ReviewService
from bot.services.sharing import SharingService
from bot.services.stats import StatsService
from bot.services.verification import VerificationService
from bot.services.workers import WorkerPool
from bot.storage import Storage
from bot.transport.broadcasts import BroadcastBudget
from bot.transport.budgets import SharedBudgets
from bot.transport.pacer import Pacer
from bot.transport.telegram_health import TelegramHealth
from bot.transport.throttle import Throttle, ThrottleLedger

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
# How long an inline answer is kept, by Telegram (`cache_time`) and by the bot alike, and
# how many at most.
INLINE_ANSWER_SECONDS = 10
INLINE_ANSWERS_KEPT = 10_000
# An inline query's answer: its results, and the button above them (if any).
InlineAnswer = tuple[list[InlineQueryResultCachedPhoto], InlineQueryResultsButton | None]


@runtime_checkable
class SharedStorage(SharedBudgets, ThrottleLedger, TapLedger, Protocol):
    """A database the bot's other processes use too (PostgreSQL): what that mode needs of it
    beyond `Storage`, each chat's pace, the throttles and the players' taps first."""

    async def forget_budgets(self, idle: float) -> None:
        """Drop the chats' paces and the throttles' buckets untouched for `idle` seconds."""


@dataclass
class Runtime:
    """Everything handlers, jobs and the web server work with, built once per process."""

    storage: Storage
    players: PlayerService
    games: GameService
    challenges: ChallengeService
    daily: DailyService
    group_daily: GroupDailyService  # the daily's card in the groups that opted in
    stats: StatsService  # a player's statistics and daily streaks, read only
    reminders: ReminderService  # the daily's reminders, owed through the outbox
    verification: VerificationService  # games' records, once their seeds may be shown
    workers: WorkerPool
    reviews: ReviewService  # finished games measured against the solver, in the picture pool
    sharing: SharingService
    update_log: UpdateLog  # updates handled, so a redelivery applies once
    outbox: Outbox  # announcements owed, until they are sent
    # Everything sent into a chat goes through it, at the chat's pace.
    pacer: Pacer
    # What the bot sends on its own (the outbox's announcements), inside Telegram's bot-wide
    # limit: one budget for every process, in the database when it is shared.
    broadcasts: BroadcastBudget
    # Taps per user, in the chat and the Mini App alike: this process's, asked first, so a
    # flood through it costs no statement; on a shared database the budget that binds is
    # the one every process spends (`PlayerService.spend_tap`).
    throttle: Throttle
    # Hints, inline queries and messages per user, and messages per group: on a shared
    # database, one budget for every process (`Throttle.spend`).
    hint_throttle: Throttle
    inline_throttle: Throttle
    message_throttle: Throttle
    group_message_throttle: Throttle
    # The database other processes of the bot share; None for a process alone on its file.
    shared: SharedStorage | None = None
    # Whether a board is read again after its edit went out: another process may have drawn
    # a newer move meanwhile, and this edit landed after it.
    recheck_after_edit: bool = False
    # Seconds between two edits of one challenge card: a few a minute, whatever the load.
    card_interval: float = 20.0
    # Inline answers as last given, per (user, query): kept a few seconds, as Telegram does.
    inline_answers: TTLCache[tuple[int, str], InlineAnswer] = field(
        default_factory=lambda: TTLCache(INLINE_ANSWERS_KEPT, ttl=INLINE_ANSWER_SECONDS)
    )
    # The Mini App's page (WEBAPP_URL + MINIAPP_PATH); None shows no Swipe button.
    miniapp_page: str | None = None


class BotData:
    """The application-wide state python-telegram-bot keeps: the runtime, set at start-up."""

    runtime: Runtime | None = None
    telegram: TelegramHealth | None = None  # how the calls to Telegram went


def runtime_of(application: Application) -> Runtime:
    """The process's runtime: set before the Application is initialized, so always there."""
    runtime = application.bot_data.runtime
    assert runtime is not None, "the runtime is built before the Application"
    return runtime


def build_runtime(
    config: Config, storage: Storage, clock: Callable[[], float] = time.time
) -> Runtime:
    """The services, the pacer and the throttles on `storage`, for the mode it implies.

    `clock` says which day it is for the daily: tests move it past midnight. Whatever asks
    whether a daily's day is over reads it: the daily, a tap on its board (closed at its
    end), a share of it, the streaks in /stats, the reminders.
    """
    shared = storage if isinstance(storage, SharedStorage) else None
    # With other writers, a copy of saved state is wrong as soon as they write: read instead.
    copies = recent_cache if shared is None else no_cache
    locks = ChatLocks(storage)
    # One picture at a time per player, across the processes that share the database.
    workers = WorkerPool(claim=None if shared is None else storage.exclusive)
    hints = HintService(workers, budget_ms=config.hint_budget_ms)
    games = GameService(
        storage,
        locks,
        copies=copies,
        hints=hints,
        move_budget=(TAPS_PER_SECOND, TAP_BURST),
        clock=clock,
    )
    outbox = Outbox(storage)
    daily = DailyService(storage, locks, clock=clock)
    return Runtime(
        storage=storage,
        # One budget of taps per player for all processes, spent by the read a tap makes.
        players=PlayerService(
            storage,
            locks,
            copies=copies,
            taps=None if shared is None else TapBudget(shared, TAPS_PER_SECOND, TAP_BURST),
        ),
        games=games,
        challenges=ChallengeService(storage, locks, outbox=outbox),
        daily=daily,
        group_daily=GroupDailyService(storage, locks, daily, outbox),
        stats=StatsService(storage, clock),
        reminders=ReminderService(storage, locks, outbox, clock),
        verification=VerificationService(storage),
        workers=workers,
        reviews=ReviewService(storage, workers),
        sharing=SharingService(storage, locks, games, outbox=outbox, clock=clock),
        update_log=UpdateLog(storage),
        outbox=outbox,
        # One pace per chat: this process's own, or one for all processes, in the database.
        pacer=Pacer(config.pace, shared=shared),
        broadcasts=BroadcastBudget(shared),
        throttle=Throttle(rate=TAPS_PER_SECOND, burst=TAP_BURST),
        hint_throttle=Throttle(HINTS_PER_SECOND, HINT_BURST, name="hint", ledger=shared),
        inline_throttle=Throttle(
            INLINE_QUERIES_PER_SECOND, INLINE_QUERY_BURST, name="inline", ledger=shared
        ),
        message_throttle=Throttle(
            MESSAGES_PER_SECOND, MESSAGE_BURST, name="message", ledger=shared
        ),
        group_message_throttle=Throttle(
            GROUP_MESSAGES_PER_SECOND, GROUP_MESSAGE_BURST, name="group", ledger=shared
        ),
        shared=shared,
        recheck_after_edit=shared is not None,
        card_interval=config.card_interval,
        miniapp_page=config.webapp_url and config.webapp_url + MINIAPP_PATH + "/",
    )
