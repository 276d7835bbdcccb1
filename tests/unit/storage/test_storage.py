"""Storage and the game service on both backends: what survives, what is counted, and what
stays consistent when several processes (several storages on one PostgreSQL) write at once."""

from __future__ import annotations

import asyncio
import re
import sqlite3
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import asyncpg
import pytest

import engine
from bot.codecs import challenge_payload
from bot.models import NewChallenge
from bot.outcomes import TapStatus
from bot.services.challenges import ChallengeService, JoinStatus
from bot.services.games import GameService
from bot.services.locks import ChatLocks
from bot.storage import SCHEMA_VERSION, Storage, StorageUnavailable, open_storage
from bot.storage import postgres as postgres_storage
from bot.storage.schema import SQLITE, migrations
from tests.support.databases import (
    FIRST_RELEASE_SQL,
    count_rows,
    disown_actions,
    execute_sql,
)
from tests.support.processes import ROOT


class Clock:
    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        self.now += 2.0
        return self.now


def service(storage: Storage, seed: int = 7) -> GameService:
    return GameService(storage, ChatLocks(storage), clock=Clock(), new_seed=lambda: seed)


async def _valid_move(svc: GameService, chat: int, game_id: int) -> str:
    for direction in engine.DIRECTIONS:
        result = await svc.tap(chat, chat, game_id, direction)
        if result.changed:
            return direction
    raise AssertionError("no valid move")


async def test_every_action_that_changes_a_game_is_logged_with_it(storage):
    svc = service(storage)
    stored = await svc.start(10, 10, 5)
    letters = ""
    for action in ("left", "up", "right", "down", "undo", "undo", "keep", "left", "left"):
        result = await svc.tap(10, 10, stored.id, action)
        if result.changed:
            letters += engine.ACTION_CODES[action]
    saved = await storage.game(stored.id)
    assert "z" in letters and "k" not in letters  # refused actions leave no letter
    assert saved.actions == letters
    assert engine.replay(5, saved.game.seed, letters).board == saved.game.board


async def test_sqlite_schema_is_migrated_and_wal_is_on(tmp_path):
    path = tmp_path / "bot.sqlite3"
    store = await open_storage(path)
    assert await store.schema_version() == SCHEMA_VERSION
    await store.close()
    with sqlite3.connect(path) as raw:
        assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert raw.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


# What an operator reads who started an older release on a newer release's database.
NEWER_SCHEMA = (
    f"database schema {SCHEMA_VERSION + 1} is newer than this bot2048 (schema {SCHEMA_VERSION}): "
    "upgrade bot2048 to the release that wrote it"
)


async def test_a_newer_sqlite_schema_is_refused(tmp_path):
    path = tmp_path / "bot.sqlite3"
    with sqlite3.connect(path) as raw:
        raw.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(StorageUnavailable) as refused:
        await open_storage(path)
    assert str(refused.value) == NEWER_SCHEMA


async def test_a_read_never_sees_a_change_that_is_rolled_back(storage):
    """A board redrawn from an uncommitted move would show a state that was never saved."""
    svc = service(storage)
    stored = await svc.start(10, 10, 4)
    moved = engine.play(stored.game, await _valid_move(svc, 10, stored.id), 0.0).game
    saved = await storage.game(stored.id)

    class Crash(Exception):
        pass

    with pytest.raises(Crash):
        async with storage.transaction():
            await storage.update_game(
                saved, moved, 0.0, played_counted=saved.played_counted, action="left"
            )
            reader = asyncio.create_task(storage.game(stored.id))
            await asyncio.sleep(0.05)  # the reader's turn, while the change is not committed
            raise Crash
    assert (await reader).game == saved.game


async def test_a_transaction_cancelled_while_it_begins_leaves_none_open(storage):
    """A job cut off at its time limit can be cancelled while its BEGIN is still on its way;
    the next writer (a player's tap) must still get a transaction of its own, and nothing
    of the cancelled one may be kept."""
    svc = service(storage)
    stored = await svc.start(10, 10, 4)

    async def cut_off_job() -> None:
        async with storage.transaction():
            await storage.update_game(
                stored, stored.game, 0.0, played_counted=stored.played_counted, action="left"
            )

    for _ in range(20):  # a cancel lands early or late in BEGIN's trip: try both often
        job = asyncio.create_task(cut_off_job())
        await asyncio.sleep(0)  # the job has asked for BEGIN and waits for its answer
        job.cancel()
        with pytest.raises(asyncio.CancelledError):
            await job
    await _valid_move(svc, 10, stored.id)  # a tap after them is applied
    assert len((await storage.game(stored.id)).actions) == 1  # and it alone is in the log


