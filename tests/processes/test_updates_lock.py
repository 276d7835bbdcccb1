"""One poller per bot and database, for the poller's whole life: a PostgreSQL restart drops
the advisory lock with every session, and the poller takes it again as soon as the server is
back, so that a second poller started then is refused, as it is at any other time."""

from __future__ import annotations

import asyncio

import pytest

from tests.support.harness import User
from tests.support.processes import (
    PROCESS_TIMEOUT,
    bot_env,
    refused_at_start,
    spawn_bot,
    stop_cleanly,
)


async def said(process: asyncio.subprocess.Process, text: str) -> None:
    """Wait until the process logs a line with `text`."""
    assert process.stderr is not None
    async with asyncio.timeout(PROCESS_TIMEOUT):
        while text not in (await process.stderr.readline()).decode():
            assert process.returncode is None, "the bot process exited"


@pytest.mark.errors_expected  # the database's going away is logged at ERROR
@pytest.mark.parametrize("mode", ["fast", "immediate"])
async def test_a_poller_holds_its_lock_again_after_a_restart_and_a_second_is_refused(
    api, own_postgres, mode
):
    env = bot_env(api, own_postgres.url())
    first = await spawn_bot(env=env, stderr=asyncio.subprocess.PIPE)
    await api.wait_request("setMyCommands", timeout=PROCESS_TIMEOUT)
    await User(api, 101, "Anna").open_board()

    await own_postgres.restart(mode)
    await said(first, "updates lock on PostgreSQL")  # lost: taking it again
    await said(first, "is held again")
    second = await spawn_bot(env=env, stderr=asyncio.subprocess.PIPE)
    _, refusal = await refused_at_start(second)
    assert "another process of this bot already takes its updates" in refusal

    await User(api, 202, "Bob").open_board()  # the first poller serves on
    assert not api.find_requests("getUpdates", ok=False), "two pollers met at Telegram"
    await stop_cleanly(first)
