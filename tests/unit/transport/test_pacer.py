"""The Pacer: each chat's queue in order, redraws coalesced, within the chat's budget."""

from __future__ import annotations

import asyncio
import itertools
import time

from telegram.error import RetryAfter

from bot.config import Pace
from bot.transport.pacer import Pacer

FAST = Pace(burst=3, private_per_second=20, group_per_minute=600, recovery=0.6)
# A drain that gives up only if something is broken: its jobs are due at once, or soon.
DRAIN = 30.0


async def test_requests_made_while_an_edit_is_on_its_way_coalesce_into_one_more_edit():
    pacer = Pacer(None)
    drawn: list[str] = []
    edit_on_its_way = asyncio.Event()

    def draw(name: str):
        async def run() -> None:
            drawn.append(name)
            if name == "first":
                await edit_on_its_way.wait()

        return run

    pacer.edit(1, 10, draw("first"))
    await asyncio.sleep(0)
    for name in ("second", "third"):
        pacer.edit(1, 10, draw(name))
    edit_on_its_way.set()
    await pacer.drain(timeout=DRAIN)
    assert drawn == ["first", "third"]


async def test_a_draw_asking_to_run_again_keeps_a_newer_waiting_request():
    pacer = Pacer(None)
    drawn: list[str] = []

    async def stale() -> None:
        drawn.append("stale")
        pacer.edit(1, 10, newer)  # a tap came in while this edit was on its way
        pacer.edit(1, 10, stale_again, replace=False)

    async def newer() -> None:
        drawn.append("newer")

    async def stale_again() -> None:
        drawn.append("stale again")

    pacer.edit(1, 10, stale)
    await pacer.drain(timeout=DRAIN)
    assert drawn == ["stale", "newer"]


async def test_posts_keep_their_order_and_a_waiting_redraw_keeps_its_place():
    pacer = Pacer(None)
    sent: list[str] = []

    def job(name: str):
        async def run() -> None:
            sent.append(name)

        return run

    pacer.post(1, job("welcome"))
    pacer.edit(1, 10, job("board, first request"))
    pacer.post(1, job("reply"))
    pacer.edit(1, 10, job("board, latest request"))
    pacer.post(2, job("another chat"))
    await pacer.drain(timeout=DRAIN)
    assert [name for name in sent if name != "another chat"] == [
        "welcome",
        "board, latest request",
        "reply",
    ]
    assert "another chat" in sent


async def test_a_chat_gets_its_burst_then_its_pace_and_other_chats_never_wait():
    pacer = Pacer(FAST)
    taken: dict[str, float] = {}

    async def take(chat_id: int, name: str) -> None:
        await pacer.take(chat_id)
        taken[name] = time.monotonic()

    start = time.monotonic()
    group = [asyncio.create_task(take(-100, f"group {i}")) for i in range(6)]
    await asyncio.sleep(0)
    await take(5, "private")
    await asyncio.gather(*group)
    last = max(taken[f"group {i}"] for i in range(6))
    assert taken["private"] < last  # not queued behind the group
    assert last - start >= 0.29  # three at once, then one every 0.1 s


async def test_a_flood_wait_holds_back_only_its_chat_and_its_jobs_run_again_afterwards():
    pacer = Pacer(FAST)
    shown: list[tuple[str, float]] = []
    saved = {"moves": 1}
    start = time.monotonic()

    async def draw() -> None:
        await pacer.take(1)  # what the rate limiter does for the edit
        if len(shown) == 0 and pacer.in_job():
            shown.append(("refused", time.monotonic() - start))
            pacer.flood_wait(1, 0.3)  # what the rate limiter does on a 429
            raise RetryAfter(1)
        shown.append((f"{saved['moves']} moves", time.monotonic() - start))

    async def elsewhere() -> None:
        shown.append(("other chat", time.monotonic() - start))

    pacer.edit(1, 10, draw)
    await asyncio.sleep(0.05)
    assert 0 < pacer.held_back(1) <= 0.3 and pacer.held_back(2) == 0
    saved["moves"] = 3  # taps go on during the wait
    pacer.edit(2, 20, elsewhere)
    await pacer.drain(timeout=DRAIN)
    # The other chat did not wait; the board waited, then showed the latest state.
    assert [what for what, _ in shown] == ["refused", "other chat", "3 moves"]
    assert shown[2][1] >= 0.3