async def test_a_move_whose_records_fail_is_not_saved_and_the_next_one_is(storage):
    """A move and the player's records are saved together or not at all: a records
    statement that fails leaves the game as it was, and the storage goes on saving."""
    svc = service(storage)
    stored = await svc.start(10, 10, 4)
    broken = "INSERT INTO records (user_id, size) SELECT ?, 4 {guard} RETURNING no_such_column"
    with pytest.raises(Exception, match="no_such_column"):
        await storage._execute_then(
            "UPDATE games SET moves = 99 WHERE id = ?", (stored.id,), broken, (10,)
        )
    assert (await storage.game(stored.id)).game == stored.game
    assert await storage.records(10) == {}
    await _valid_move(svc, 10, stored.id)
    assert (await storage.game(stored.id)).game.moves == 1
    assert (await storage.records(10))[4].games_played == 1


async def test_games_survive_reopening_the_database(database):
    store = await open_storage(database)
    svc = service(store)
    stored = await svc.start(10, 10, 5)
    await _valid_move(svc, 10, stored.id)
    await _valid_move(svc, 10, stored.id)
    before = (await store.active_game(10, 10)).game
    await store.close()

    reopened = await open_storage(database)
    after = await reopened.active_game(10, 10)
    await reopened.close()
    assert after is not None and after.game == before and after.game.moves == 2


async def test_a_new_game_replaces_the_running_one_and_counts_it(storage):
    svc = service(storage)
    first = await svc.start(10, 10, 4)
    await _valid_move(svc, 10, first.id)
    second = await svc.start(10, 10, 4)
    assert (await storage.active_game(10, 10)).id == second.id
    assert (await svc.tap(10, 10, first.id, "left")).status is TapStatus.OLD_GAME
    records = await storage.records(10)
    assert records[4].games_played == 1  # the unplayed second game does not count yet


async def test_taps_on_other_players_and_unknown_games_change_nothing(storage):
    svc = service(storage)
    mine = await svc.start(-100, 1, 4)
    assert (await svc.tap(-100, 2, mine.id, "left")).status is TapStatus.NOT_YOURS
    assert (await svc.tap(-100, 1, mine.id + 99, "left")).status is TapStatus.UNKNOWN_GAME
    assert (await svc.tap(-200, 1, mine.id, "left")).status is TapStatus.UNKNOWN_GAME
    assert (await storage.game(mine.id)).game == mine.game


async def test_records_keep_best_score_highest_tile_and_one_win_per_game(storage):
    svc = service(storage)
    stored = await svc.start(10, 10, 4)
    one_merge_from_win = replace(
        stored.game, board=(1024, 1024, 0, 0, 2, 0, 0, 0) + (0,) * 8, score=19_000, moves=800
    )
    async with storage.transaction():
        await storage.update_game(
            stored, one_merge_from_win, 0.0, played_counted=False, action="left"
        )
        await disown_actions(storage, stored.id)
    won = await svc.tap(10, 10, stored.id, "left")
    assert won.outcome is engine.Outcome.WON
    await svc.tap(10, 10, stored.id, "undo")
    again = await svc.tap(10, 10, stored.id, "left")
    assert again.outcome is engine.Outcome.WON
    record = (await storage.records(10))[4]
    assert record.games_won == 1
    assert record.games_played == 1
    assert record.best_score == 19_000 + 2048
    assert record.highest_tile == 2048
    assert record.fewest_moves_to_win == 801
    assert record.fastest_win_seconds is not None


def test_the_first_step_is_the_first_releases_schema():
    """Released steps are never edited: databases out there were made by them."""
    lines = FIRST_RELEASE_SQL.read_text().splitlines()
    released = "\n".join(line for line in lines if not line.startswith("--")).split(";")
    assert [" ".join(s.split()) for s in migrations(SQLITE)[0]] == [
        " ".join(s.split()) for s in released if s.strip()
    ]


