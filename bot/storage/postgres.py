"""PostgreSQL storage (asyncpg): one database shared by any number of bot processes.

`transaction()` takes a connection from the pool and binds it to the running task (a context
variable), so every query the task makes inside the block runs on that connection, in that
transaction; queries outside a transaction use any pooled connection and commit on their own.

Safety across processes comes from the database, not from the process:

- inside a transaction, reading a game (`game`, `active_game`, `challenge_entry`) takes its
  row lock (`SELECT ... FOR UPDATE`), so a second process tapping the same game waits for the
  first one's commit and then reads the game as that commit left it: no move is lost or
  applied twice;
- a move is the exception, for its round trips: its game is read without a lock, and
  `save_move` saves it, with the player's records, in one statement, onto the revision it
  was read at; another process's move in between makes it change nothing, and the move is
  read and decided again;
- where the read may find no row (a new game, joining a challenge), a transaction-scoped
  advisory lock on the key stands in for the missing row lock;
- `finish_challenge` is `UPDATE ... WHERE finished = 0`: the losing process waits on the row
  lock, then changes no row and learns it lost.

The schema version is recorded in a `schema_version` table; the migration runs under an
advisory lock (`_serialize`), so processes that start together migrate once.

Every wait on the server is bounded by `wait` seconds: for a pooled connection, and for each
statement, on both sides. The server cancels a statement that runs longer (`statement_timeout`,
lock waits included) and ends a session left idle inside a transaction as long (so a process
cut off mid-transaction holds no row lock for long); the client gives up on an answer that
does not come a second later (`command_timeout`), as on a connection whose packets vanish
without a reset, closes that connection and renews the pool's others, which the same cut has
likely left dead too. TCP keepalives on both ends find a dead peer of an idle connection.
The schema's migration alone runs unbounded, on a connection of its own.

When the server goes away or stops answering, every query fails with `StorageUnavailable`,
its transaction rolled back (by the server, when the connection is gone), the outage is logged
once when it starts and once when the server answers again, and the error handler turns each
failed update into an apology and one short line.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import socket
import urllib.parse
import uuid
from collections.abc import AsyncIterator, Awaitable, Sequence
from contextlib import asynccontextmanager
from contextvars import ContextVar
from functools import lru_cache
from typing import Any

import asyncpg

from bot.logs import system_reason
from bot.metrics import DATABASE_WAIT
from bot.models import Player, SendAsk, StoredGame
from bot.storage.queries import Storage
from bot.storage.queries.base import Row, StorageUnavailable, TransactionError
from bot.storage.queries.games import GAME_COLUMNS, game_from_row
from bot.storage.queries.players import player_from_row
from bot.storage.schema import POSTGRES

DEFAULT_POOL_SIZE = 10
# Seconds a new connection may take to answer: at start, and whenever the pool opens one.
CONNECT_TIMEOUT = 5.0
# Seconds a query waits for a pooled connection, or the server for a statement, before the
# update gives up.
DEFAULT_WAIT = 5.0
# Seconds the client waits beyond `wait` for an answer: a server that cancelled the statement
# says so first, and only a connection that went silent reaches the client's own timeout.
ANSWER_MARGIN = 1.0
# TCP keepalives (seconds): an idle connection's dead peer is found within about 25 s, on
# either end, where the kernel's defaults would take over two hours.
KEEPALIVE_IDLE = 10
KEEPALIVE_INTERVAL = 5
KEEPALIVE_PROBES = 3
# The connection to the server is lost or cannot be made, as opposed to a statement the
# server refused: the database is away, and the request itself may be fine.
_CONNECTION_LOST = (
    OSError,
    asyncpg.PostgresConnectionError,
    asyncpg.CannotConnectNowError,
    asyncpg.AdminShutdownError,
    asyncpg.CrashShutdownError,
    asyncpg.TooManyConnectionsError,
)
log = logging.getLogger(__name__)
# Advisory lock keys are 64-bit numbers shared by everything in the database: hash a prefixed
# name, so the bot's keys stay apart from any other application's.
_LOCK_PREFIX = "bot2048:"

# The key of a lock that lasts beyond a transaction, named by $1: the bot's tables are those
# of the connection's schema, and bots in other schemas of the database are none of its
# business.
_SCHEMA_KEY = "hashtextextended($1 || ':' || current_schema(), 0)"
# The database's clock, in seconds: one clock for every process that shares a chat's pace.
_NOW = "extract(epoch FROM clock_timestamp())::float8"
# Said by a statement that spends a budget (a chat's pace, a player's taps, a throttle): its
# commit does not wait for the disk. A server that crashes may forget its last fraction of a
# second of spending, which lets a few more sends or taps through and loses nothing of a
# player's; a later move's commit, which does wait, takes every earlier one to disk with it.
# A one-row table to join, for its side effect: no column of it is read.
_NOT_WAITING_FOR_DISK = "(SELECT set_config('synchronous_commit', 'off', true)) AS not_waiting"


def _factor(recovery: str) -> str:
    """A chat's pace now, as a share of its normal one: halved by a 429, doubling back every
    `recovery` seconds. The same rule as the in-memory Pacer's."""
    return (
        "(CASE WHEN p.factor >= 1 THEN 1.0 ELSE LEAST(1.0, p.factor * "
        f"power(2.0, floor(({_NOW} - p.slowed_at) / {recovery}::float8))) END)"
    )