async def test_after_a_flood_wait_the_chat_goes_slower_with_no_burst():
    pacer = Pacer(FAST)
    pacer.flood_wait(1, 0.1)
    done: list[int] = []

    async def three_takes(chat_id: int) -> None:
        for _ in range(3):
            await pacer.take(chat_id)
        done.append(chat_id)

    start = time.monotonic()
    await asyncio.gather(three_takes(1), three_takes(2))
    assert done == [2, 1]  # the other chat kept its burst and did not wait
    # The wait, then half the pace with no burst: one every 0.1 s instead of three at once.
    assert time.monotonic() - start >= 0.1 + 2 * 0.1 - 0.01


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def test_a_slowed_chat_recovers_step_by_step_and_others_are_never_slowed():
    clock = Clock()
    pacer = Pacer(FAST, clock=clock)
    pacer.flood_wait(1, 0.5)
    pacer.flood_wait(1, 0.5)  # a second 429 halves it again
    assert (pacer.held_back(1), pacer.pace_factor(1), pacer.pace_factor(2)) == (0.5, 0.25, 1)
    clock.now += FAST.recovery
    assert (pacer.held_back(1), pacer.pace_factor(1)) == (0, 0.5)
    for _ in range(3):
        pacer.flood_wait(1, 1)
    assert pacer.pace_factor(1) == FAST.slowest  # never slower than that
    clock.now += 10 * FAST.recovery
    assert pacer.pace_factor(1) == 1


async def test_a_card_is_edited_at_most_once_per_interval_with_the_latest_standings():
    clock = Clock()  # the interval is on the pacer's clock, which only the test moves
    pacer = Pacer(None, clock=clock)
    edits: list[tuple[int, float]] = []
    standings = {"players": 0}

    async def draw() -> None:
        edits.append((standings["players"], clock.now))

    for _ in range(3):
        for _ in range(10):
            standings["players"] += 1
            pacer.edit(-100, 7, draw, every=0.2)
            await asyncio.sleep(0.01)
        clock.now += 0.1
    clock.now += 0.2  # the last request's turn has come
    async with asyncio.timeout(DRAIN):
        while edits[-1][0] != 30:
            await asyncio.sleep(0.05)
    shown = [players for players, _ in edits]
    assert shown[0] == 1 and shown[-1] == 30 and len(shown) < 10  # coalesced, ends up to date
    assert all(b[1] - a[1] >= 0.2 - 1e-9 for a, b in itertools.pairwise(edits))


async def test_shutdown_gives_up_on_what_would_only_go_out_after_it():
    pacer = Pacer(FAST)
    sent: list[int] = []

    def job(chat_id: int):
        async def run() -> None:
            await pacer.take(chat_id)
            sent.append(chat_id)

        return run

    pacer.flood_wait(1, 600)
    pacer.post(1, job(1))
    pacer.edit(-100, 7, job(-100), every=600)
    await asyncio.sleep(0.05)
    for _ in range(2):
        await pacer.take(-100)  # the group's burst is spent: its queue waits for a token
    pacer.edit(-100, 7, job(-100), every=600)  # a card waiting out its interval
    pacer.post(2, job(2))
    await asyncio.sleep(0)
    group = pacer._queues._workers[-100]
    start = time.monotonic()
    await pacer.drain(timeout=30)
    assert time.monotonic() - start < 30  # neither the flood wait nor the card waited for
    assert sorted(sent) == [-100, 2]
    assert group.cancelled() or group.exception() is None  # its emptied queue is no error


async def test_the_backlog_counts_what_waits_and_how_long_the_oldest_has():
    now = [100.0]
    pacer = Pacer(Pace(burst=1, private_per_second=1), clock=lambda: now[0])
    release = asyncio.Event()

    async def held() -> None:
        await release.wait()

    async def quick() -> None:
        pass

    assert pacer.backlog() == (0, 0.0) and pacer.flood_waits() == 0
    pacer.post(1, held)  # runs at once, and holds its chat's queue
    await asyncio.sleep(0)
    pacer.edit(1, 10, quick)
    now[0] = 103.0
    pacer.edit(1, 10, quick)  # replaces the waiting redraw, which keeps its age
    pacer.post(2, held)
    await asyncio.sleep(0)
    pacer.post(2, quick)
    assert pacer.backlog() == (2, 3.0)
    pacer.flood_wait(3, 30)
    now[0] = 110.0
    assert pacer.flood_waits() == 1
    now[0] = 140.0
    assert pacer.flood_waits() == 0
    release.set()
    await pacer.drain(timeout=1)
