"""The worker pool: jobs run in other processes, and a player gets one job at a time."""

from __future__ import annotations

import asyncio
import os
import time

import pytest

from bot.services.workers import Busy, WorkerPool


def _slow_pid(seconds: float) -> int:
    time.sleep(seconds)
    return os.getpid()


@pytest.fixture
def pool():
    workers = WorkerPool(workers=2)
    yield workers
    workers.close()


async def test_a_job_runs_in_another_process(pool):
    assert await pool.run(_slow_pid, 0.0) != os.getpid()


async def test_one_job_per_player_at_a_time(pool):
    first = asyncio.create_task(pool.run_alone(101, _slow_pid, 1.0))
    await asyncio.sleep(0.1)
    with pytest.raises(Busy):
        await pool.run_alone(101, _slow_pid, 0.0)
    assert await pool.run_alone(202, _slow_pid, 0.0) != os.getpid()  # others are not held up
    await first
    assert await pool.run_alone(101, _slow_pid, 0.0) != os.getpid()  # free again
