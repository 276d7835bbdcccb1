"""A repeating job that hangs is cancelled at its deadline, said once, and never piles up."""

from __future__ import annotations

import asyncio
import logging

from prometheus_client import REGISTRY

from bot.jobs import with_deadline


class Job:
    """A job whose runs hang until `hang` is cleared; counts the runs that began and ended."""

    def __init__(self) -> None:
        self.hang = True
        self.began = 0
        self.ended = 0
        self.cancelled = 0

    async def __call__(self, context: object) -> None:
        self.began += 1
        try:
            while self.hang:
                await asyncio.sleep(0.01)
        except asyncio.CancelledError:
            self.cancelled += 1
            raise
        self.ended += 1


def overruns(name: str) -> float:
    return REGISTRY.get_sample_value("bot2048_jobs_overrun_total", {"job": name}) or 0.0


async def test_overruns_are_cancelled_and_said_once_until_a_run_ends_in_time(caplog):
    caplog.set_level(logging.WARNING, logger="bot.jobs")
    job = Job()
    bounded = with_deadline("test-hang", job, deadline=0.05)
    for _ in range(4):
        await bounded(None)
        for _ in range(3):  # the scheduler's interval: the cancelled run winds down meanwhile
            await asyncio.sleep(0)
    assert job.began == job.cancelled == 4
    assert overruns("test-hang") == 4
    job.hang = False
    await bounded(None)
    assert job.ended == 1
    said = [r.getMessage() for r in caplog.records if r.name == "bot.jobs"]
    assert said == [
        "the test-hang job ran over its 0.05 s and was cancelled; it runs again as usual, "
        "and further overruns are counted in bot2048_jobs_overrun_total",
        "the test-hang job ends in time again",
    ]


async def test_a_run_that_comes_while_the_last_one_still_works_is_skipped():
    job = Job()
    bounded = with_deadline("test-busy", job, deadline=5.0)
    first = asyncio.ensure_future(bounded(None))
    while not job.began:
        await asyncio.sleep(0.01)
    await bounded(None)  # returns at once: the first run still works
    assert job.began == 1
    job.hang = False
    await first
    assert job.ended == 1