def _reserving(first: int, guard: str = "") -> str:
    """Reserve a chat's next send: one statement, so processes reserving at once queue on the
    row and each gets a time of its own. Its parameters from `$first` on: the chat, the
    seconds between two sends at the full pace, the burst, the recovery. `guard`: a condition
    for reserving at all. The answer: seconds until the send may go, and until the chat's
    flood wait ends."""
    chat, interval, burst, recovery = (f"${first + i}" for i in range(4))
    # Seconds between two sends at the chat's pace now, and how far ahead of its due time a
    # send may go: a burst at the full pace, none while slowed.
    pace = f"({interval}::float8 / {_factor(recovery)})"
    slack = (
        f"((CASE WHEN {_factor(recovery)} >= 1 THEN {burst}::float8 ELSE 1.0 END - 1.0) * {pace})"
    )
    return f"""
    INSERT INTO chat_pace AS p (chat_id, due_at) SELECT {chat}::bigint, {_NOW} + {interval}::float8
    {guard}
    ON CONFLICT (chat_id) DO UPDATE SET due_at = GREATEST(p.due_at, {_NOW}) + {pace}
    RETURNING p.due_at - {pace} - {slack} - {_NOW}, p.blocked_until - {_NOW}
"""


_RESERVE_SEND = (
    f"WITH reserved (wait, held) AS ({_reserving(1)}) SELECT reserved.* FROM reserved"
    f" CROSS JOIN {_NOT_WAITING_FOR_DISK}"
)
# A 429 in chat $1 ($2 seconds of flood wait): nothing goes out before its end, and after it
# the chat goes at half its pace (never below $4 of it, recovering every $3 seconds), no burst.
_HOLD_BACK = f"""
    INSERT INTO chat_pace AS p (chat_id, due_at, blocked_until, factor, slowed_at)
    VALUES ($1, {_NOW} + $2::float8, {_NOW} + $2::float8, GREATEST($4::float8, 0.5), {_NOW})
    ON CONFLICT (chat_id) DO UPDATE SET
        due_at = GREATEST(p.due_at, {_NOW} + $2::float8),
        blocked_until = GREATEST(p.blocked_until, {_NOW} + $2::float8),
        factor = GREATEST($4::float8, {_factor("$3")} / 2),
        slowed_at = {_NOW}
"""
# Seconds a job's claim holds unless renewed: its holder renews it every `CLAIM_RENEWAL` while
# the job runs, however long it waits for a worker, so a process that died leaves its job to
# the others within a lease.
CLAIM_LEASE = 6.0
CLAIM_RENEWAL = CLAIM_LEASE / 3
# Claim the job named $1 for $2 seconds, as holder $3, unless a live claim holds it: a row
# back, or none.
_CLAIM_JOB = f"""
    INSERT INTO job_claims AS c (name, until, holder) VALUES ($1, {_NOW} + $2::float8, $3)
    ON CONFLICT (name) DO UPDATE SET until = EXCLUDED.until, holder = EXCLUDED.holder
    WHERE c.until < {_NOW}
    RETURNING 1
"""
# The claim on job $1 held for $2 seconds more, if holder $3 still has it.
_RENEW_CLAIM = f"UPDATE job_claims SET until = {_NOW} + $2::float8 WHERE name = $1 AND holder = $3"
# Budgets of chats quiet for $1 seconds: full again, their flood waits and slow pace over.
# Budgets untouched for $1 seconds, full again by then: the chats' paces and the throttles'
# buckets, in one statement (a CTE that deletes runs whether or not it is read).
_FORGET_BUDGETS = f"""
    WITH paces AS (
        DELETE FROM chat_pace
        WHERE GREATEST(due_at, blocked_until, slowed_at) < {_NOW} - $1::float8
    )
    DELETE FROM throttles WHERE spent_at < {_NOW} - $1::float8
"""
# A throttle's bucket for key (its rate and burst among `wanted`): its tokens now.
_THROTTLE_TOKENS = f"""(
    SELECT LEAST(w.burst, t.tokens + ({_NOW} - t.spent_at) * w.rate)
    FROM wanted AS w WHERE w.name = t.name AND w.key = t.key
)"""