async def test_postgres_schema_is_migrated_once_by_processes_starting_together(postgres):
    stores = await asyncio.gather(*(open_storage(postgres) for _ in range(4)))
    try:
        assert [await s.schema_version() for s in stores] == [SCHEMA_VERSION] * 4
        connection = await asyncpg.connect(postgres)
        try:
            versions = await connection.fetch("SELECT version FROM schema_version ORDER BY 1")
        finally:
            await connection.close()
        assert [row[0] for row in versions] == list(range(1, SCHEMA_VERSION + 1))
    finally:
        for store in stores:
            await store.close()


async def test_a_newer_postgres_schema_is_refused(postgres):
    store = await open_storage(postgres)
    await store.close()
    connection = await asyncpg.connect(postgres)
    try:
        await connection.execute(
            "INSERT INTO schema_version (version) VALUES ($1)", SCHEMA_VERSION + 1
        )
    finally:
        await connection.close()
    with pytest.raises(StorageUnavailable) as refused:
        await open_storage(postgres)
    assert str(refused.value) == NEWER_SCHEMA


# What both databases must agree on, column by column: (name, type family, nullable,
# default, position in the primary key or 0, the column it references, numbered by the
# database); and index by index: (columns, unique, the partial index's condition).
TYPE_FAMILIES = {
    "INTEGER": "integer",
    "BIGINT": "integer",
    "TEXT": "text",
    "REAL": "real",
    "DOUBLE PRECISION": "real",
}


def _condition(where: str | None) -> str | None:
    """A partial index's condition without the parentheses PostgreSQL adds."""
    return None if where is None else " ".join(re.sub(r"[()]", " ", where).split())


def _sqlite_schema(path: Path) -> dict[str, object]:
    schema: dict[str, object] = {}
    with sqlite3.connect(path) as raw:
        tables = raw.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'table' "
            "AND name NOT LIKE 'sqlite_%' ORDER BY name"
        ).fetchall()
        for table, table_sql in tables:
            references = {
                row[3]: f"{row[2]}.{row[4]}"
                for row in raw.execute(f"PRAGMA foreign_key_list({table})")
            }
            columns = [
                (
                    name,
                    TYPE_FAMILIES[declared],
                    not notnull and not pk,  # a primary key column never holds NULL here
                    default,
                    pk,
                    references.get(name),
                    re.search(rf"\b{name} INTEGER PRIMARY KEY AUTOINCREMENT\b", table_sql)
                    is not None,
                )
                for _, name, declared, notnull, default, pk in raw.execute(
                    f"PRAGMA table_info({table})"
                )
            ]
            indexes = {}
            for _, index, unique, origin, partial in raw.execute(f"PRAGMA index_list({table})"):
                if origin == "pk":
                    continue
                (index_sql,) = raw.execute(
                    "SELECT sql FROM sqlite_master WHERE name = ?", (index,)
                ).fetchone()
                # Key columns only (seqno, cid, name, desc, coll, key), descending ones said.
                indexed = tuple(
                    row[2] + (" DESC" if row[3] else "")
                    for row in raw.execute(f"PRAGMA index_xinfo({index})")
                    if row[5]
                )
                where = index_sql.split(" WHERE ", 1)[1] if partial else None
                indexes[index] = (indexed, bool(unique), _condition(where))
            schema[table] = (columns, indexes)
    return schema


