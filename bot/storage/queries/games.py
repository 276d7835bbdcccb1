"""Games: each chat's running game, every move saved with the action that made it.

A challenge's entries are games, and leaderboards rank players by their games: the columns a
game is read by, its row's mapping and `standings` serve the challenges' and the groups'
queries as well.
"""

from __future__ import annotations

import json

import engine
from bot.models import Challenge, Standing, StoredGame
from bot.storage.queries.base import Row, StorageBase

GAME_COLUMNS = (
    "id, chat_id, owner_id, state, active, message_id, played_counted, challenge_id, closes_at, "
    "hints, hint, actions, duel_of, duel_actions, duel_reported, daily_id, taps, revision"
)
# Best first: score, then highest tile, then fewer moves, then whoever got there first.
_RANKING = "score DESC, highest DESC, moves ASC, score_at ASC"


def game_from_row(row: Row) -> StoredGame:
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
        hints_used=row[9],
        shown_hint=row[10],
        actions=row[11],
        duel_of=row[12],
        duel_actions=row[13],
        duel_reported=bool(row[14]),
        daily_id=row[15],
        taps=row[16],
        revision=row[17],
    )


def _dump(game: engine.Game) -> str:
    return json.dumps(engine.to_dict(game), separators=(",", ":"))


# A move saved: its state, what leaderboards rank by (`score_at` moves only when the score
# does, for ties), its action logged, its taps, and the revision raised.
_SAVE_MOVE = (
    "UPDATE games SET state = ?, played_counted = ?, score = ?, highest = ?, moves = ?, "
    "score_at = CASE WHEN score != ? THEN ? ELSE score_at END, updated_at = ?, "
    "hint = NULL, actions = actions || ?, taps = ?, revision = revision + 1"
)


def _move_values(
    game: engine.Game, now: float, played_counted: bool, action: engine.Action, taps: str
) -> tuple[object, ...]:
    return (
        _dump(game),
        int(played_counted),
        game.score,
        game.highest,
        game.moves,
        game.score,
        now,
        now,
        engine.ACTION_CODES[action],
        taps,
    )


async def standings(
    storage: StorageBase,
    games_filter: str,
    params: tuple[object, ...],
    limit: int,
    asker: int | None,
) -> list[Standing]:
    """The top `limit` players, each by their best game of those `games_filter` picks (its `?`
    bound to `params`), plus the asker's own line: a group's leaderboard, a challenge's."""
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
    rows = await storage._fetchall(query, (*params, limit, asker))
    return [Standing(*row) for row in rows]


