"""The worker pool: jobs run in other processes, and a player gets one job at a time."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from pathlib import Path

import pytest

from bot.services.workers import RENDERS_QUEUED, Busy, Crowded, WorkerPool
from tests.support.harness import eventually


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


def test_a_full_picture_queue_turns_the_next_player_away_at_once(pool):
    slots = [pool.claim(player) for player in range(RENDERS_QUEUED)]
    assert pool.crowded()
    with pytest.raises(Crowded):
        pool.claim(RENDERS_QUEUED)
    with pytest.raises(Busy):
        pool.claim(0)  # one picture per player, whether the queue is full or not
    slots[0].release()
    assert not pool.crowded()
    with pool.claim(RENDERS_QUEUED):
        assert pool.crowded()
    assert not pool.crowded()  # the `with` block gave its place back


def _pid_announced(started: str, gate: str) -> int:
    """Write this worker's pid to `started`, then run until `gate` exists."""
    with open(started + ".tmp", "w") as file:
        file.write(str(os.getpid()))
    os.rename(started + ".tmp", started)
    return _pid_once_released(gate)


def _gone(pid: int) -> bool:
    """No such process, or one that has exited and waits to be reaped (a zombie)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] == "Z"


async def test_a_stop_cancels_what_waits_and_ends_what_still_runs_after_its_grace(tmp_path):
    pool = WorkerPool(workers=1)
    started, gate = tmp_path / "started", tmp_path / "never"
    running = asyncio.ensure_future(pool.run(_pid_announced, str(started), str(gate)))
    waiting = asyncio.ensure_future(pool.run(_slow_pid, 0.0))
    await eventually(started.exists)
    await pool.stop(grace=0.1)
    for job in (running, waiting):
        with pytest.raises(asyncio.CancelledError):
            await job
    with pytest.raises(asyncio.CancelledError):
        await pool.run(_slow_pid, 0.0)  # stopped: no new work either
    worker = int(started.read_text())
    await eventually(lambda: _gone(worker))


# A process with a pool whose workers have all started: it writes the pids of its hint worker
# and its picture worker to the file it is given, then waits.
_POOL_OWNER = """
import asyncio, os, sys
from bot.services.workers import WorkerPool

async def main():
    pool = WorkerPool(workers=1)
    pids = [await pool.run(os.getpid), await pool.render(1, os.getpid)]
    with open(sys.argv[1] + ".tmp", "w") as file:
        file.write(" ".join(map(str, pids)))
    os.rename(sys.argv[1] + ".tmp", sys.argv[1])
    await asyncio.sleep(3600)

asyncio.run(main())
"""


async def test_the_workers_end_with_a_killed_bot(tmp_path):
    """A bot killed outright (SIGKILL, out of memory) cannot stop its pools: its workers must
    not live on, each holding a core's worth of imports, waiting for work that never comes."""
    written = tmp_path / "pids"
    owner = await asyncio.create_subprocess_exec(
        sys.executable, "-c", _POOL_OWNER, str(written), stdout=asyncio.subprocess.DEVNULL
    )
    try:
        await eventually(written.exists, timeout=60)
        pids = [int(pid) for pid in written.read_text().split()]
        assert len({owner.pid, *pids}) == 3  # a hint worker and a picture worker of its own
        assert not any(_gone(pid) for pid in pids)
    finally:
        owner.send_signal(signal.SIGKILL)
        await owner.wait()
    await eventually(lambda: all(_gone(pid) for pid in pids))
