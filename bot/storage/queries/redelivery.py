"""The record of updates delivered: each key claimed once, with what its first delivery did.

A later delivery of the same update finds the record and repeats its outcome instead of acting
again (bot/services/redelivery.py); keys outlive any redelivery, then they are forgotten.
"""

from __future__ import annotations

from bot.models import FirstOutcome
from bot.storage.queries.base import StorageBase


class RedeliveryQueries(StorageBase):
    async def claim_delivery(self, key: str, now: float) -> FirstOutcome | None:
        """Claim an update's key in the running transaction: None on its first delivery, else
        what the first delivery recorded.

        On PostgreSQL a concurrent claim of the same key (one update posted to two processes)
        waits for the first transaction: once that commits, it finds the record; had that
        rolled back, it claims the key itself.
        """
        while True:  # again if the record went (pruned, withdrawn) between the two queries
            claimed = await self._execute(
                "INSERT INTO deliveries (key, outcome, created_at) VALUES (?, '', ?) "
                "ON CONFLICT (key) DO NOTHING",
                (key, now),
            )
            if claimed:
                return None
            row = await self._fetchrow(
                "SELECT outcome, created_id FROM deliveries WHERE key = ?", (key,)
            )
            if row is not None:
                return FirstOutcome(row[0], row[1])

    async def record_delivery(self, key: str, outcome: str, created_id: int | None) -> None:
        await self._execute(
            "UPDATE deliveries SET outcome = ?, created_id = ? WHERE key = ?",
            (outcome, created_id, key),
        )

    async def forget_deliveries(self, before: float) -> int:
        """Drop the keys claimed before `before`; how many."""
        return await self._execute("DELETE FROM deliveries WHERE created_at < ?", (before,))
