"""The real Application against the Bot API emulator, and Telegram users who talk to it."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from apscheduler.events import (
    EVENT_JOB_ERROR,
    EVENT_JOB_EXECUTED,
    EVENT_JOB_SUBMITTED,
    JobEvent,
)
from apscheduler.schedulers.base import BaseScheduler

from bot.config import Config
from bot.emulator import FakeBotApi, StoredMessage
from bot.emulator.api import WAIT_TIMEOUT
from bot.lifecycle import BotProcess, opened, serving
from tests.support.boards import button_data
from tests.support.databases import Database

# Where a test's bot differs from a production one; a test overrides any Config field.
TEST_CONFIG: dict[str, Any] = {
    "card_interval": 0.3,  # cards follow their standings within a test's patience
    "hint_workers_at_start": False,  # most tests ask for no hint: spare the CPU
    "database_wait": 30.0,  # generous: a busy machine makes queries wait
}


class JobRuns:
    """How many runs of the job queue's jobs are under way, from APScheduler's own events.

    A run is submitted (a task made, not yet started) before its event is dispatched, and
    its end is dispatched once the task is done, so the count is never low.
    """

    def __init__(self, scheduler: BaseScheduler) -> None:
        self.under_way = 0
        scheduler.add_listener(self._submitted, EVENT_JOB_SUBMITTED)
        scheduler.add_listener(self._ended, EVENT_JOB_EXECUTED | EVENT_JOB_ERROR)

    def _submitted(self, _: JobEvent) -> None:
        self.under_way += 1

    def _ended(self, _: JobEvent) -> None:
        self.under_way -= 1


class RunningBot:
    """One bot process's worth of Application, restartable against the same database.

    Its Config is production's with TEST_CONFIG applied, then the test's `overrides` (any
    Config field: `pace=None`, `webapp_url=...`); `clock` says which day it is for the daily.
    """

    def __init__(
        self,
        api: FakeBotApi,
        database: Database,
        clock: Callable[[], float] = time.time,
        **overrides: Any,
    ) -> None:
        self.api = api
        self.database = database
        self.clock = clock  # which day it is for the daily
        postgres = isinstance(database, str)
        self.config = replace(
            Config(
                token=api.token,
                base_url=api.base_url,
                database=Path("unused.sqlite3") if postgres else Path(database),
                database_url=database if postgres else None,
            ),
            **{**TEST_CONFIG, **overrides},
        )
        self._stack: contextlib.AsyncExitStack | None = None

    async def start(self) -> None:
        self._stack = contextlib.AsyncExitStack()
        # `running`, in its two steps: the job queue is watched before its first run.
        self.process: BotProcess = await self._stack.enter_async_context(
            opened(self.config, clock=self.clock)
        )
        self.application = self.process.application
        assert self.application.job_queue is not None
        self._job_runs = JobRuns(self.application.job_queue.scheduler)
        await self._stack.enter_async_context(serving(self.process, poll_timeout=1))
        # The menus and descriptions are set in the background: tests see them set.
        await self.process.introduced.wait()

    async def pause_jobs(self) -> None:
        """No job of the bot's runs from here on: none starts, and those under way have ended.

        For a test that counts what one update costs, with nothing else beside it; the bot
        stops as usual.
        """
        assert self.application.job_queue is not None
        self.application.job_queue.scheduler.pause()
        await eventually(lambda: self._job_runs.under_way == 0)

    async def stop(self) -> None:
        if self._stack is not None:
            await self._stack.aclose()
            self._stack = None

    async def restart(self) -> None:
        await self.stop()
        await self.start()

    def challenge_end_due(self, challenge_id: int) -> float | None:
        """When this bot will end the challenge, on the clock of time.time(): its end job's
        due time (None: it has no end job for it)."""
        assert self.application.job_queue is not None
        jobs = self.application.job_queue.get_jobs_by_name(f"end-{challenge_id}")
        return jobs[0].next_t.timestamp() if jobs and jobs[0].next_t is not None else None


class User:
    """A Telegram user talking to the bot, in their private chat unless told otherwise."""

    def __init__(self, api: FakeBotApi, user_id: int, first_name: str, language: str = "en"):
        self.api = api
        self.id = user_id
        self.first_name = first_name
        api.add_user(user_id, first_name, language_code=language)

    async def send(self, text: str, replies: int = 1, chat_id: int | None = None) -> list[str]:
        """Send a message and return the texts of the next `replies` messages the bot sends."""
        chat = self.id if chat_id is None else chat_id
        self.api.send_text(self.id, chat, text)
        sent = [await self.api.wait_request("sendMessage", chat_id=chat) for _ in range(replies)]
        return [self.api.stored_message(chat, r.result["message_id"]).text for r in sent]

    async def open_board(
        self, text: str = "/start", replies: int = 2, chat_id: int | None = None
    ) -> StoredMessage:
        """Send a command that ends with a board, and return that board message."""
        await self.send(text, replies=replies, chat_id=chat_id)
        return self.board(chat_id)

    def board(self, chat_id: int | None = None) -> StoredMessage:
        message = self.api.last_bot_message(self.id if chat_id is None else chat_id)
        assert message is not None
        return self.api.stored_message(message["chat"]["id"], message["message_id"])

    async def tap(
        self, message: StoredMessage, label: str, *, edit: bool = True
    ) -> tuple[dict[str, Any], StoredMessage]:
        """Tap the button whose text starts with `label`; return the toast and the message."""
        data = button_data(message, label)
        return await self.tap_data(message, data, edit=edit)

    async def tap_data(
        self, message: StoredMessage, data: str, *, edit: bool = False, strict: bool = True
    ) -> tuple[dict[str, Any], StoredMessage]:
        query = self.api.tap(self.id, message.chat_id, message.message_id, data, strict=strict)
        answer = await self.api.wait_answer(query)
        if edit:
            await self.api.wait_request(
                "editMessageText", chat_id=message.chat_id, message_id=message.message_id
            )
        current = self.api.stored_message(message.chat_id, message.message_id)
        assert current is not None
        return answer, current


async def eventually(check: Callable[[], bool], timeout: float = WAIT_TIMEOUT) -> None:
    """Wait until `check()` holds: redraws are paced and deliveries are answered late."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not check():
        assert asyncio.get_running_loop().time() < deadline, f"condition never held in {timeout} s"
        await asyncio.sleep(0.02)
