"""SQLite storage: players, games and records, one file, WAL mode, versioned migrations.

Every write goes through `transaction()`, which serialises writers on the one connection:
aiosqlite runs statements on a single thread, but without the lock two coroutines could
interleave their statements inside one SQLite transaction.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import aiosqlite

import engine

# Each entry migrates the schema from version i to i + 1; never edit a released step.
MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        """CREATE TABLE players (
            user_id INTEGER PRIMARY KEY,
            name TEXT NOT NULL DEFAULT '',
            language TEXT,
            view TEXT NOT NULL DEFAULT 'emoji'
        )""",
        """CREATE TABLE challenges (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            chat_id INTEGER NOT NULL,
            chat_title TEXT NOT NULL,
            language TEXT NOT NULL,
            creator_id INTEGER NOT NULL,
            size INTEGER NOT NULL,
            seed INTEGER NOT NULL,
            token TEXT NOT NULL,
            created_at REAL NOT NULL,
            ends_at REAL NOT NULL,
            message_id INTEGER,
            finished INTEGER NOT NULL DEFAULT 0
        )""",
        "CREATE INDEX challenges_open ON challenges (finished, ends_at)",
        """CREATE TABLE games (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            chat_id INTEGER NOT NULL,
            owner_id INTEGER NOT NULL,
            size INTEGER NOT NULL,
            state TEXT NOT NULL,
            active INTEGER NOT NULL DEFAULT 1,
            message_id INTEGER,
            played_counted INTEGER NOT NULL DEFAULT 0,
            challenge_id INTEGER REFERENCES challenges (id),
            closes_at REAL,
            score INTEGER NOT NULL DEFAULT 0,
            highest INTEGER NOT NULL DEFAULT 0,
            moves INTEGER NOT NULL DEFAULT 0,
            score_at REAL NOT NULL,
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL
        )""",
        # A player has one running ordinary game per chat, and one entry per challenge.
        """CREATE UNIQUE INDEX games_one_active
            ON games (chat_id, owner_id) WHERE active = 1 AND challenge_id IS NULL""",
        """CREATE UNIQUE INDEX games_one_entry
            ON games (challenge_id, owner_id) WHERE challenge_id IS NOT NULL""",
        "CREATE INDEX games_leaderboard ON games (chat_id, size, score)",
        """CREATE TABLE chats (
            chat_id INTEGER PRIMARY KEY,
            language TEXT
        )""",
        """CREATE TABLE records (
            user_id INTEGER NOT NULL,
            size INTEGER NOT NULL,
            best_score INTEGER NOT NULL DEFAULT 0,
            games_played INTEGER NOT NULL DEFAULT 0,
            games_won INTEGER NOT NULL DEFAULT 0,
            highest_tile INTEGER NOT NULL DEFAULT 0,
            fewest_moves_to_win INTEGER,
            fastest_win_seconds REAL,
            PRIMARY KEY (user_id, size)
        )""",
    ),
    (
        "ALTER TABLE games ADD COLUMN hints INTEGER NOT NULL DEFAULT 0",
        # The direction the last hint suggested, shown on the board until the next change.
        "ALTER TABLE games ADD COLUMN hint TEXT",
        "ALTER TABLE records ADD COLUMN hints_used INTEGER NOT NULL DEFAULT 0",
    ),
)
SCHEMA_VERSION = len(MIGRATIONS)


@dataclass(frozen=True, slots=True)
class Player:
    user_id: int
    name: str = ""
    language: str | None = None
    view: str = "emoji"


@dataclass(frozen=True, slots=True)
class StoredGame:
    id: int
    chat_id: int
    owner_id: int
    game: engine.Game
    active: bool
    message_id: int | None
    played_counted: bool
    challenge_id: int | None = None
    # A challenge entry takes no moves from this moment on, even before the end job runs.
    closes_at: float | None = None
    hints: int = 0
    hint: str | None = None


@dataclass(frozen=True, slots=True)
class Record:
    size: int
    best_score: int = 0
    games_played: int = 0
    games_won: int = 0
    highest_tile: int = 0
    fewest_moves_to_win: int | None = None
    fastest_win_seconds: float | None = None
    hints_used: int = 0


@dataclass(frozen=True, slots=True)
class Challenge:
    id: int
    chat_id: int
    chat_title: str
    language: str  # the card's language when the group has not chosen one
    creator_id: int
    size: int
    seed: int
    token: str
    ends_at: float
    message_id: int | None
    finished: bool


@dataclass(frozen=True, slots=True)
class Standing:
    """One line of a leaderboard; ties are broken by highest tile, fewer moves, then time."""

    rank: int
    user_id: int
    name: str
    score: int
    highest: int
    moves: int


_GAME_COLUMNS = (
    "id, chat_id, owner_id, state, active, message_id, played_counted, challenge_id, closes_at, "
    "hints, hint"
)
_CHALLENGE_COLUMNS = (
    "id, chat_id, chat_title, language, creator_id, size, seed, token, ends_at, message_id, "
    "finished"
)
# Best first: score, then highest tile, then fewer moves, then whoever got there first.
_RANKING = "score DESC, highest DESC, moves ASC, score_at ASC"


def _game_from_row(row: aiosqlite.Row) -> StoredGame:
    return StoredGame(
        id=row[0],
        chat_id=row[1],
        owner_id=row[2],
        game=engine.from_dict(json.loads(row[3])),
        active=bool(row[4]),
        message_id=row[5],
        played_counted=bool(row[6]),
        challenge_id=row[7],
        closes_at=row[8],
        hints=row[9],
        hint=row[10],
    )


def _challenge_from_row(row: aiosqlite.Row) -> Challenge:
    return Challenge(*row[:10], finished=bool(row[10]))


def _dump(game: engine.Game) -> str:
    return json.dumps(engine.to_dict(game), separators=(",", ":"))


class Storage:
    def __init__(self, connection: aiosqlite.Connection) -> None:
        self._db = connection
        self._write_lock = asyncio.Lock()

    @classmethod
    async def open(cls, path: str | Path) -> Storage:
        connection = await aiosqlite.connect(path, isolation_level=None)
        await connection.execute("PRAGMA journal_mode=WAL")
        # NORMAL in WAL mode survives a killed process; only a power cut can lose the last
        # commits, which is the usual trade for a chat bot that commits on every tap.
        await connection.execute("PRAGMA synchronous=NORMAL")
        await connection.execute("PRAGMA foreign_keys=ON")
        storage = cls(connection)
        try:
            await storage._migrate()
        except BaseException:
            await connection.close()
            raise
        return storage

    async def close(self) -> None:
        async with self._write_lock:
            await self._db.close()

    async def _migrate(self) -> None:
        async with self._db.execute("PRAGMA user_version") as cursor:
            (version,) = await cursor.fetchone()  # type: ignore[misc]
        if version > SCHEMA_VERSION:
            raise RuntimeError(
                f"database schema {version} is newer than this bot ({SCHEMA_VERSION}): upgrade"
            )
        for step in range(version, SCHEMA_VERSION):
            async with self.transaction():
                for statement in MIGRATIONS[step]:
                    await self._db.execute(statement)
                await self._db.execute(f"PRAGMA user_version = {step + 1}")

    async def schema_version(self) -> int:
        async with self._db.execute("PRAGMA user_version") as cursor:
            (version,) = await cursor.fetchone()  # type: ignore[misc]
        return version

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[None]:
        async with self._write_lock:
            await self._db.execute("BEGIN IMMEDIATE")
            try:
                yield
            except BaseException:
                await self._db.execute("ROLLBACK")
                raise
            await self._db.execute("COMMIT")

    # Players

    async def player(self, user_id: int) -> Player:
        async with self._db.execute(
            "SELECT name, language, view FROM players WHERE user_id = ?", (user_id,)
        ) as cursor:
            row = await cursor.fetchone()
        if row is None:
            return Player(user_id)
        return Player(user_id, row[0], row[1], row[2])

    async def remember_name(self, user_id: int, name: str) -> None:
        """Keep the name current, so leaderboards show a renamed player's new name."""
        async with self.transaction():
            await self._db.execute(
                "INSERT INTO players (user_id, name) VALUES (?, ?) "
                "ON CONFLICT (user_id) DO UPDATE SET name = excluded.name "
                "WHERE players.name != excluded.name",
                (user_id, name),
            )

    async def set_language(self, user_id: int, language: str) -> None:
        async with self.transaction():
            await self._db.execute(
                "INSERT INTO players (user_id, language) VALUES (?, ?) "
                "ON CONFLICT (user_id) DO UPDATE SET language = excluded.language",
                (user_id, language),
            )

    async def set_view(self, user_id: int, view: str) -> None:
        async with self.transaction():
            await self._db.execute(
                "INSERT INTO players (user_id, view) VALUES (?, ?) "
                "ON CONFLICT (user_id) DO UPDATE SET view = excluded.view",
                (user_id, view),
            )

    # Games (writes happen inside a transaction opened by the caller)

    async def game(self, game_id: int) -> StoredGame | None:
        async with self._db.execute(
            f"SELECT {_GAME_COLUMNS} FROM games WHERE id = ?", (game_id,)
        ) as cursor:
            row = await cursor.fetchone()
        return None if row is None else _game_from_row(row)

    async def active_game(self, chat_id: int, owner_id: int) -> StoredGame | None:
        async with self._db.execute(
            f"SELECT {_GAME_COLUMNS} FROM games "
            "WHERE chat_id = ? AND owner_id = ? AND active = 1 AND challenge_id IS NULL",
            (chat_id, owner_id),
        ) as cursor:
            row = await cursor.fetchone()
        return None if row is None else _game_from_row(row)

    async def insert_game(
        self,
        chat_id: int,
        owner_id: int,
        game: engine.Game,
        now: float,
        challenge: Challenge | None = None,
    ) -> int:
        cursor = await self._db.execute(
            "INSERT INTO games (chat_id, owner_id, size, state, challenge_id, closes_at, "
            "highest, score_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                chat_id,
                owner_id,
                game.size,
                _dump(game),
                challenge.id if challenge else None,
                challenge.ends_at if challenge else None,
                game.highest,
                now,
                now,
                now,
            ),
        )
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    async def update_game(
        self, stored: StoredGame, game: engine.Game, now: float, *, played_counted: bool
    ) -> None:
        """Save a game's new state; `score_at` moves only when the score does (for ties)."""
        await self._db.execute(
            "UPDATE games SET state = ?, played_counted = ?, score = ?, highest = ?, moves = ?, "
            "score_at = CASE WHEN score != ? THEN ? ELSE score_at END, updated_at = ?, "
            "hint = NULL WHERE id = ?",
            (
                _dump(game),
                int(played_counted),
                game.score,
                game.highest,
                game.moves,
                game.score,
                now,
                now,
                stored.id,
            ),
        )

    async def save_hint(self, stored: StoredGame, direction: str) -> None:
        """Show a hint on the board and count it, for the game and the player's records."""
        await self._db.execute(
            "UPDATE games SET hint = ?, hints = hints + 1 WHERE id = ?", (direction, stored.id)
        )
        await self._db.execute(
            "INSERT INTO records (user_id, size, hints_used) VALUES (?, ?, 1) "
            "ON CONFLICT (user_id, size) DO UPDATE SET hints_used = hints_used + 1",
            (stored.owner_id, stored.game.size),
        )

    async def deactivate_game(self, game_id: int) -> None:
        await self._db.execute("UPDATE games SET active = 0 WHERE id = ?", (game_id,))

    async def link_message(self, game_id: int, message_id: int) -> None:
        async with self.transaction():
            await self._db.execute(
                "UPDATE games SET message_id = ? WHERE id = ?", (message_id, game_id)
            )

    # Records

    async def records(self, user_id: int) -> dict[int, Record]:
        async with self._db.execute(
            "SELECT size, best_score, games_played, games_won, highest_tile, "
            "fewest_moves_to_win, fastest_win_seconds, hints_used FROM records WHERE user_id = ?",
            (user_id,),
        ) as cursor:
            rows = await cursor.fetchall()
        return {row[0]: Record(*row) for row in rows}

    async def best_score(self, user_id: int, size: int) -> int:
        async with self._db.execute(
            "SELECT best_score FROM records WHERE user_id = ? AND size = ?", (user_id, size)
        ) as cursor:
            row = await cursor.fetchone()
        return 0 if row is None else row[0]

    async def add_to_records(
        self,
        user_id: int,
        game: engine.Game,
        *,
        new_play: bool,
        new_win: bool,
        won_now: engine.Win | None,
    ) -> None:
        """Fold one game's progress into the player's records for that board size."""
        await self._db.execute(
            """INSERT INTO records (user_id, size, best_score, games_played, games_won,
                   highest_tile, fewest_moves_to_win, fastest_win_seconds)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?)
               ON CONFLICT (user_id, size) DO UPDATE SET
                   best_score = max(best_score, excluded.best_score),
                   games_played = games_played + excluded.games_played,
                   games_won = games_won + excluded.games_won,
                   highest_tile = max(highest_tile, excluded.highest_tile),
                   fewest_moves_to_win = coalesce(
                       min(fewest_moves_to_win, excluded.fewest_moves_to_win),
                       fewest_moves_to_win, excluded.fewest_moves_to_win),
                   fastest_win_seconds = coalesce(
                       min(fastest_win_seconds, excluded.fastest_win_seconds),
                       fastest_win_seconds, excluded.fastest_win_seconds)""",
            (
                user_id,
                game.size,
                game.score,
                int(new_play),
                int(new_win),
                game.highest,
                won_now.moves if won_now else None,
                won_now.play_seconds if won_now else None,
            ),
        )

    # Group chats

    async def chat_language(self, chat_id: int) -> str | None:
        async with self._db.execute(
            "SELECT language FROM chats WHERE chat_id = ?", (chat_id,)
        ) as cursor:
            row = await cursor.fetchone()
        return None if row is None else row[0]

    async def set_chat_language(self, chat_id: int, language: str) -> None:
        async with self.transaction():
            await self._db.execute(
                "INSERT INTO chats (chat_id, language) VALUES (?, ?) "
                "ON CONFLICT (chat_id) DO UPDATE SET language = excluded.language",
                (chat_id, language),
            )

    async def _standings(
        self, games_filter: str, params: tuple[object, ...], limit: int, asker: int | None
    ) -> list[Standing]:
        """The top `limit` players (each by their best game) plus the asker's own line."""
        query = f"""
            WITH best AS (
                SELECT owner_id, score, highest, moves, score_at,
                       ROW_NUMBER() OVER (PARTITION BY owner_id ORDER BY {_RANKING}) AS pick
                FROM games WHERE moves > 0 AND {games_filter}
            ), ranked AS (
                SELECT owner_id, score, highest, moves,
                       ROW_NUMBER() OVER (ORDER BY {_RANKING}, owner_id) AS rank
                FROM best WHERE pick = 1
            )
            SELECT rank, owner_id, coalesce(players.name, ''), score, highest, moves
            FROM ranked LEFT JOIN players ON players.user_id = ranked.owner_id
            WHERE rank <= ? OR owner_id = ?
            ORDER BY rank"""
        async with self._db.execute(query, (*params, limit, asker)) as cursor:
            rows = await cursor.fetchall()
        return [Standing(*row) for row in rows]

    async def group_leaderboard(
        self, chat_id: int, size: int, limit: int, asker: int | None = None
    ) -> list[Standing]:
        return await self._standings(
            "chat_id = ? AND size = ? AND challenge_id IS NULL", (chat_id, size), limit, asker
        )

    # Challenges

    async def insert_challenge(
        self,
        chat_id: int,
        chat_title: str,
        language: str,
        creator_id: int,
        size: int,
        seed: int,
        token: str,
        now: float,
        ends_at: float,
    ) -> Challenge:
        async with self.transaction():
            cursor = await self._db.execute(
                "INSERT INTO challenges (chat_id, chat_title, language, creator_id, size, seed, "
                "token, created_at, ends_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (chat_id, chat_title, language, creator_id, size, seed, token, now, ends_at),
            )
        assert cursor.lastrowid is not None
        challenge = await self.challenge(cursor.lastrowid)
        assert challenge is not None
        return challenge

    async def challenge(self, challenge_id: int) -> Challenge | None:
        async with self._db.execute(
            f"SELECT {_CHALLENGE_COLUMNS} FROM challenges WHERE id = ?", (challenge_id,)
        ) as cursor:
            row = await cursor.fetchone()
        return None if row is None else _challenge_from_row(row)

    async def open_challenges(self) -> list[Challenge]:
        async with self._db.execute(
            f"SELECT {_CHALLENGE_COLUMNS} FROM challenges WHERE finished = 0 ORDER BY ends_at"
        ) as cursor:
            rows = await cursor.fetchall()
        return [_challenge_from_row(row) for row in rows]

    async def set_challenge_message(self, challenge_id: int, message_id: int) -> None:
        async with self.transaction():
            await self._db.execute(
                "UPDATE challenges SET message_id = ? WHERE id = ?", (message_id, challenge_id)
            )

    async def finish_challenge(self, challenge_id: int) -> bool:
        """Close a challenge and its entries; False if it was already closed (run once)."""
        async with self.transaction():
            cursor = await self._db.execute(
                "UPDATE challenges SET finished = 1 WHERE id = ? AND finished = 0",
                (challenge_id,),
            )
            if cursor.rowcount != 1:
                return False
            await self._db.execute(
                "UPDATE games SET active = 0 WHERE challenge_id = ?", (challenge_id,)
            )
        return True

    async def challenge_entry(self, challenge_id: int, owner_id: int) -> StoredGame | None:
        async with self._db.execute(
            f"SELECT {_GAME_COLUMNS} FROM games WHERE challenge_id = ? AND owner_id = ?",
            (challenge_id, owner_id),
        ) as cursor:
            row = await cursor.fetchone()
        return None if row is None else _game_from_row(row)

    async def challenge_standings(
        self, challenge_id: int, limit: int, asker: int | None = None
    ) -> list[Standing]:
        return await self._standings("challenge_id = ?", (challenge_id,), limit, asker)

    async def challenge_players(self, challenge_id: int) -> int:
        async with self._db.execute(
            "SELECT count(*) FROM games WHERE challenge_id = ?", (challenge_id,)
        ) as cursor:
            (count,) = await cursor.fetchone()  # type: ignore[misc]
        return count