class GameQueries(StorageBase):
    async def game(self, game_id: int) -> StoredGame | None:
        """The game; inside a transaction its row stays locked until the commit."""
        row = await self._fetchrow(
            f"SELECT {GAME_COLUMNS} FROM games WHERE id = ?{self._for_update()}", (game_id,)
        )
        return None if row is None else game_from_row(row)

    async def active_game(self, chat_id: int, owner_id: int) -> StoredGame | None:
        await self._serialize(f"active:{chat_id}:{owner_id}")
        row = await self._fetchrow(
            f"SELECT {GAME_COLUMNS} FROM games "
            "WHERE chat_id = ? AND owner_id = ? AND active = 1 AND challenge_id IS NULL "
            "AND daily_id IS NULL"
            f"{self._for_update()}",
            (chat_id, owner_id),
        )
        return None if row is None else game_from_row(row)

    async def insert_game(
        self,
        chat_id: int,
        owner_id: int,
        game: engine.Game,
        now: float,
        challenge: Challenge | None = None,
        duel: tuple[int, int] | None = None,
    ) -> int:
        """A new game (no actions yet); `duel` is (game id, actions) of the game it duels."""
        return await self._insert(
            "INSERT INTO games (chat_id, owner_id, size, state, challenge_id, closes_at, "
            "highest, score_at, created_at, updated_at, actions, duel_of, duel_actions) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '', ?, ?)",
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
                duel[0] if duel else None,
                duel[1] if duel else None,
            ),
        )

    async def update_game(
        self,
        stored: StoredGame,
        game: engine.Game,
        now: float,
        *,
        played_counted: bool,
        action: engine.Action,
    ) -> None:
        """Save a game's new state and log the action that made it (if the game has a log),
        inside the running transaction, whatever its revision."""
        await self._execute(
            f"{_SAVE_MOVE} WHERE id = ?",
            (*_move_values(game, now, played_counted, action, stored.taps), stored.id),
        )

    async def save_move(
        self,
        stored: StoredGame,
        game: engine.Game,
        now: float,
        *,
        played_counted: bool,
        action: engine.Action,
        taps: str,
        new_play: bool,
        new_win: bool,
        won_now: engine.Win | None,
        budget: tuple[float, float] | None = None,
    ) -> bool:
        """Save a move onto the game as `stored` read it, with its taps and the player's
        records, atomically, outside any transaction; False, and nothing saved, when the game
        changed meanwhile (another process moved or ended it) or its moves are over budget.

        `budget`: (moves a second, burst) of the game's token bucket, kept in its row for
        every process alike; None spends none. One statement on PostgreSQL, so a move costs
        one round trip and no lock held across round trips; the caller reads the game again
        on False, and finds it unchanged when the budget refused the move.
        """
        folded, folded_params = self._fold_records(
            stored, game, new_play=new_play, new_win=new_win, won_now=won_now
        )
        spend, spend_params, afford, afford_params = "", (), "", ()
        if budget is not None:
            rate, burst = budget
            tokens = f"{self._LEAST}(?, move_tokens + (? - moved_at) * ?)"
            spend, spend_params = (
                f", move_tokens = {tokens} - 1, moved_at = ?",
                (burst, now, rate, now),
            )
            afford, afford_params = f" AND {tokens} >= 1", (burst, now, rate)
        return await self._execute_then(
            f"{_SAVE_MOVE}{spend} WHERE id = ? AND revision = ? AND active = 1{afford}",
            (
                *_move_values(game, now, played_counted, action, taps),
                *spend_params,
                stored.id,
                stored.revision,
                *afford_params,
            ),
            folded,
            folded_params,
        )

    async def save_hint(self, stored: StoredGame, direction: str) -> None:
        """Show a hint on the board and count it, for the game and the player's records."""
        await self._execute(
            "UPDATE games SET hint = ?, hints = hints + 1 WHERE id = ?", (direction, stored.id)
        )
        await self._execute(
            "INSERT INTO records (user_id, size, hints_used) VALUES (?, ?, 1) "
            "ON CONFLICT (user_id, size) DO UPDATE SET hints_used = records.hints_used + 1",
            (stored.owner_id, stored.game.size),
        )

    async def latest_game(self, chat_id: int, owner_id: int) -> StoredGame | None:
        """The player's most recently played game with a move: in this chat if there is one
        (a group's challenge entries count as the group's), else anywhere."""
        row = await self._fetchrow(
            f"SELECT {GAME_COLUMNS} FROM games WHERE owner_id = ? AND moves > 0 "
            "ORDER BY CASE WHEN chat_id = ? OR challenge_id IN "
            "(SELECT id FROM challenges WHERE chat_id = ?) THEN 0 ELSE 1 END, "
            "updated_at DESC, id DESC LIMIT 1",
            (owner_id, chat_id, chat_id),
        )
        return None if row is None else game_from_row(row)

    async def latest_closed_game(self, owner_id: int) -> StoredGame | None:
        """The player's most recent game with a move that takes no more moves: replaced by a
        newer game, or a challenge entry whose challenge has ended."""
        row = await self._fetchrow(
            f"SELECT {GAME_COLUMNS} FROM games WHERE owner_id = ? AND moves > 0 AND active = 0 "
            "ORDER BY updated_at DESC, id DESC LIMIT 1",
            (owner_id,),
        )
        return None if row is None else game_from_row(row)

    async def best_games(self, owner_id: int) -> dict[int, StoredGame]:
        """The player's best game of each board size, anywhere (ranked as leaderboards rank)."""
        rows = await self._fetchall(
            f"""SELECT {GAME_COLUMNS} FROM (
                    SELECT games.*, ROW_NUMBER() OVER (
                        PARTITION BY size ORDER BY {_RANKING}, id) AS pick
                    FROM games WHERE owner_id = ? AND moves > 0
                ) ranked WHERE pick = 1 ORDER BY size""",
            (owner_id,),
        )
        games = [game_from_row(row) for row in rows]
        return {stored.game.size: stored for stored in games}

    async def report_duel(self, game_id: int) -> bool:
        """Mark a duel's comparison as sent; False if it was already (send it once)."""
        changed = await self._execute(
            "UPDATE games SET duel_reported = 1 WHERE id = ? AND duel_reported = 0", (game_id,)
        )
        return changed == 1

    async def shared_file(self, key: str) -> str | None:
        row = await self._fetchrow("SELECT file_id FROM shared_files WHERE key = ?", (key,))
        return None if row is None else row[0]

    async def remember_file(self, key: str, file_id: str, now: float) -> None:
        await self._execute(
            "INSERT INTO shared_files (key, file_id, created_at) VALUES (?, ?, ?) "
            "ON CONFLICT (key) DO UPDATE SET file_id = excluded.file_id",
            (key, file_id, now),
        )

    async def deactivate_game(self, game_id: int) -> None:
        await self._execute("UPDATE games SET active = 0 WHERE id = ?", (game_id,))

    async def link_message(self, game_id: int, message_id: int) -> None:
        await self._execute("UPDATE games SET message_id = ? WHERE id = ?", (message_id, game_id))