def _spending_throttles(first: int, guard: str = "") -> str:
    """The CTEs `wanted` and `throttled` that spend one token of each throttle bucket asked
    (`$first` names, then keys, rates, bursts), in one statement, so processes spending at
    once queue on the rows. A bucket with none left is not written; a new bucket starts
    full. `guard`: a condition for spending any."""
    names, keys, rates, bursts = (f"${first + i}" for i in range(4))
    return f"""wanted (name, key, rate, burst) AS (
        SELECT * FROM unnest({names}::text[], {keys}::bigint[], {rates}::float8[],
            {bursts}::float8[])
        {guard}
    ), throttled AS (
        INSERT INTO throttles AS t (name, key, tokens, spent_at)
        SELECT name, key, burst - 1, {_NOW} FROM wanted
        ON CONFLICT (name, key) DO UPDATE SET
            tokens = {_THROTTLE_TOKENS} - 1, spent_at = {_NOW}
        WHERE {_THROTTLE_TOKENS} >= 1
        RETURNING 1
    )"""


def _all_spent(first: int) -> str:
    """Whether every bucket asked from `$first` on had its token."""
    return f"((SELECT count(*) FROM throttled) = cardinality(${first}::text[]))"


# Player $1's taps left: a token bucket of $3 refilled at $2 a second, kept in their row.
_TAP_TOKENS = f"LEAST($3::float8, p.tap_tokens + ({_NOW} - p.tapped_at) * $2::float8)"
# Spend one of them and read the player: one statement, so taps spent at once in several
# processes queue on the row and each sees the others' spending. With none left, nothing is
# written and no row comes back; a player without a row gets one, full but for this tap.
# With it come what the tap's bookkeeping reads anyway: group $4's language and game $5;
# and the throttle buckets the tap spends beside its own ($6 to $9, a hint's), spent only
# with the tap, and whether each had its token.
_SPEND_TAP = f"""
    WITH spent AS (
        INSERT INTO players AS p (user_id, tap_tokens, tapped_at)
        VALUES ($1, $3::float8 - 1, {_NOW})
        ON CONFLICT (user_id) DO UPDATE SET tap_tokens = {_TAP_TOKENS} - 1, tapped_at = {_NOW}
        WHERE {_TAP_TOKENS} >= 1
        RETURNING p.name, p.language, p.view, p.telegram_language
    ), {_spending_throttles(6, "WHERE EXISTS (SELECT 1 FROM spent)")}
    SELECT spent.*, {_all_spent(6)}, (SELECT language FROM chats WHERE chat_id = $4::bigint),
        {", ".join(f"g.{column}" for column in GAME_COLUMNS.split(", "))}
    FROM spent CROSS JOIN {_NOT_WAITING_FOR_DISK} LEFT JOIN games AS g ON g.id = $5::bigint
"""
_SPEND_THROTTLES = (
    f"WITH {_spending_throttles(1)} SELECT {_all_spent(1)} FROM {_NOT_WAITING_FOR_DISK}"
)
# The same, and what a message's bookkeeping reads anyway: player $5 and group $6's
# language (`player_seen`), so sharing the budget costs a message no round trip of its own.
_SPEND_MESSAGE = f"""WITH {_spending_throttles(1)}
    SELECT {_all_spent(1)}, p.name, p.language, p.view, p.telegram_language,
        (SELECT language FROM chats WHERE chat_id = $6::bigint)
    FROM {_NOT_WAITING_FOR_DISK} LEFT JOIN players AS p ON p.user_id = $5::bigint
"""

# The transaction the running task is inside, if any: (storage, connection, task). Tasks
# started inside inherit the variable; the task check keeps them off the connection.
_BOUND: ContextVar[tuple[PostgresStorage, asyncpg.Connection, asyncio.Task[Any] | None] | None] = (
    ContextVar("bot2048_postgres_transaction", default=None)
)


@lru_cache(maxsize=256)
def _numbered(sql: str, arguments: int) -> str:
    """`?` placeholders as PostgreSQL's `$1, $2, ...`.

    Every `?` is taken for a placeholder, so the queries must hold no other (in a string, or
    a jsonb operator): one would show up here as more `?` than arguments.
    """
    assert sql.count("?") == arguments, f"{arguments} arguments for {sql.count('?')} `?`: {sql}"
    counter = iter(range(1, arguments + 1))
    return re.sub(r"\?", lambda _: f"${next(counter)}", sql)


def _rowcount(status: str) -> int:
    """The row count at the end of a command tag: "UPDATE 1", "INSERT 0 1", "DELETE 0"."""
    last = status.rsplit(" ", 1)[-1]
    return int(last) if last.isdigit() else 0


def describe_url(url: str) -> str:
    """A database URL fit for a log line: host, port and database, never the password."""
    parts = urllib.parse.urlsplit(url)
    where = parts.hostname or "local socket"
    if parts.port:
        where += f":{parts.port}"
    return f"PostgreSQL {where}{parts.path or '/'}"


