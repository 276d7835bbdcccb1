"""The outbox's rows: announcements owed, each held by one process for a lease, sent once.

Who holds what, and for how long, is bot/services/outbox.py's to decide; these queries only
make each step of it one statement, so that processes sharing the database never both take
or both settle an obligation.
"""

from __future__ import annotations

from bot.models import Obligation, ObligationKind
from bot.storage.queries.base import StorageBase

# Hold until $1 every unsent announcement holder $2 holds.
_RENEW = (
    "UPDATE outbox SET lease_until = ? WHERE holder = ? AND sent_at IS NULL "
    "AND lease_until IS NOT NULL"
)
# Whether, at $1, a challenge is due to end or holder $2 may send an announcement ($3: $1).
_DUE = (
    "SELECT EXISTS (SELECT 1 FROM challenges WHERE finished = 0 AND ends_at <= ?) "
    "OR EXISTS (SELECT 1 FROM outbox WHERE sent_at IS NULL "
    "AND (holder = ? OR lease_until IS NULL OR lease_until <= ?))"
)


class OutboxQueries(StorageBase):
    async def owe(
        self,
        kind: ObligationKind,
        chat_id: int,
        subject_id: int,
        now: float,
        holder: str,
        lease_until: float,
        reply_to: int | None = None,
    ) -> Obligation:
        """Record, in the running transaction, an announcement owed; `holder` will send it."""
        obligation_id = await self._insert(
            "INSERT INTO outbox (kind, chat_id, subject_id, reply_to, created_at, holder, "
            "lease_until) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (kind, chat_id, subject_id, reply_to, now, holder, lease_until),
        )
        return Obligation(obligation_id, kind, chat_id, subject_id, reply_to)

    async def owed(self, holder: str, now: float, limit: int) -> list[Obligation]:
        """Unsent announcements `holder` may send now: its own, and those nobody holds; the
        answers to a message first (a /challenge's card), then the oldest."""
        rows = await self._fetchall(
            "SELECT id, kind, chat_id, subject_id, reply_to FROM outbox WHERE sent_at IS NULL "
            "AND (holder = ? OR lease_until IS NULL OR lease_until <= ?) "
            "ORDER BY reply_to IS NULL, id LIMIT ?",
            (holder, now, limit),
        )
        return [
            Obligation(obligation_id, ObligationKind(kind), chat_id, subject_id, reply_to)
            for obligation_id, kind, chat_id, subject_id, reply_to in rows
        ]

    async def hold_obligation(
        self, obligation_id: int, holder: str, now: float, until: float
    ) -> bool:
        """Hold an unsent announcement until `until`, unless another holder has it still."""
        changed = await self._execute(
            "UPDATE outbox SET holder = ?, lease_until = ? WHERE id = ? AND sent_at IS NULL "
            "AND (holder = ? OR lease_until IS NULL OR lease_until <= ?)",
            (holder, until, obligation_id, holder, now),
        )
        return changed == 1

    async def renew_obligations(self, holder: str, until: float) -> int:
        """Hold until `until` every unsent announcement `holder` holds; how many."""
        return await self._execute(_RENEW, (until, holder))

    async def renew_and_look(self, holder: str, until: float, now: float) -> bool:
        """Outside any transaction: renew `holder`'s leases until `until` (as
        `renew_obligations`), and tell whether anything is due at `now`: a challenge to end,
        or an announcement `holder` may send. One statement where a round trip counts: a
        catch-up that finds nothing to do costs one."""
        (due,) = await self._write_then_read(_RENEW, (until, holder), _DUE, (now, holder, now))
        return bool(due)

    async def settle_obligation(self, obligation_id: int, now: float) -> bool:
        """Mark an announcement sent; False if it was already."""
        changed = await self._execute(
            "UPDATE outbox SET sent_at = ? WHERE id = ? AND sent_at IS NULL", (now, obligation_id)
        )
        return changed == 1

    async def release_obligations(self, holder: str) -> int:
        """Let any process send what `holder` held and did not send; how many."""
        return await self._execute(
            "UPDATE outbox SET lease_until = NULL WHERE holder = ? AND sent_at IS NULL", (holder,)
        )

    async def forget_obligations(self, before: float) -> int:
        """Drop the announcements sent before `before`; how many."""
        return await self._execute("DELETE FROM outbox WHERE sent_at < ?", (before,))
