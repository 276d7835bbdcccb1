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


def _pid_once_released(gate: str) -> int:
    """A job that runs until the file `gate` exists: as long as the test needs it to."""
    while not os.path.exists(gate):
        time.sleep(0.01)
    return os.getpid()


async def test_one_job_per_player_at_a_time(pool, tmp_path):
    gate = tmp_path / "release"
    first = asyncio.create_task(pool.run_alone(101, _pid_once_released, str(gate)))
    await asyncio.sleep(0)  # the job has started
    with pytest.raises(Busy):
        await pool.run_alone(101, _slow_pid, 0.0)
    assert await pool.run_alone(202, _slow_pid, 0.0) != os.getpid()  # others are not held up
    gate.touch()
    await first
    assert await pool.run_alone(101, _slow_pid, 0.0) != os.getpid()  # free again