async def _back_to_pool(connection: asyncpg.Connection) -> None:
    """A connection returned to the pool: only a transaction left open is rolled back.

    The bot keeps nothing in a session (no LISTEN, no SET, advisory locks for a
    transaction's length only), and asyncpg's own reset would cost every statement a second
    round trip: at 200 ms to the database, a fifth of a second more per query.
    """
    if connection.is_in_transaction():
        await connection.execute("ROLLBACK")


def _server_settings(wait: float) -> dict[str, str]:
    """The session's bounds on the server's side: no statement, lock wait or transaction
    left idle outlasts `wait`, and the server probes an idle client as the client does it."""
    milliseconds = str(round(wait * 1000))
    return {
        "statement_timeout": milliseconds,
        "idle_in_transaction_session_timeout": milliseconds,
        "tcp_keepalives_idle": str(KEEPALIVE_IDLE),
        "tcp_keepalives_interval": str(KEEPALIVE_INTERVAL),
        "tcp_keepalives_count": str(KEEPALIVE_PROBES),
    }


def _closed(connection: asyncpg.Connection) -> bool:
    """Whether a pooled connection is closed. asyncpg gives a pooled connection back to its
    pool the moment it closes, and its proxy then refuses every call, this one included."""
    try:
        return connection.is_closed()
    except asyncpg.InterfaceError:
        return True


def _terminate(connection: asyncpg.Connection) -> None:
    """Close a pooled connection at once, unless it is closed already (a statement cut off
    closes it, then the transaction it was in unwinds through the same connection)."""
    if not _closed(connection):
        connection.terminate()


async def _keep_alive(connection: asyncpg.Connection) -> None:
    """The client's keepalives on a new connection's socket (none on a Unix socket)."""
    sock = connection._transport.get_extra_info("socket")  # asyncpg offers no option for it
    if sock is None or sock.family == socket.AF_UNIX:
        return
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPIDLE, KEEPALIVE_IDLE)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPINTVL, KEEPALIVE_INTERVAL)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPCNT, KEEPALIVE_PROBES)


async def _reach_server(pool: asyncpg.Pool, url: str) -> None:
    """Open the pool's first connection, or say in one line that the server did not answer."""
    try:
        connection = await pool.acquire(timeout=CONNECT_TIMEOUT)
    except TimeoutError as error:
        raise cannot_open(url, error) from None
    await pool.release(connection)


async def _migrated(url: str) -> None:
    """The schema brought up to date on a connection of its own, without the pool's bounds:
    a migration that rebuilds a large table takes what it takes."""
    pool = await asyncpg.create_pool(url, min_size=0, max_size=1, timeout=CONNECT_TIMEOUT)
    try:
        await _reach_server(pool, url)
        await PostgresStorage(pool, url, wait=CONNECT_TIMEOUT)._migrate()
    finally:
        await pool.close()