async def _postgres_schema(url: str) -> dict[str, object]:
    connection = await asyncpg.connect(url)
    try:
        keys = {
            (row[0], row[1]): row[2]
            for row in await connection.fetch(
                """SELECT kcu.table_name, kcu.column_name, kcu.ordinal_position
                   FROM information_schema.table_constraints tc
                   JOIN information_schema.key_column_usage kcu
                     USING (constraint_schema, constraint_name)
                   WHERE tc.constraint_type = 'PRIMARY KEY'
                     AND tc.table_schema = current_schema()"""
            )
        }
        references = {
            (row[0], row[1]): f"{row[2]}.{row[3]}"
            for row in await connection.fetch(
                """SELECT kcu.table_name, kcu.column_name, ccu.table_name, ccu.column_name
                   FROM information_schema.table_constraints tc
                   JOIN information_schema.key_column_usage kcu
                     USING (constraint_schema, constraint_name)
                   JOIN information_schema.constraint_column_usage ccu
                     USING (constraint_schema, constraint_name)
                   WHERE tc.constraint_type = 'FOREIGN KEY'
                     AND tc.table_schema = current_schema()"""
            )
        }
        schema: dict[str, object] = {}
        for row in await connection.fetch(
            """SELECT table_name, column_name, data_type, is_nullable, column_default,
                      is_identity
               FROM information_schema.columns
               WHERE table_schema = current_schema() AND table_name != 'schema_version'
               ORDER BY table_name, ordinal_position"""
        ):
            table, name, data_type, nullable, default, identity = row
            columns, _ = schema.setdefault(table, ([], {}))
            columns.append(
                (
                    name,
                    TYPE_FAMILIES[data_type.upper()],
                    nullable == "YES",
                    None if default is None else re.sub(r"::[a-z ]+$", "", default),
                    keys.get((table, name), 0),
                    references.get((table, name)),
                    identity == "YES",
                )
            )
        for table, index, definition in await connection.fetch(
            """SELECT tablename, indexname, indexdef FROM pg_indexes
               WHERE schemaname = current_schema() AND indexname NOT IN (
                   SELECT constraint_name FROM information_schema.table_constraints
                   WHERE table_schema = current_schema() AND constraint_type = 'PRIMARY KEY')"""
        ):
            parts = re.fullmatch(
                r"CREATE (UNIQUE )?INDEX \S+ ON \S+ USING btree \(([^)]*)\)(?: WHERE (.*))?",
                definition,
            )
            assert parts is not None, definition
            unique, indexed, where = parts.groups()
            schema[table][1][index] = (
                tuple(indexed.split(", ")),
                unique is not None,
                _condition(where),
            )
        return schema
    finally:
        await connection.close()


async def test_both_backends_migrate_to_the_same_schema(tmp_path, postgres):
    """The steps are written once, but each database reads them in its dialect: compare."""
    store = await open_storage(tmp_path / "bot.sqlite3")
    await store.close()
    store = await open_storage(postgres)
    await store.close()

    in_sqlite = _sqlite_schema(tmp_path / "bot.sqlite3")
    in_postgres = await _postgres_schema(postgres)
    tables = [
        "challenges",
        "chat_pace",
        "chats",
        "dailies",
        "deliveries",
        "games",
        "group_dailies",
        "job_claims",
        "outbox",
        "players",
        "records",
        "shared_files",
        "throttles",
    ]
    assert sorted(in_sqlite) == tables
    for table in in_sqlite:
        assert in_postgres[table] == in_sqlite[table], table
    assert in_postgres == in_sqlite
    games_columns, games_indexes = in_sqlite["games"]
    assert games_indexes["games_one_entry"] == (
        ("challenge_id", "owner_id"),
        True,
        "challenge_id IS NOT NULL",
    )
    assert ("id", "integer", False, None, 1, None, True) in games_columns


