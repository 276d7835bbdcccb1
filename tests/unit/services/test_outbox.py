"""The outbox: what a change owes a chat is handed to one process at a time, until it is sent."""

from __future__ import annotations

import asyncio

from bot.models import ObligationKind
from bot.services.challenges import ChallengeService
from bot.services.locks import ChatLocks
from bot.services.outbox import LEASE_SECONDS, Outbox
from bot.storage import open_storage

GROUP = -100424242


async def test_an_owed_announcement_is_sent_by_its_holder_until_it_lets_go(database):
    """Two processes share the outbox: the one whose change owes an announcement sends it;
    the other takes it only once that one let go, and nobody once it is sent."""
    storage = await open_storage(database)
    clock = [1000.0]
    first, second = (Outbox(storage, lambda: clock[0], holder) for holder in ("a", "b"))
    challenges = ChallengeService(storage, ChatLocks(storage), lambda: clock[0], outbox=first)
    try:
        challenge = await challenges.create(GROUP, "Owed", "en", 101, 4, 3600)
        assert challenge is not None
        assert await second.take_due() == []
        (card,) = await first.take_due()
        assert (card.kind, card.subject_id, card.chat_id) == (
            ObligationKind.CARD,
            challenge.id,
            GROUP,
        )
        assert type(card.kind) is ObligationKind, "the stored kind reads back as its enum"
        assert await first.take_due() == [], "handed out once until given back"
        first.give_back(card)
        assert await first.take_due() == [card]
        await first.release()  # the first process stops without having sent it
        assert await second.take_due() == [card]
        assert not await first.hold(card)
        await second.settle(card)
        second.give_back(card)
        assert await first.take_due() == [] and await second.take_due() == []

        clock[0] += 3600  # the end: its final card and winner are owed by whoever ended it
        assert await challenges.finish_overdue() == 1
        assert [o.kind for o in await first.take_due()] == [
            ObligationKind.FINAL_CARD,
            ObligationKind.WINNER,
        ]
        clock[0] += LEASE_SECONDS  # the first process died with them: the second takes over
        assert [o.kind for o in await second.take_due()] == [
            ObligationKind.FINAL_CARD,
            ObligationKind.WINNER,
        ]
    finally:
        await storage.close()


async def test_a_living_holder_keeps_what_it_holds_however_long_it_waits(storage):
    """A group's queue may keep an announcement waiting for minutes: its holder's looks for
    what is due renew the lease, and the others take it over only once they stop."""
    clock = [1000.0]
    first, second = (Outbox(storage, lambda: clock[0], holder) for holder in ("a", "b"))
    async with storage.transaction():
        await first.owe(storage, ObligationKind.WINNER, GROUP, 7)
    (winner,) = await first.take_due()  # queued behind a long flood wait, say
    for _ in range(30):  # a minute of looks every 2 s
        clock[0] += 2
        assert await first.take_due() == [] and await second.take_due() == []
    clock[0] += LEASE_SECONDS  # then the first process dies: within one lease it is the second's
    assert await second.take_due() == [winner]


async def test_a_sent_announcement_is_owed_no_more_and_forgotten_in_time(storage):
    clock = [1000.0]
    outbox, other = (Outbox(storage, lambda: clock[0], holder) for holder in ("a", "b"))
    async with storage.transaction():
        owed = await outbox.owe(storage, ObligationKind.CARD, GROUP, 7, reply_to=70)
    (taken,) = await outbox.take_due()
    assert (taken.id, taken.reply_to) == (owed.id, 70)
    await outbox.settle(taken)
    outbox.give_back(taken)
    clock[0] += LEASE_SECONDS + 1  # long after any lease: still nobody sends it again
    assert await outbox.take_due() == [] and await other.take_due() == []
    assert await outbox.forget_sent(before=999.0) == 0  # kept a while, as history
    assert await outbox.forget_sent(before=clock[0]) == 1


async def test_a_look_says_what_is_due_and_renews_what_its_holder_holds(database):
    """The catch-up's first step: nothing due is the whole run; a look alone keeps a living
    holder's leases, and a challenge past its end is due for any process."""
    storage = await open_storage(database)
    clock = [1000.0]
    first, second = (Outbox(storage, lambda: clock[0], holder) for holder in ("a", "b"))
    challenges = ChallengeService(storage, ChatLocks(storage), lambda: clock[0], outbox=first)
    try:
        assert not await first.look() and not await second.look()
        challenge = await challenges.create(GROUP, "Owed", "en", 101, 4, 3600)
        assert challenge is not None
        for _ in range(30):  # its card waits a minute in the group's queue, say
            clock[0] += 2
            assert await first.look() and not await second.look()
        (card,) = await first.take_due()
        await first.settle(card)
        assert not await first.look() and not await second.look()
        clock[0] = challenge.ends_at
        assert await second.look(), "a challenge to end is due for whoever looks"
    finally:
        await storage.close()


async def test_looks_at_once_in_one_process_hand_each_announcement_out_once(database):
    """Handlers that each owed something, the catch-up and the reminders at midnight look at
    the same moment: every announcement is queued once, and no renewal meets another."""
    storage = await open_storage(database)
    outbox = Outbox(storage)
    challenges = ChallengeService(storage, ChatLocks(storage), outbox=outbox)
    try:
        for n in range(20):
            assert await challenges.create(GROUP - n, "Owed", "en", 101, 4, 3600) is not None
        handed = await asyncio.gather(*(outbox.take_due() for _ in range(10)))
        ids = [obligation.id for taken in handed for obligation in taken]
        assert len(ids) == 20 and len(set(ids)) == 20
    finally:
        await storage.close()