class PostgresStorage(Storage):
    shared = True
    _dialect = POSTGRES
    _LEAST = "LEAST"
    _GREATEST = "GREATEST"

    def __init__(self, pool: asyncpg.Pool, url: str, wait: float = DEFAULT_WAIT) -> None:
        self._pool = pool
        self._url = url
        self._wait = wait
        self._reachable = True  # as far as the last query knows

    @classmethod
    async def connect(
        cls, url: str, *, pool_size: int | None = None, wait: float | None = None
    ) -> PostgresStorage:
        wait = DEFAULT_WAIT if wait is None else wait
        await _migrated(url)
        # No floor of open connections: asyncpg would keep reopening it all through an outage,
        # logging a traceback each time. Connections open on demand (CONNECT_TIMEOUT each).
        pool = await asyncpg.create_pool(
            url,
            min_size=0,
            max_size=pool_size or DEFAULT_POOL_SIZE,
            timeout=CONNECT_TIMEOUT,
            command_timeout=wait + ANSWER_MARGIN,
            server_settings=_server_settings(wait),
            init=_keep_alive,
            reset=_back_to_pool,
        )
        return cls(pool, url, wait)

    def __repr__(self) -> str:
        return describe_url(self._url)

    # ----- reaching the server ----------------------------------------------------------------

    def _lost(self, reason: str) -> StorageUnavailable:
        """The error for a query the server could not be reached for; logs the outage once."""
        if self._reachable:
            self._reachable = False
            log.error("database %r is unavailable: %s", self, reason)
        return StorageUnavailable(f"database unavailable ({reason})")

    def _reached(self) -> None:
        if not self._reachable:
            self._reachable = True
            log.warning("database %r is back", self)

    @asynccontextmanager
    async def _pooled(self) -> AsyncIterator[asyncpg.Connection]:
        """A pooled connection, waited for at most `wait` seconds."""
        try:
            with DATABASE_WAIT.time():
                connection = await self._pool.acquire(timeout=self._wait)
        except TimeoutError:
            raise self._lost(
                f"no connection within {self._wait:g} s: the server does not answer, "
                f"or all {self._pool.get_max_size()} connections are busy"
            ) from None
        except _CONNECTION_LOST as error:
            raise self._lost(f"{error.__class__.__name__}: {error}") from error
        try:
            yield connection
        finally:
            await self._pool.release(connection)

    async def _on(self, connection: asyncpg.Connection, step: Awaitable[Any]) -> Any:
        """Await one step on `connection`, its failure to reach the server made
        `StorageUnavailable`: a lost connection, a statement the server cancelled at `wait`,
        an answer that never came (the connection closed, the pool's others renewed), or a
        connection the driver lost track of.
        A step cancelled closes the connection."""
        try:
            result = await step
        except asyncio.CancelledError:
            # Cut off (a job past its time, a stop): no cancel request to wait for, on a
            # connection that may be silent, and whatever it left open ends with it.
            _terminate(connection)
            raise
        except TimeoutError:
            _terminate(connection)
            await self._pool.expire_connections()
            raise self._lost(f"no answer within {self._wait + ANSWER_MARGIN:g} s") from None
        except (asyncpg.QueryCanceledError, asyncpg.IdleInTransactionSessionTimeoutError):
            raise self._lost(f"a statement took longer than {self._wait:g} s") from None
        except _CONNECTION_LOST as error:
            raise self._lost(f"{error.__class__.__name__}: {error}") from error
        except (asyncpg.InterfaceError, asyncpg.InternalClientError) as error:
            # The driver lost track of the connection (it closed under a statement being
            # cut off, say): it is closed, and the next statement gets a new one.
            _terminate(connection)
            raise self._lost(f"{error.__class__.__name__}: {error}") from error
        self._reached()
        return result

    async def _query(
        self, method: str, sql: str, params: Sequence[object], *, write: bool = False
    ) -> Any:
        """Run one statement by `method` (fetchrow, fetch, execute, fetchval): inside the
        task's transaction on its connection, else (reads only) on a pooled one."""
        connection = self._connection()
        if connection is None and write:
            raise TransactionError("storage writes run inside transaction()")
        statement = _numbered(sql, len(params))
        if connection is not None:
            return await self._on(connection, getattr(connection, method)(statement, *params))
        async with self._pooled() as pooled:
            return await self._on(pooled, getattr(pooled, method)(statement, *params))

    async def close(self) -> None:
        try:
            await asyncio.wait_for(self._pool.close(), timeout=10)
        except TimeoutError:
            self._pool.terminate()

    async def schema_version(self) -> int:
        # An empty database has no version table yet: `_write_version` creates it.
        (exists,) = await self._fetchrow("SELECT to_regclass('schema_version') IS NOT NULL")
        if not exists:
            return 0
        (version,) = await self._fetchrow("SELECT coalesce(max(version), 0) FROM schema_version")
        return version

    async def _write_version(self, version: int) -> None:
        await self._execute(
            "CREATE TABLE IF NOT EXISTS schema_version ("
            "version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())"
        )
        await self._execute("INSERT INTO schema_version (version) VALUES (?)", (version,))

    def _connection(self) -> asyncpg.Connection | None:
        bound = _BOUND.get()
        if bound is None or bound[0] is not self or bound[2] is not asyncio.current_task():
            return None
        return bound[1]

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[None]:
        if self._connection() is not None:
            raise TransactionError("storage transactions do not nest")
        async with self._pooled() as connection:
            transaction = connection.transaction()
            await self._on(connection, transaction.start())
            token = _BOUND.set((self, connection, asyncio.current_task()))
            try:
                yield
            except asyncio.CancelledError:
                _BOUND.reset(token)
                # No ROLLBACK to wait for, on a connection that may be silent: closed, it
                # ends its transaction on the server all the same.
                _terminate(connection)
                raise
            except BaseException:
                _BOUND.reset(token)
                # A connection closed on the way ends its transaction with it, on the server.
                if not _closed(connection):
                    with contextlib.suppress(StorageUnavailable):
                        await self._on(connection, transaction.rollback())
                raise
            _BOUND.reset(token)
            await self._on(connection, transaction.commit())

    def _for_update(self) -> str:
        return " FOR UPDATE" if self._connection() is not None else ""

    async def _execute_then(
        self,
        first: str,
        first_params: Sequence[object],
        then: str,
        then_params: Sequence[object],
        send: SendAsk | None = None,
    ) -> Row | None:
        """One statement, one round trip: `then` runs on what `first` changed, in its commit,
        and so does the reservation of the chat's next send."""
        if self._connection() is not None:
            raise TransactionError("a statement that commits on its own runs outside transaction()")
        guard = "WHERE EXISTS (SELECT 1 FROM done)"
        params = (*first_params, *then_params)
        written = _numbered(
            f"WITH done AS ({first} RETURNING 1), after AS ({then.format(guard=guard)})",
            len(params),
        )
        reserved, joined = "NULL::float8, NULL::float8", ""
        if send is not None:
            written += f", pace AS ({_reserving(len(params) + 1, guard)})"
            reserved, joined = "pace.*", " CROSS JOIN pace"
            params = (*params, send.chat_id, send.interval, send.burst, send.recovery)
        # No row when `first` changed none: `then` and the reservation are guarded by it.
        select = f"{written} SELECT after.*, {reserved} FROM after{joined}"
        async with self._pooled() as connection:
            row = await self._on(connection, connection.fetchrow(select, *params))
        return None if row is None else tuple(row)

    async def _write_then_read(
        self,
        write: str,
        write_params: Sequence[object],
        read: str,
        read_params: Sequence[object],
    ) -> Row:
        """One statement, one round trip: `write` as a data-modifying WITH, then `read`."""
        if self._connection() is not None:
            raise TransactionError("a statement that commits on its own runs outside transaction()")
        row = await self._query(
            "fetchrow", f"WITH written AS ({write}) {read}", (*write_params, *read_params)
        )
        return tuple(row)

    async def _serialize(self, key: str) -> None:
        connection = self._connection()
        if connection is not None:
            await connection.execute(
                "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", _LOCK_PREFIX + key
            )

    # ----- the chats' pace, shared by every process ---------------------------------------------

    async def _statement(self, sql: str, *params: object) -> asyncpg.Record | None:
        """One statement on a pooled connection, committed on its own."""
        async with self._pooled() as connection:
            return await self._on(connection, connection.fetchrow(sql, *params))

    async def reserve_send(
        self, chat_id: int, interval: float, burst: float, recovery: float
    ) -> tuple[float, float]:
        """Spend the chat's next send: seconds until it may go, and until its flood wait ends.

        Either may be zero or less (go now). The send is spent whatever the wait: the caller
        sends at its time, and the next caller, in any process, is given the time after it.
        """
        row = await self._statement(_RESERVE_SEND, chat_id, interval, burst, recovery)
        assert row is not None
        wait, held = row
        return wait, held

    async def hold_back(
        self, chat_id: int, seconds: float, recovery: float, slowest: float
    ) -> None:
        """Telegram answered 429 in the chat: record its flood wait and the slower pace."""
        await self._statement(_HOLD_BACK, chat_id, seconds, recovery, slowest)

    async def forget_budgets(self, idle: float) -> None:
        """Drop the paces of chats that sent nothing, and the throttles' buckets nobody
        spent, for `idle` seconds (longer than a slowed pace takes to recover and a bucket
        to fill): they are full again, as if never used, and the tables keep only the
        budgets in use."""
        await self._statement(_FORGET_BUDGETS, idle)

    async def spend_tap(
        self,
        user_id: int,
        rate: float,
        burst: float,
        group_id: int | None,
        game_id: int | None,
        buckets: Sequence[tuple[str, int, float, float]] = (),
    ) -> tuple[Player, str | None, StoredGame | None, bool] | None:
        """Spend one of the player's taps, kept for every process in their row, and read
        what the tap's bookkeeping reads: the player, group `group_id`'s language and game
        `game_id`. The budget costs no round trip of its own, nor do the throttle `buckets`
        the tap spends beside it (`spend_throttles`): whether each had its token comes
        last. None, and nothing written, when the player has no tap left."""
        names, keys, rates, bursts = (
            [list(column) for column in zip(*buckets, strict=True)] if buckets else ([],) * 4
        )
        row = await self._statement(
            _SPEND_TAP, user_id, rate, burst, group_id, game_id, names, keys, rates, bursts
        )
        if row is None:
            return None
        game = None if row[6] is None else game_from_row(tuple(row[6:]))
        return player_from_row(user_id, tuple(row[:4])), row[5], game, bool(row[4])

    async def spend_throttles(self, buckets: Sequence[tuple[str, int, float, float]]) -> bool:
        """Spend one token of each (throttle, user or group, rate, burst) bucket, kept for
        every process in `throttles`, in one statement: whether every one had it."""
        names, keys, rates, bursts = (list(column) for column in zip(*buckets, strict=True))
        row = await self._statement(_SPEND_THROTTLES, names, keys, rates, bursts)
        assert row is not None
        return bool(row[0])

    async def spend_message(
        self, user_id: int, group_id: int | None, buckets: Sequence[tuple[str, int, float, float]]
    ) -> tuple[Player, str | None] | None:
        """Spend one token of each throttle bucket (`spend_throttles`) and read what a
        message's bookkeeping reads: the player and group `group_id`'s language. None when
        a bucket had none left."""
        names, keys, rates, bursts = (list(column) for column in zip(*buckets, strict=True))
        row = await self._statement(_SPEND_MESSAGE, names, keys, rates, bursts, user_id, group_id)
        assert row is not None
        if not row[0]:
            return None
        return player_from_row(user_id, tuple(row[1:5])), row[5]

    @asynccontextmanager
    async def exclusive(self, name: str) -> AsyncIterator[bool]:
        """A claim row, taken if free (or left by a process that died), renewed while the
        block runs and deleted after it: no connection is held meanwhile, however long the
        job waits for a worker. Each claim has a holder of its own, so a claim that lapsed
        (its renewals lost with the database) and went to another process stays theirs."""
        holder = uuid.uuid4().hex
        claimed = await self._statement(_CLAIM_JOB, name, CLAIM_LEASE, holder)
        if claimed is None:
            yield False
            return
        renewing = asyncio.create_task(self._renew_claim(name, holder))
        try:
            yield True
        finally:
            renewing.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await renewing
            with contextlib.suppress(StorageUnavailable):  # the lease ends it all the same
                await self._statement(
                    "DELETE FROM job_claims WHERE name = $1 AND holder = $2", name, holder
                )

    async def _renew_claim(self, name: str, holder: str) -> None:
        while True:
            await asyncio.sleep(CLAIM_RENEWAL)
            with contextlib.suppress(StorageUnavailable):  # the next renewal may get through
                await self._statement(_RENEW_CLAIM, name, CLAIM_LEASE, holder)

    async def _fetchrow(self, sql: str, params: Sequence[object] = ()) -> Row | None:
        row = await self._query("fetchrow", sql, params)
        return None if row is None else tuple(row)

    async def _fetchall(self, sql: str, params: Sequence[object] = ()) -> list[Row]:
        return [tuple(row) for row in await self._query("fetch", sql, params)]

    async def _execute(self, sql: str, params: Sequence[object] = ()) -> int:
        return _rowcount(await self._query("execute", sql, params, write=True))

    async def _insert(self, sql: str, params: Sequence[object] = ()) -> int:
        return await self._query("fetchval", sql + " RETURNING id", params, write=True)