@pytest.mark.parametrize("module", ["bot.presentation.render", "bot.storage"])
def test_importing_loads_no_database_driver(module):
    """A driver is loaded when a database of its kind is opened, not by what merely names
    storage: rendering a board or type-checking a service pulls in neither."""
    code = (
        f"import sys, {module}; "
        "print(sorted(m for m in ('aiosqlite', 'asyncpg') if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]"


async def test_64_bit_ids_and_seeds_round_trip(storage):
    big_user, big_chat = 2**62 + 5, -(10**15) - 7
    games = GameService(storage, ChatLocks(storage), new_seed=lambda: 2**64 - 1)
    stored = await games.start(big_chat, big_user, 4)
    assert (await storage.active_game(big_chat, big_user)).game.seed == 2**64 - 1
    await games.link_message(stored, 2**40)
    assert (await storage.game(stored.id)).message_id == 2**40
    async with storage.transaction():
        challenge = await storage.insert_challenge(
            NewChallenge(big_chat, "Big", "en", big_user, 4, 2**63 - 1, "abcdefgh", 100.25), 1.5
        )
    assert (challenge.seed, challenge.creator_id, challenge.ends_at) == (
        2**63 - 1,
        big_user,
        100.25,
    )


DIRECTION = {"l": "left", "u": "up", "r": "right", "d": "down"}


async def test_racing_taps_from_two_processes_never_lose_or_double_apply_a_move(database):
    """Two storages on one database, as two bot processes have, tap the same games at once."""
    first, second = await open_storage(database), await open_storage(database)
    try:
        services = [
            GameService(first, ChatLocks(first), new_seed=lambda: 99),
            GameService(second, ChatLocks(second)),
        ]
        codes = "lurdllurrdul" * 3
        games = [await services[0].start(chat, chat, 4) for chat in (21, 22, 23)]
        taps = [
            (
                stored,
                DIRECTION[code],
                services[i % 2].tap(stored.chat_id, stored.chat_id, stored.id, DIRECTION[code]),
            )
            for stored in games
            for i, code in enumerate(codes)
        ]
        results = await asyncio.gather(*(tap for _, _, tap in taps))
        for stored in games:
            applied = sorted(
                (
                    (result.stored.game, direction)
                    for (game, direction, _), result in zip(taps, results, strict=True)
                    if game.id == stored.id and result.changed
                ),
                key=lambda pair: pair[0].moves,
            )
            # Serialised taps form one chain: each applied to the state the previous one left.
            assert [game.moves for game, _ in applied] == list(range(1, len(applied) + 1))
            state = stored.game
            for after, direction in applied:
                assert engine.play(state, direction, 0.0).game.board == after.board
                state = after
            saved = await first.game(stored.id)
            assert saved.game.board == state.board and saved.game.moves == state.moves
        records = (await second.records(21))[4]
        assert records.games_played == 1
    finally:
        await first.close()
        await second.close()


async def test_a_challenge_finishes_once_and_a_join_enters_once_across_processes(database):
    first, second = await open_storage(database), await open_storage(database)
    try:
        async with first.transaction():
            challenge = await first.insert_challenge(
                NewChallenge(-9, "Club", "en", 1, 4, 1234, "abcdefgh", 1e12), 1_000.0
            )
        link = challenge_payload(challenge)
        stores = (first, second, first, second)
        joins = await asyncio.gather(
            *(ChallengeService(store, ChatLocks(store)).join(link, 77) for store in stores)
        )
        assert sorted(j.status for j in joins).count(JoinStatus.JOINED) == 1
        assert {j.entry.id for j in joins} == {joins[0].entry.id}
        assert await first.challenge_players(challenge.id) == 1
        starts = await asyncio.gather(
            *(GameService(store, ChatLocks(store)).start(-9, 77, 4) for store in stores)
        )
        assert len({s.id for s in starts}) == 4
        assert (await second.active_game(-9, 77)).id in {s.id for s in starts}
        finished = await asyncio.gather(
            *(ChallengeService(store, ChatLocks(store)).finish(challenge) for store in stores)
        )
        assert sum(f is not None for f in finished) == 1
        assert (await second.challenge_entry(challenge.id, 77)).active is False
    finally:
        await first.close()
        await second.close()


async def test_a_job_claim_is_one_at_a_time_and_outlives_a_dead_process_briefly(postgres):
    first, second = await open_storage(postgres), await open_storage(postgres)
    try:
        async with first.exclusive("job:7") as mine:
            assert mine
            async with second.exclusive("job:7") as theirs:
                assert not theirs
            async with second.exclusive("job:8") as other:
                assert other  # another player's job is no business of this one
        async with second.exclusive("job:7") as theirs:
            assert theirs  # released with the block
        # A process that died holding a claim: it is free once its lease has run out.
        await execute_sql(postgres, "INSERT INTO job_claims (name, until) VALUES ('job:9', ?)", 0)
        async with second.exclusive("job:9") as theirs:
            assert theirs
    finally:
        await first.close()
        await second.close()


async def claim_until(database: str, name: str) -> float | None:
    """When the claim on `name` runs out, on the database's clock (None: no claim)."""
    connection = await asyncpg.connect(database)
    try:
        return await connection.fetchval("SELECT until FROM job_claims WHERE name = $1", name)
    finally:
        await connection.close()


async def test_a_job_claim_is_renewed_while_held_and_a_dead_holders_lasts_ten_seconds_at_most(
    postgres, monkeypatch
):
    """A held claim's lease is renewed; one a dead process left runs out within 10 s; a
    lapsed claim another process took over stays theirs when the first holder's block ends."""
    monkeypatch.setattr(postgres_storage, "CLAIM_RENEWAL", 0.05)
    first, second = await open_storage(postgres), await open_storage(postgres)
    try:
        held = first.exclusive("job:7")
        assert await held.__aenter__()
        connection = await asyncpg.connect(postgres)
        try:  # what a process that dies now leaves behind: a lease of 10 s at most
            assert (
                0
                < await connection.fetchval(
                    "SELECT until - extract(epoch FROM clock_timestamp()) FROM job_claims"
                )
                <= 10
            )
        finally:
            await connection.close()
        claimed_until = await claim_until(postgres, "job:7")
        async with asyncio.timeout(30):
            while await claim_until(postgres, "job:7") == claimed_until:
                await asyncio.sleep(0.05)
        # Its renewals lost (the database away meanwhile), the lease ran out.
        monkeypatch.setattr(postgres_storage, "CLAIM_RENEWAL", 3600.0)
        await asyncio.sleep(0.5)  # the renewal under way, if any, done
        await execute_sql(postgres, "UPDATE job_claims SET until = 0 WHERE name = 'job:7'")
        async with second.exclusive("job:7") as theirs:
            assert theirs
            await held.__aexit__(None, None, None)  # the first holder's block ends
            async with first.exclusive("job:7") as again:
                assert not again  # still the second's
        assert await claim_until(postgres, "job:7") is None
    finally:
        await first.close()
        await second.close()


async def test_two_processes_reserving_sends_in_one_chat_share_one_budget(postgres):
    """The budget's statements, as two processes make them: one burst between them, then one
    send per interval, and a 429 one of them met holds the chat back for both."""
    first, second = await open_storage(postgres), await open_storage(postgres)
    try:
        waits = []
        for store in (first, second) * 4:  # interval 10 s, a burst of 3
            wait, held = await store.reserve_send(42, 10.0, 3.0, 300.0)
            waits.append(wait)
            assert held <= 0
        # Each wait is counted from its own statement: time passing only shortens it.
        expected = [-20, -10, 0, 10, 20, 30, 40, 50]
        assert all(e - 5 < w <= e + 0.01 for w, e in zip(waits, expected, strict=True)), waits
        assert (await first.reserve_send(43, 10.0, 3.0, 300.0))[0] <= 0  # other chats: free

        await second.hold_back(44, 30.0, 300.0, 1 / 8)
        wait, held = await first.reserve_send(44, 10.0, 3.0, 300.0)
        assert 25 < held <= 30 and 25 < wait <= 30  # no burst after a flood wait
        wait, _ = await first.reserve_send(44, 10.0, 3.0, 300.0)
        assert 45 < wait <= 50  # at half the pace: one send every 20 s
    finally:
        await first.close()
        await second.close()


async def test_budgets_untouched_for_an_hour_are_forgotten_and_full_again(postgres):
    """The pruning job drops chats' paces and throttles' buckets nobody used for an hour,
    and keeps the ones in use: a forgotten bucket is a full one."""
    store = await open_storage(postgres)
    hint = [("hint", 7, 1e-6, 1.0)]  # one hint, refilled too slowly to matter here
    try:
        await store.reserve_send(42, 10.0, 3.0, 300.0)
        await store.reserve_send(43, 10.0, 3.0, 300.0)
        assert await store.spend_throttles(hint)
        assert await store.spend_throttles([("message", 8, 1e-6, 1.0)])
        assert not await store.spend_throttles(hint)

        await store.forget_budgets(3600.0)
        assert not await store.spend_throttles(hint), "spent a moment ago: kept"
        assert await count_rows(postgres, "chat_pace") == 2

        hours = 7200.0  # the pace's next send was due a few seconds ahead: two hours back
        await execute_sql(postgres, "UPDATE throttles SET spent_at = spent_at - ?", hours)
        await execute_sql(
            postgres,
            "UPDATE chat_pace SET due_at = due_at - ?, blocked_until = blocked_until - ?, "
            "slowed_at = slowed_at - ? WHERE chat_id = 42",
            hours,
            hours,
            hours,
        )
        await store.forget_budgets(3600.0)
        assert await count_rows(postgres, "throttles") == 0
        assert await count_rows(postgres, "chat_pace", "chat_id = 43") == 1
        assert await count_rows(postgres, "chat_pace") == 1
        assert await store.spend_throttles(hint), "forgotten, so full"
    finally:
        await store.close()


async def test_a_transaction_cut_off_mid_statement_ends_as_cut_off_and_the_next_one_runs(proxied):
    """A job past its time is cancelled in the middle of a statement on a silent connection:
    it ends as cancelled (the job's cut-off, said once), never as an error of the driver's,
    and the next run gets a fresh connection once the network is back."""
    proxy, url = proxied
    store = await open_storage(url)
    try:
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(0.5), store.transaction():
                proxy.black_hole()  # after BEGIN: the statement below gets no answer
                await store.renew_obligations("a process", 10.0)
        proxy.restore()
        async with store.transaction():
            assert await store.renew_obligations("a process", 10.0) == 0
    finally:
        await store.close()


async def test_spending_a_budget_does_not_wait_for_the_disk_and_saving_a_move_does(postgres):
    """A chat's pace, a player's taps and the throttles are spent by statements whose commit
    does not wait for the disk (a crashed server may forget its last moments of spending,
    which loses nothing of a player's), so a tap's first round trip never waits for a flush.
    The reservation made inside a move's save leaves the move's commit waiting for it."""
    await (await open_storage(postgres)).close()  # the schema
    spending = {
        "a tap": (
            postgres_storage._SPEND_TAP,
            (5, 10.0, 5.0, None, None, ["hint"], [5], [1.0], [5.0]),
        ),
        "a throttle": (postgres_storage._SPEND_THROTTLES, (["hint"], [5], [1.0], [5.0])),
        "a message": (postgres_storage._SPEND_MESSAGE, (["message"], [5], [1.0], [5.0], 5, None)),
        "a send": (postgres_storage._RESERVE_SEND, (5, 1.0, 5.0, 60.0)),
    }
    connection = await asyncpg.connect(postgres, server_settings={"synchronous_commit": "on"})
    try:
        for what, (statement, params) in spending.items():
            async with connection.transaction():
                assert await connection.fetchrow(statement, *params) is not None, what
                assert await connection.fetchval("SHOW synchronous_commit") == "off", what
        async with connection.transaction():
            await connection.fetchrow(postgres_storage._reserving(1), 6, 1.0, 5.0, 60.0)
            assert await connection.fetchval("SHOW synchronous_commit") == "on"
    finally:
        await connection.close()


async def test_a_hint_spends_its_throttle_with_the_tap_in_every_process(postgres):
    """💡's throttle is spent by the statement that spends the tap (no round trip of its
    own), from one bucket for every process; a tap over its budget spends no hint."""
    first, second = await open_storage(postgres), await open_storage(postgres)
    hint = [("hint", 7, 1e-6, 2.0)]  # two hints, refilled too slowly to matter here
    try:
        answers = []
        for store in (first, second, first):
            spent = await store.spend_tap(7, 1e-6, 10.0, None, None, hint)
            assert spent is not None
            answers.append(spent[3])
        assert answers == [True, True, False]
        assert await first.spend_throttles([("hint", 8, 1e-6, 2.0)])  # another player's own

        for _ in range(7):  # the taps' burst of ten spent, three of them above
            assert await second.spend_tap(7, 1e-6, 10.0, None, None) is not None
        fresh = [("hint", 9, 1e-6, 2.0)]  # a bucket with both hints left
        assert await first.spend_tap(7, 1e-6, 10.0, None, None, fresh) is None
        assert await first.spend_throttles(fresh) and await first.spend_throttles(fresh)
        assert not await first.spend_throttles(fresh), "the refused tap spent no hint"
    finally:
        await first.close()
        await second.close()
