"""Personal records: each player's best of every board size, folded in as games progress."""

from __future__ import annotations

import engine
from bot.models import Record, StoredGame
from bot.storage.queries.base import StorageBase


class RecordQueries(StorageBase):
    async def records(self, user_id: int) -> dict[int, Record]:
        rows = await self._fetchall(
            "SELECT size, best_score, games_played, games_won, highest_tile, "
            "fewest_moves_to_win, fastest_win_seconds, hints_used FROM records WHERE user_id = ?",
            (user_id,),
        )
        return {row[0]: Record(*row) for row in rows}

    async def best_score(self, user_id: int, size: int) -> int:
        row = await self._fetchrow(
            "SELECT best_score FROM records WHERE user_id = ? AND size = ?", (user_id, size)
        )
        return 0 if row is None else row[0]

    async def best_of_others(self, user_id: int, size: int, game_id: int) -> int:
        """The player's best score on this size in their games other than `game_id`."""
        row = await self._fetchrow(
            "SELECT coalesce(max(score), 0) FROM games WHERE owner_id = ? AND size = ? AND id <> ?",
            (user_id, size, game_id),
        )
        return 0 if row is None else row[0]

    def _fold_records(
        self,
        stored: StoredGame,
        game: engine.Game,
        *,
        new_play: bool,
        new_win: bool,
        won_now: engine.Win | None,
    ) -> tuple[str, tuple[object, ...]]:
        """The statement that folds a move of `stored` (now `game`) into the player's records
        for that board size, for `_execute_then` after the move's save (its `{guard}` left);
        it returns the player's best score on the size.

        The best score and the highest tile are those of the player's games as their boards
        hold them now, so points an undo took back count nowhere, here as on every
        leaderboard: this game's new values beside the best of the player's others, so the
        statement needs not see the move's own save.
        """
        least, greatest = self._LEAST, self._GREATEST
        others = (
            "(SELECT coalesce(max({column}), 0) FROM games "
            "WHERE owner_id = ? AND size = ? AND id <> ?)"
        )
        owner, size = stored.owner_id, game.size
        return (
            f"""INSERT INTO records (user_id, size, best_score, games_played, games_won,
                   highest_tile, fewest_moves_to_win, fastest_win_seconds)
               SELECT CAST(? AS BIGINT), CAST(? AS INTEGER),
                   {greatest}(CAST(? AS BIGINT), {others.format(column="score")}),
                   CAST(? AS BIGINT), CAST(? AS BIGINT),
                   {greatest}(CAST(? AS BIGINT), {others.format(column="highest")}),
                   CAST(? AS BIGINT), CAST(? AS DOUBLE PRECISION) {{guard}}
               ON CONFLICT (user_id, size) DO UPDATE SET
                   best_score = excluded.best_score,
                   games_played = records.games_played + excluded.games_played,
                   games_won = records.games_won + excluded.games_won,
                   highest_tile = excluded.highest_tile,
                   fewest_moves_to_win = coalesce(
                       {least}(records.fewest_moves_to_win, excluded.fewest_moves_to_win),
                       records.fewest_moves_to_win, excluded.fewest_moves_to_win),
                   fastest_win_seconds = coalesce(
                       {least}(records.fastest_win_seconds, excluded.fastest_win_seconds),
                       records.fastest_win_seconds, excluded.fastest_win_seconds)
               RETURNING best_score""",
            (
                owner,
                size,
                game.score,
                owner,
                size,
                stored.id,
                int(new_play),
                int(new_win),
                game.highest,
                owner,
                size,
                stored.id,
                won_now.moves if won_now else None,
                won_now.play_seconds if won_now else None,
            ),
        )
