"""Test databases: a SQLite file or a PostgreSQL schema of its own, and set-up steps on them.

PostgreSQL is the server at TEST_DATABASE_URL (postgresql://postgres@127.0.0.1:54329/bot2048_test
is what `.ci/postgres start DIR 54329` starts). With it unset, or no server answering there, the
PostgreSQL variants are skipped, so that the inner loop runs SQLite alone; in CI (CI set) they
fail instead.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sqlite3
import time
import uuid
from dataclasses import replace
from pathlib import Path
from typing import Any, NoReturn

import asyncpg
import pytest

import engine
from bot.storage import Storage, open_storage
from bot.storage.schema import POSTGRES, migrations
from tests.support.data import DATA

# What `.ci/postgres start /tmp/bot2048-pg 54329` serves, for the skip message.
LOCAL_TEST_DATABASE_URL = "postgresql://postgres@127.0.0.1:54329/bot2048_test"
BACKENDS = ("sqlite", "postgres")
# The schema of the first release, as it made SQLite databases out there.
FIRST_RELEASE_SQL = DATA / "first_release.sql"
# A database is a SQLite file (a Path) or a PostgreSQL URL (a str), as open_storage takes it.
Database = Path | str
_server_checked: dict[str, str | None] = {}


def postgres_test_url() -> str | None:
    """TEST_DATABASE_URL: the server the PostgreSQL variants run on (None: it is not set)."""
    return os.environ.get("TEST_DATABASE_URL", "").strip() or None


async def postgres_server() -> str:
    """The test server's URL; skips (fails in CI) when TEST_DATABASE_URL is unset or no
    server answers there."""
    url = postgres_test_url()
    if url is None:
        _no_postgres(
            "TEST_DATABASE_URL is not set (`.ci/postgres start /tmp/bot2048-pg 54329` starts "
            f"a server at {LOCAL_TEST_DATABASE_URL})"
        )
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
        _no_postgres(
            f"no PostgreSQL server at TEST_DATABASE_URL={url} ({problem}); start one with "
            "`.ci/postgres start /tmp/bot2048-pg` or point TEST_DATABASE_URL at one"
        )
    return url


def _no_postgres(message: str) -> NoReturn:
    if os.environ.get("CI"):
        pytest.fail(f"CI runs the PostgreSQL variants: {message}")
    pytest.skip(f"PostgreSQL variant skipped: {message}")


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


async def execute_sql(database: Database, sql: str, *params: Any) -> int:
    """Run one statement (with `?` placeholders) on either backend: a test's set-up step."""
    store = await open_storage(database)
    try:
        async with store.transaction():
            return await store._execute(sql, params)
    finally:
        await store.close()


async def count_rows(database: Database, table: str, where: str = "1 = 1", *params: Any) -> int:
    """How many rows of `table` match `where` (with `?` placeholders), on either backend."""
    store = await open_storage(database)
    try:
        row = await store._fetchrow(f"SELECT count(*) FROM {table} WHERE {where}", params)
    finally:
        await store.close()
    assert row is not None
    return row[0]


async def put_board(
    database: Database, chat_id: int, owner_id: int, rows: list[list[int]], **changes: Any
) -> engine.Game:
    """Rewrite a player's running game through the storage layer, as a test set-up step."""
    store = await open_storage(database)
    try:
        stored = await store.active_game(chat_id, owner_id)
        assert stored is not None
        game = replace(stored.game, board=tuple(v for row in rows for v in row), **changes)
        async with store.transaction():
            await store.update_game(
                stored, game, 0.0, played_counted=stored.played_counted, action="left"
            )
            await disown_actions(store, stored.id)
    finally:
        await store.close()
    return game


async def disown_actions(store: Storage, game_id: int) -> None:
    """A state set by hand has no actions that lead to it: the game loses its replay."""
    await store._execute("UPDATE games SET actions = NULL WHERE id = ?", (game_id,))


async def check_replays(database: Database) -> int:
    """Replay every game the database holds a log for; each must give its stored state.

    Returns how many games were replayed. Only the clock is left out of the comparison:
    a replay has no timestamps.
    """
    if isinstance(database, Path) and not database.exists():
        return 0
    store = await open_storage(database)
    try:
        rows = await store._fetchall("SELECT id FROM games WHERE actions IS NOT NULL")
        for (game_id,) in rows:
            stored = await store.game(game_id)
            assert stored is not None and stored.actions is not None
            played = stored.game
            replayed = engine.replay(played.size, played.seed, stored.actions)
            assert replayed == without_clock(played), f"game {game_id} replays differently"
    finally:
        await store.close()
    return len(rows)


def without_clock(game: engine.Game) -> engine.Game:
    """The game with its clock zeroed, stopped or not: what a replay knows (no timestamps)."""
    history = tuple(
        replace(s, win=None if s.win is None else engine.Win(s.win.moves, 0.0))
        for s in game.history
    )
    win = None if game.win is None else engine.Win(game.win.moves, 0.0)
    clock_at = None if game.clock_at is None else 0.0
    return replace(game, play_seconds=0.0, clock_at=clock_at, win=win, history=history)


async def stored_game(database: Database, chat_id: int, owner_id: int) -> engine.Game:
    store = await open_storage(database)
    try:
        stored = await store.active_game(chat_id, owner_id)
    finally:
        await store.close()
    assert stored is not None
    return stored.game