def cannot_open(url: str, error: BaseException) -> StorageUnavailable:
    """A connection the server refused or never answered, in one line without the password:
    what went wrong, and which part of DATABASE_URL to look at. A server that is not there
    or never answers points at the host and port; one that answered and refused points at the
    user, password, database and TLS settings."""
    network = "check the host and port in DATABASE_URL, and that the server is running"
    if isinstance(error, TimeoutError):
        reason, fix = f"the server did not answer within {CONNECT_TIMEOUT:g} s", network
    elif isinstance(error, OSError) and error.errno:  # the network's: nobody at that address
        reason, fix = system_reason(error), network
    else:  # the server's or the driver's refusal: a role, a password, a database, TLS
        reason = f"{error.__class__.__name__}: {error}"
        fix = "check the user, password, database and sslmode in DATABASE_URL"
    return StorageUnavailable(f"cannot open the database ({describe_url(url)}): {reason}; {fix}")


# Whatever stops a connection from being opened: the network, the server's refusal (a role,
# a password, a database), the client's TLS settings.
_CANNOT_CONNECT = (OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError)


# The session a connection is: its server process and when it started.
_SESSION = "SELECT pid, backend_start FROM pg_stat_activity WHERE pid = pg_backend_pid()"
# End the session $1 that started at $2, if it is still there. CASE decides the order: the
# session is found first, and no other is ever ended.
_END_SESSION = """
    SELECT CASE WHEN EXISTS (
        SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND backend_start = $2
    ) THEN pg_terminate_backend($1) ELSE false END
"""


