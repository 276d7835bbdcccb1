"""The outbox: announcements owed to chats, kept in the database until they are sent.

An announcement that a change of state owes a chat (a challenge's card when it is created, its
final card and its winner when it ends, a duel's result) is written as an obligation in the
same transaction as that change, by the service that makes it. Whatever happens after the
commit (the process dies, the database goes away, Telegram holds the chat back, the bot is
redeployed), it stays owed until it has gone out, and is sent then: at least once, and marked
sent once it went (exactly once where Telegram lets us tell: a send that timed out may have
arrived all the same).

Several processes may share the outbox. The process that writes an obligation holds it for
`LEASE_SECONDS` and sends it; the others leave it alone meanwhile. The holder renews the lease
of everything it holds each time it looks for what is due (every few seconds), however long
a chat's queue keeps an obligation waiting, so a short lease costs nothing while the holder
lives. An obligation nobody holds (its holder stopped, or died and its lease ran out) goes to
the first process that looks: within seconds of its holder's death.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Callable

from bot.models import Obligation, ObligationKind
from bot.storage import Storage

# Three looks for what is due (every 2 s) between two renewals: a holder that misses one
# keeps what it holds, and one that died leaves it for 6 s at most. A process that stops
# lets go of what it holds at once.
LEASE_SECONDS = 6.0
BATCH = 100


class Outbox:
    def __init__(
        self,
        storage: Storage,
        clock: Callable[[], float] = time.time,
        holder: str | None = None,
    ) -> None:
        self.storage = storage
        self._clock = clock
        self.holder = holder or secrets.token_hex(8)  # this process, to its fellows
        # Obligations handed out by `take_due` and not yet given back: each is queued once.
        self._out: set[int] = set()
        # One renewal or hand-out at a time in this process: two at once (handlers that each
        # owed something, the catch-up and the reminders at midnight) would hand the same
        # obligation out twice, and their renewals of the same rows could deadlock.
        self._looking = asyncio.Lock()

    async def owe(
        self,
        storage: Storage,
        kind: ObligationKind,
        chat_id: int,
        subject_id: int,
        reply_to: int | None = None,
    ) -> Obligation:
        """Inside the caller's transaction: owe `chat_id` a `kind` about `subject_id`.

        This process holds it: it sends it next, and no other process does meanwhile.
        """
        now = self._clock()
        return await storage.owe(
            kind, chat_id, subject_id, now, self.holder, now + LEASE_SECONDS, reply_to
        )

    async def take_due(self) -> list[Obligation]:
        """What this process is to send now, oldest first, each held for it; the leases of
        what it holds already renewed first.

        An obligation handed out stays out of later calls until it is given back (`give_back`).
        A call cut short hands out nothing: what it held is this process's, and the next call
        hands it out.
        """
        async with self._looking:
            await self._renew()
            taken: list[Obligation] = []
            try:
                for obligation in await self.storage.owed(self.holder, self._clock(), BATCH):
                    if obligation.id not in self._out and await self.hold(obligation):
                        self._out.add(obligation.id)
                        taken.append(obligation)
            except BaseException:
                self._out.difference_update(obligation.id for obligation in taken)
                raise
            return taken

    async def _renew(self) -> int:
        """Hold everything this process holds and has not sent for another lease; how many."""
        now = self._clock()
        async with self.storage.transaction():
            return await self.storage.renew_obligations(self.holder, now + LEASE_SECONDS)

    async def look(self) -> bool:
        """Renew what this process holds, as `take_due` does first, and tell whether anything is due
        now (an announcement to send, or a challenge to end, which owes some): one statement,
        so a catch-up with nothing to do stays cheap however far away the database is."""
        now = self._clock()
        async with self._looking:
            return await self.storage.renew_and_look(self.holder, now + LEASE_SECONDS, now)

    async def hold(self, obligation: Obligation) -> bool:
        """Hold it for another lease; False if another process has taken it over, or sent it."""
        now = self._clock()
        async with self.storage.transaction():
            return await self.storage.hold_obligation(
                obligation.id, self.holder, now, now + LEASE_SECONDS
            )

    async def settle(self, obligation: Obligation) -> None:
        """It has been sent (or can never be): it is owed no more."""
        async with self.storage.transaction():
            await self.storage.settle_obligation(obligation.id, self._clock())

    def give_back(self, obligation: Obligation) -> None:
        """Its attempt is over: unless settled, the next `take_due` hands it out again."""
        self._out.discard(obligation.id)

    async def release(self) -> int:
        """At shutdown: what this process holds and has not sent goes to whoever looks next."""
        self._out.clear()
        async with self.storage.transaction():
            return await self.storage.release_obligations(self.holder)

    async def forget_sent(self, before: float) -> int:
        """Drop obligations sent before `before`: they are history, not owed."""
        async with self.storage.transaction():
            return await self.storage.forget_obligations(before)
