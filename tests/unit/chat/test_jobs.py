"""A job past its limit is cut off and said once; the next run starts afresh."""

from __future__ import annotations

import asyncio
import logging
from types import SimpleNamespace

import pytest

from bot.chat.jobs import bounded


async def test_a_hanging_job_is_cut_off_each_turn_and_said_once_until_it_keeps_time(caplog):
    caplog.set_level(logging.WARNING)
    database_back = asyncio.Event()
    runs: list[str] = []

    async def catch_up(_: object) -> None:
        runs.append("started")
        await database_back.wait()
        runs.append("done")

    job = bounded(catch_up, 0.05)
    context = SimpleNamespace(job=SimpleNamespace(name="catch-up"))
    for _ in range(3):
        await asyncio.wait_for(job(context), timeout=30)  # returns, cut off, every time
    database_back.set()
    await job(context)
    await job(context)

    assert runs == ["started"] * 4 + ["done", "started", "done"]
    said = [r.getMessage() for r in caplog.records]
    assert said == [
        "job catch-up took longer than 0.05 s: cut off, and run again at its next turn",
        "job catch-up keeps its time again",
    ]


async def test_a_timeout_of_the_job_s_own_is_its_error_not_a_cut_off():
    async def gives_up(_: object) -> None:
        raise TimeoutError("Telegram did not answer")

    job = bounded(gives_up, 30)
    with pytest.raises(TimeoutError, match="Telegram did not answer"):
        await job(SimpleNamespace(job=SimpleNamespace(name="end-1")))
