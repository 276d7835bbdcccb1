"""End-to-end harness: the real Application, the Bot API emulator on 127.0.0.1, a real database.

Tests act as Telegram users through the emulator and look only at what the bot sent, plus the
database where a test needs to set up a position (a board one merge from 2048, say).

Every test that uses the `database` fixture (and so `bot`) runs twice: on a SQLite file and on
PostgreSQL, in a schema of its own. PostgreSQL is the server at TEST_DATABASE_URL (default
postgresql://postgres@127.0.0.1:54329/bot2048_test, what `.ci/postgres start DIR` starts);
without a reachable server those variants are skipped, except in CI (CI set), where they fail.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import signal
import subprocess
import sys
import uuid
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import asyncpg
import pytest

import engine
from bot.app import build_application
from bot.config import Config
from bot.emulator import FakeBotApi, StoredMessage
from bot.render import LADDER
from bot.runner import polling
from bot.storage import Storage

# Every Bot API call is logged by httpx at INFO; the bot's own INFO lines matter more here.
logging.getLogger("httpx").setLevel(logging.WARNING)

ROOT = Path(__file__).resolve().parent.parent  # the checkout: `python -m bot` runs from here
DEFAULT_TEST_DATABASE_URL = "postgresql://postgres@127.0.0.1:54329/bot2048_test"
BACKENDS = ("sqlite", "postgres")
# A database is a SQLite file (a Path) or a PostgreSQL URL (a str), as Storage.open takes it.
Database = Path | str
_server_checked: dict[str, str | None] = {}


def postgres_test_url() -> str:
    return os.environ.get("TEST_DATABASE_URL", "").strip() or DEFAULT_TEST_DATABASE_URL


async def postgres_server() -> str:
    """The test server's URL; skips (fails in CI) when no server answers there."""
    url = postgres_test_url()
    if url not in _server_checked:
        try:
            connection = await asyncpg.connect(url, timeout=5)
        except (OSError, asyncpg.PostgresError, TimeoutError) as error:
            _server_checked[url] = f"{error.__class__.__name__}: {error}"
        else:
            await connection.close()
            _server_checked[url] = None
    problem = _server_checked[url]
    if problem is not None:
        message = (
            f"no PostgreSQL server at TEST_DATABASE_URL={url} ({problem}); start one with "
            "`.ci/postgres start /tmp/bot2048-pg` or point TEST_DATABASE_URL at one"
        )
        if os.environ.get("CI"):
            pytest.fail(f"CI runs the PostgreSQL variants: {message}")
        pytest.skip(f"PostgreSQL variant skipped: {message}")
    return url


def with_schema(url: str, schema: str) -> str:
    """The URL of one schema in the server's database (asyncpg takes search_path from it)."""
    return f"{url}{'&' if '?' in url else '?'}search_path={schema}"


@contextlib.asynccontextmanager
async def fresh_postgres_database():
    """A URL whose tables live in a new, empty schema, dropped afterwards."""
    server = await postgres_server()
    schema = f"test_{uuid.uuid4().hex[:16]}"
    connection = await asyncpg.connect(server)
    try:
        await connection.execute(f"CREATE SCHEMA {schema}")
    finally:
        await connection.close()
    try:
        yield with_schema(server, schema)
    finally:
        connection = await asyncpg.connect(server)
        try:
            await connection.execute(f"DROP SCHEMA {schema} CASCADE")
        finally:
            await connection.close()


@pytest.fixture(params=BACKENDS)
def backend(request) -> str:
    return request.param


@pytest.fixture
async def database(backend, tmp_path):
    """An empty database on the backend under test."""
    if backend == "sqlite":
        yield tmp_path / "bot.sqlite3"
        return
    async with fresh_postgres_database() as url:
        yield url


async def execute_sql(database: Database, sql: str, *params: Any) -> int:
    """Run one statement (with `?` placeholders) on either backend: a test's set-up step."""
    store = await Storage.open(database)
    try:
        async with store.transaction():
            return await store._execute(sql, params)
    finally:
        await store.close()


@pytest.fixture
def no_errors_logged(caplog):
    """Fail the test if anything was logged at ERROR: expected trouble is handled quietly."""
    caplog.set_level(logging.WARNING)
    yield
    # caplog.records holds only the current phase (teardown, here): collect the test's own.
    records = [*caplog.get_records("setup"), *caplog.get_records("call"), *caplog.records]
    errors = [r for r in records if r.levelno >= logging.ERROR]
    assert not errors, [r.getMessage() for r in errors]


