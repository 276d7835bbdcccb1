"""Group challenges: one seed for everyone, one entry (a game) each, finished once.

A challenge is a row of its own; its entries are games, read and ranked as games.py reads and
ranks them.
"""

from __future__ import annotations

from bot.models import Challenge, NewChallenge, Standing, StoredGame
from bot.storage.queries.base import Row, StorageBase
from bot.storage.queries.games import GAME_COLUMNS, game_from_row, standings

_CHALLENGE_COLUMNS = (
    "id, chat_id, chat_title, language, creator_id, size, seed, token, ends_at, message_id, "
    "finished, salt, commitment"
)


def _challenge_from_row(row: Row) -> Challenge:
    return Challenge(
        *row[1:9],
        salt=row[11],
        commitment=row[12],
        id=row[0],
        message_id=row[9],
        finished=bool(row[10]),
    )


class ChallengeQueries(StorageBase):
    async def insert_challenge(self, new: NewChallenge, now: float) -> Challenge:
        """Store `new`, created `now`: the challenge as its row holds it (numbered, no card)."""
        challenge_id = await self._insert(
            "INSERT INTO challenges (chat_id, chat_title, language, creator_id, size, seed, "
            "token, created_at, ends_at, salt, commitment) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                new.chat_id,
                new.chat_title,
                new.language,
                new.creator_id,
                new.size,
                new.seed,
                new.token,
                now,
                new.ends_at,
                new.salt,
                new.commitment,
            ),
        )
        challenge = await self.challenge(challenge_id)
        assert challenge is not None
        return challenge

    async def challenge(self, challenge_id: int) -> Challenge | None:
        row = await self._fetchrow(
            f"SELECT {_CHALLENGE_COLUMNS} FROM challenges WHERE id = ?", (challenge_id,)
        )
        return None if row is None else _challenge_from_row(row)

    async def open_challenges(
        self, chat_id: int | None = None, ending_by: float | None = None
    ) -> list[Challenge]:
        """Every open challenge, or one group's, or those due to end by `ending_by`; the
        soonest to end first."""
        where, params = ("", ()) if chat_id is None else (" AND chat_id = ?", (chat_id,))
        if ending_by is not None:
            where, params = f"{where} AND ends_at <= ?", (*params, ending_by)
        rows = await self._fetchall(
            f"SELECT {_CHALLENGE_COLUMNS} FROM challenges WHERE finished = 0{where} "
            "ORDER BY ends_at",
            params,
        )
        return [_challenge_from_row(row) for row in rows]

    async def finished_challenges(self, chat_id: int, limit: int) -> list[Challenge]:
        """A group's last `limit` finished challenges, the latest first."""
        rows = await self._fetchall(
            f"SELECT {_CHALLENGE_COLUMNS} FROM challenges WHERE chat_id = ? AND finished = 1 "
            "ORDER BY ends_at DESC, id DESC LIMIT ?",
            (chat_id, limit),
        )
        return [_challenge_from_row(row) for row in rows]

    async def set_challenge_message(self, challenge_id: int, message_id: int) -> bool:
        """Make `message_id` the challenge's card, unless it has one already (then False)."""
        changed = await self._execute(
            "UPDATE challenges SET message_id = ? WHERE id = ? AND message_id IS NULL",
            (message_id, challenge_id),
        )
        return changed == 1

    async def withdraw_challenge(self, challenge_id: int) -> bool:
        """Delete a challenge nobody can have seen: no card, no entries. False if it has."""
        changed = await self._execute(
            "DELETE FROM challenges WHERE id = ? AND message_id IS NULL "
            "AND NOT EXISTS (SELECT 1 FROM games WHERE challenge_id = ?)",
            (challenge_id, challenge_id),
        )
        return changed == 1

    async def finish_challenge(self, challenge_id: int) -> bool:
        """Close a challenge and its entries; False if it was already closed (run once).

        Once across processes too: a second UPDATE waits for the first one's row lock, then
        finds `finished` set and changes nothing.
        """
        changed = await self._execute(
            "UPDATE challenges SET finished = 1 WHERE id = ? AND finished = 0",
            (challenge_id,),
        )
        if changed != 1:
            return False
        await self._execute("UPDATE games SET active = 0 WHERE challenge_id = ?", (challenge_id,))
        return True

    async def challenge_entry(self, challenge_id: int, owner_id: int) -> StoredGame | None:
        await self._serialize(f"entry:{challenge_id}:{owner_id}")
        row = await self._fetchrow(
            f"SELECT {GAME_COLUMNS} FROM games WHERE challenge_id = ? AND owner_id = ?"
            f"{self._for_update()}",
            (challenge_id, owner_id),
        )
        return None if row is None else game_from_row(row)

    async def challenge_entries(self, challenge_id: int) -> list[StoredGame]:
        """Every player's game in the challenge, each in their private chat."""
        rows = await self._fetchall(
            f"SELECT {GAME_COLUMNS} FROM games WHERE challenge_id = ? ORDER BY id",
            (challenge_id,),
        )
        return [game_from_row(row) for row in rows]

    async def challenge_standings(
        self, challenge_id: int, limit: int, asker: int | None = None
    ) -> list[Standing]:
        return await standings(self, "challenge_id = ?", (challenge_id,), limit, asker)

    async def challenge_players(self, challenge_id: int) -> int:
        row = await self._fetchrow(
            "SELECT count(*) FROM games WHERE challenge_id = ?", (challenge_id,)
        )
        assert row is not None
        return row[0]