class LockTaken(StorageUnavailable):
    """Another process of the bot holds the updates lock in a way that excludes this one."""


class UpdatesLock:
    """Who takes a bot's updates from one database: one polling process, or webhooks only.

    Telegram hands each update to one getUpdates caller and answers a second one 409, so two
    polling processes would fight over every update; a polling process beside webhook
    processes would find no updates at all (a webhook set for the bot turns getUpdates off),
    and remove the webhook as it starts. A polling process holds the bot's advisory lock
    exclusively, webhook processes hold it shared, each on a connection of its own for as
    long as it runs: PostgreSQL drops the lock with the connection, however the process
    ends, as the kernel does the SQLite lock file's.

    The server drops it too when it restarts, or when the connection breaks, so the
    connection is watched (`WATCH_EVERY`, and at once when it closes) and the lock taken
    again as soon as the server answers, tried every `RETAKE_EVERY` seconds. A connection
    that went silent may leave its session, and the lock, on the server for a while: that
    session, this process's own, is ended first. A process that finds the lock taken by
    another meanwhile sets `lost`, and its run ends with `reason`.
    """

    # Seconds between two looks at the lock's connection; a look waits `wait` at most.
    WATCH_EVERY = 1.0
    RETAKE_EVERY = 0.5

    def __init__(self, url: str, bot_id: int, *, polling: bool, wait: float = DEFAULT_WAIT) -> None:
        self._url = url
        self._key = f"{_LOCK_PREFIX}updates:{bot_id}"
        self._polling = polling
        self._wait = wait
        self._connection: asyncpg.Connection | None = None
        self._session: asyncpg.Record | None = None  # the lock's session: pid, start
        self._closed = asyncio.Event()
        self._watch: asyncio.Task[None] | None = None
        self.lost = asyncio.Event()
        self.reason = ""

    async def acquire(self) -> None:
        """Take the lock now, or refuse at once with the reason, in one line; then watch it."""
        self._connection = await self._take()
        self._watch = asyncio.create_task(self._watching(), name="updates-lock")

    async def _take(self) -> asyncpg.Connection:
        try:
            connection = await asyncpg.connect(self._url, timeout=CONNECT_TIMEOUT)
        except _CANNOT_CONNECT as error:
            raise cannot_open(self._url, error) from None
        kind = "" if self._polling else "_shared"
        try:
            got = await connection.fetchval(
                f"SELECT pg_try_advisory_lock{kind}({_SCHEMA_KEY})", self._key, timeout=self._wait
            )
            session = await connection.fetchrow(_SESSION, timeout=self._wait)
        except _CANNOT_CONNECT as error:
            connection.terminate()
            raise cannot_open(self._url, error) from None
        if not got:
            connection.terminate()
            if self._polling:
                raise LockTaken(
                    f"another process of this bot already takes its updates from "
                    f"{describe_url(self._url)}: stop it first, or run every process in "
                    "webhook mode (one polling process per bot, or webhook processes only)"
                )
            raise LockTaken(
                f"a polling process of this bot is running on {describe_url(self._url)}: "
                "stop it before starting webhook processes"
            )
        self._session = session
        self._closed.clear()
        connection.add_termination_listener(lambda _: self._closed.set())
        return connection

    async def _end_lost_session(self) -> bool:
        """End the session this process held the lock on, if the server still keeps it (its
        client's packets vanished, and the server has not found out yet); whether it did.
        The session is told by its pid and its start, since a restarted server reuses pids."""
        if self._session is None:
            return False
        pid, started = self._session
        try:
            connection = await asyncpg.connect(self._url, timeout=CONNECT_TIMEOUT)
        except _CANNOT_CONNECT:
            return False
        try:
            ended = await connection.fetchval(_END_SESSION, pid, started, timeout=self._wait)
        except _CANNOT_CONNECT:
            return False
        finally:
            connection.terminate()
        self._session = None
        return bool(ended)

    async def _alive(self, connection: asyncpg.Connection) -> bool:
        """Whether the connection, and so the lock, is still there: closed, or silent for
        `wait` seconds, it is not."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._closed.wait(), self.WATCH_EVERY)
        if connection.is_closed():
            return False
        try:
            await connection.fetchval("SELECT 1", timeout=self._wait)
        except _CANNOT_CONNECT:
            return False
        return True

    async def _watching(self) -> None:
        while True:
            connection = self._connection
            assert connection is not None
            if await self._alive(connection):
                continue
            connection.terminate()
            log.warning("the updates lock on %s was lost; taking it again", describe_url(self._url))
            self._connection = await self._retaken()
            if self._connection is None:
                return
            log.warning("the updates lock on %s is held again", describe_url(self._url))

    async def _retaken(self) -> asyncpg.Connection | None:
        """The lock again, once the server answers; None, with `lost` set, if another process
        has taken it meanwhile."""
        while True:
            try:
                return await self._take()
            except LockTaken as error:
                if await self._end_lost_session():
                    await asyncio.sleep(self.RETAKE_EVERY)
                    continue
                self.reason = f"lost the updates lock: {error}"
                self.lost.set()
                return None
            except StorageUnavailable:
                await asyncio.sleep(self.RETAKE_EVERY)

    async def release(self) -> None:
        if self._watch is not None:
            self._watch.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._watch
            self._watch = None
        if self._connection is not None:
            connection, self._connection = self._connection, None
            # The lock goes with the session, but the server ends a session a moment after
            # its socket closes: a process started right after this one (a restart) would
            # find the lock still held. Let it go first, waiting a second at most for a
            # server that may not answer; closing the socket drops it in any case.
            with contextlib.suppress(*_CANNOT_CONNECT):
                await connection.execute("SELECT pg_advisory_unlock_all()", timeout=1.0)
            connection.terminate()