class RunningBot:
    """One bot process's worth of Application, restartable against the same database."""

    def __init__(
        self,
        api: FakeBotApi,
        database: Database,
        card_interval: float = 0.3,
        edit_interval: float = 0.01,
        hint_budget_ms: float = 50.0,
        challenge_sync_interval: float = 60.0,
        hint_workers_at_start: bool = False,  # most tests ask for no hint: spare the CPU
    ) -> None:
        self.api = api
        self.database = database
        self.card_interval = card_interval
        self.edit_interval = edit_interval
        self.hint_budget_ms = hint_budget_ms
        self.challenge_sync_interval = challenge_sync_interval
        self.hint_workers_at_start = hint_workers_at_start
        self._stack: contextlib.AsyncExitStack | None = None

    async def start(self) -> None:
        postgres = isinstance(self.database, str)
        config = Config(
            token=self.api.token,
            base_url=self.api.base_url,
            database=Path("unused.sqlite3") if postgres else Path(self.database),
            database_url=self.database if postgres else None,
            card_interval=self.card_interval,
            edit_interval=self.edit_interval,
            hint_budget_ms=self.hint_budget_ms,
            challenge_sync_interval=self.challenge_sync_interval,
            hint_workers_at_start=self.hint_workers_at_start,
        )
        self.application = build_application(config)
        self._stack = contextlib.AsyncExitStack()
        await self._stack.enter_async_context(polling(self.application, poll_timeout=1))

    async def stop(self) -> None:
        if self._stack is not None:
            await self._stack.aclose()
            self._stack = None

    async def restart(self) -> None:
        await self.stop()
        await self.start()


@pytest.fixture
async def api():
    async with FakeBotApi() as fake:
        yield fake


@pytest.fixture
async def bot(api, database):
    running = RunningBot(api, database)
    await running.start()
    yield running
    await running.stop()


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


def buttons(message: StoredMessage) -> dict[str, str]:
    markup = message.reply_markup or {"inline_keyboard": []}
    return {
        button["text"]: button.get("callback_data", button.get("url", ""))
        for row in markup["inline_keyboard"]
        for button in row
    }


def button_data(message: StoredMessage, label: str) -> str:
    matches = [data for text, data in buttons(message).items() if text.startswith(label)]
    assert len(matches) == 1, f"no single button {label!r} in {list(buttons(message))}"
    return matches[0]


def grid(message: StoredMessage) -> list[str]:
    """The emoji grid lines of a board message (between the title and the legend)."""
    lines = message.text.split("\n")
    size = len(lines[2])
    return lines[2 : 2 + size]


async def put_board(
    database: Database, chat_id: int, owner_id: int, rows: list[list[int]], **changes: Any
) -> engine.Game:
    """Rewrite a player's running game through the storage layer, as a test set-up step."""
    store = await Storage.open(database)
    try:
        stored = await store.active_game(chat_id, owner_id)
        assert stored is not None
        game = replace(stored.game, board=tuple(v for row in rows for v in row), **changes)
        async with store.transaction():
            await store.update_game(stored, game, 0.0, played_counted=stored.played_counted)
    finally:
        await store.close()
    return game


async def eventually(check: Callable[[], bool], timeout: float = 5.0) -> None:
    """Wait until `check()` holds: redraws are paced and deliveries are answered late."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not check():
        assert asyncio.get_running_loop().time() < deadline, "condition never held"
        await asyncio.sleep(0.02)


async def stored_game(database: Database, chat_id: int, owner_id: int) -> engine.Game:
    store = await Storage.open(database)
    try:
        stored = await store.active_game(chat_id, owner_id)
    finally:
        await store.close()
    assert stored is not None
    return stored.game


DIRECTION = {"l": "left", "u": "up", "r": "right", "d": "down"}


def shown_board(text: str) -> tuple[int, ...]:
    """Read the tile values back from a board message's emoji grid."""
    lines = text.split("\n")
    size = len(lines[2])
    return tuple(
        0 if ch == LADDER[0] else 1 << LADDER.index(ch)
        for line in lines[2 : 2 + size]
        for ch in line
    )


def shown_moves(text: str) -> int:
    match = re.search(r"(\d+) moves?", text)
    assert match is not None, text
    return int(match.group(1))


def replay(game: engine.Game, codes: str | list[str]) -> engine.Game:
    """Where a series of taps (l, u, r, d) leads, applied one after another."""
    for code in codes:
        game = engine.play(game, DIRECTION[code], 0.0).game
    return game


def moving_code(game: engine.Game) -> str:
    """A tap (l, r, u, d) that moves this game; which one depends on the tiles its seed spawned."""
    return next(code for code in "lrud" if replay(game, code) != game)


def refused_setting(args: list[str], env: dict[str, str]) -> str:
    """Run `python -m bot` with a bad setting: exit code 2, one clear line, no traceback."""
    done = subprocess.run(
        [sys.executable, "-m", "bot", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    return done.stderr


async def stop_cleanly(process: asyncio.subprocess.Process) -> str:
    """SIGTERM a bot process; it must exit 0 without a traceback. Returns its stderr."""
    process.send_signal(signal.SIGTERM)
    try:
        code = await asyncio.wait_for(process.wait(), timeout=30)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    assert process.stderr is not None
    stderr = (await process.stderr.read()).decode()
    assert code == 0, stderr
    assert "Traceback" not in stderr, stderr
    return stderr