async def long_game(database: Database, user_id: int, seed: int, actions: int = 300) -> None:
    """A 6×6 game of up to `actions` moves in the player's chat, with its log: a long replay."""
    game, codes = engine.new_game(6, seed, 0.0), ""
    while len(codes) < actions and not game.over:
        code = next(c for c in "ldru" if engine.act(game, engine.CODE_ACTIONS[c], 0.0).changed)
        game, codes = engine.act(game, engine.CODE_ACTIONS[code], 0.0).game, codes + code
    await logged_game(database, user_id, game, codes)


async def logged_game(database: Database, user_id: int, game: engine.Game, codes: str) -> int:
    """`game` saved in the player's private chat with `codes` as its log; its id."""
    store = await open_storage(database)
    try:
        async with store.transaction():
            game_id = await store.insert_game(user_id, user_id, game, time.time())
            await store._execute("UPDATE games SET actions = ? WHERE id = ?", (codes, game_id))
    finally:
        await store.close()
    return game_id


async def one_move_from_over(database: Database, user_id: int, seed: int) -> str:
    """A 4×4 game in the player's private chat, one move from its end, with its log.

    Its moves are those of a player who always tries down, then left, right and up: a game
    of a hundred moves or so with plenty of costly ones. Returns the whole game's log; its
    last move, still to be played, ends the game.
    """
    game, codes = engine.new_game(4, seed, 0.0), ""
    while not game.over:
        code = next(c for c in "dlru" if engine.act(game, engine.CODE_ACTIONS[c], 0.0).changed)
        game, codes = engine.act(game, engine.CODE_ACTIONS[code], 0.0).game, codes + code
    await logged_game(database, user_id, engine.replay(4, seed, codes[:-1]), codes[:-1])
    return codes


class RowLock:
    """A transaction holding `SELECT ... FOR UPDATE` on PostgreSQL rows: writers of those rows
    wait for it, which a test can see happen (`waiters`) before it lets them go (`release`)."""

    def __init__(self, url: str, select: str) -> None:
        self._url = url
        self._select = select
        self._connection: asyncpg.Connection | None = None
        self._transaction: Any = None

    async def __aenter__(self) -> RowLock:
        self._connection = await asyncpg.connect(self._url)
        self._transaction = self._connection.transaction()
        await self._transaction.start()
        assert await self._connection.fetch(f"{self._select} FOR UPDATE"), "no row to lock"
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.release()

    async def waiters(self, count: int, timeout: float = 60.0) -> list[int]:
        """The server pids of `count` sessions waiting for these rows, directly or behind
        another waiter, once there are that many."""
        assert self._connection is not None
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            pids = await self._connection.fetch(
                "WITH RECURSIVE waiting(pid) AS ("
                " SELECT pid FROM pg_stat_activity"
                " WHERE pg_backend_pid() = ANY(pg_blocking_pids(pid))"
                " UNION SELECT a.pid FROM pg_stat_activity a JOIN waiting w"
                " ON w.pid = ANY(pg_blocking_pids(a.pid))"
                ") SELECT pid FROM waiting"
            )
            if len(pids) >= count:
                return [row["pid"] for row in pids]
            assert asyncio.get_running_loop().time() < deadline, (
                f"{len(pids)} of {count} sessions came to wait for the locked rows "
                f"within {timeout} s"
            )
            await asyncio.sleep(0.05)

    async def release(self) -> None:
        if self._connection is not None:
            await self._transaction.rollback()
            await self._connection.close()
            self._connection = None


async def wait_until_idle(url: str, pids: list[int], timeout: float = 60.0) -> None:
    """Wait until none of these server sessions runs a statement or holds a transaction open."""
    connection = await asyncpg.connect(url)
    try:
        deadline = asyncio.get_running_loop().time() + timeout
        while await connection.fetchval(
            "SELECT count(*) FROM pg_stat_activity WHERE pid = ANY($1) AND state <> 'idle'", pids
        ):
            assert asyncio.get_running_loop().time() < deadline, (
                f"sessions {pids} still busy after {timeout} s"
            )
            await asyncio.sleep(0.05)
    finally:
        await connection.close()


async def first_release_database(database: Database, game: engine.Game) -> None:
    """A database as the first release left it: a player, their running game, a record."""
    rows = [
        ("INSERT INTO players (user_id, name) VALUES (42, 'Anna')", ()),
        (
            "INSERT INTO games (chat_id, owner_id, size, state, created_at, updated_at) "
            "VALUES (42, 42, 4, ?, 1000.0, 1010.0)",
            (json.dumps(engine.to_dict(game), separators=(",", ":")),),
        ),
        (
            "INSERT INTO records (user_id, size, best_score, games_played) VALUES (42, 4, 900, 3)",
            (),
        ),
    ]
    if not isinstance(database, str):
        with sqlite3.connect(database) as raw:
            raw.executescript(FIRST_RELEASE_SQL.read_text())
            for sql, params in rows:
                raw.execute(sql, params)
            raw.execute("PRAGMA user_version = 1")
        return
    connection = await asyncpg.connect(database)
    try:
        for statement in migrations(POSTGRES)[0]:
            await connection.execute(statement)
        await connection.execute(
            "CREATE TABLE schema_version (version INTEGER PRIMARY KEY, "
            "applied_at TIMESTAMPTZ NOT NULL DEFAULT now())"
        )
        await connection.execute("INSERT INTO schema_version (version) VALUES (1)")
        for sql, params in rows:
            await connection.execute(sql.replace("?", "$1"), *params)
    finally:
        await connection.close()
