"""One poller per bot and database, or webhook processes only, for the processes' whole life:
a PostgreSQL restart drops the advisory lock with every session, and each process takes it
again as soon as the server is back, so that a poller started then is refused, as it is at
any other time, and never removes the webhook."""

from __future__ import annotations

import asyncio

import asyncpg
import pytest

from tests.support.harness import User
from tests.support.pgserver import OwnPostgres
from tests.support.processes import (
    PROCESS_TIMEOUT,
    WebhookProcess,
    bot_env,
    refused_at_start,
    second_poller_refused,
    spawn_bot,
    stop_cleanly,
    terminate,
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
    env = bot_env(api, await own_postgres.fresh_url())
    first = await spawn_bot(env=env, stderr=asyncio.subprocess.PIPE)
    await api.wait_request("setMyCommands", timeout=PROCESS_TIMEOUT)
    await User(api, 101, "Anna").open_board()

    await own_postgres.restart(mode)
    await said(first, "updates lock on PostgreSQL")  # lost: taking it again
    await said(first, "is held again")
    second = await spawn_bot(env=env, stderr=asyncio.subprocess.PIPE)
    _, refusal = await refused_at_start(second)
    assert refusal == second_poller_refused(env["DATABASE_URL"])

    await User(api, 202, "Bob").open_board()  # the first poller serves on
    assert not api.find_requests("getUpdates", ok=False), "two pollers met at Telegram"
    await stop_cleanly(first)


async def shared_locks(server: OwnPostgres) -> int:
    """How many sessions hold an advisory lock shared: the webhook processes' updates locks."""
    connection = await asyncpg.connect(server.url())
    try:
        return await connection.fetchval(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND mode = 'ShareLock'"
        )
    finally:
        await connection.close()


@pytest.mark.errors_expected  # the database's going away is logged at ERROR
async def test_webhook_processes_hold_their_lock_again_so_no_poller_removes_the_webhook(
    api, own_postgres
):
    url = await own_postgres.fresh_url()
    webhook = WebhookProcess(api, url)
    await webhook.start()
    try:
        assert await shared_locks(own_postgres) == 1
        await own_postgres.restart("fast")
        deadline = asyncio.get_running_loop().time() + PROCESS_TIMEOUT
        while await shared_locks(own_postgres) != 1:  # taken again once the server is back
            assert asyncio.get_running_loop().time() < deadline, "the lock was not taken again"
            await asyncio.sleep(0.1)
        mark = api.mark()
        poller = await spawn_bot(env=bot_env(api, url), stderr=asyncio.subprocess.PIPE)
        _, refusal = await refused_at_start(poller)
        assert refusal == second_poller_refused(url)
        assert not api.find_requests("deleteWebhook", after=mark)
        assert webhook.process is not None and webhook.process.returncode is None
    finally:
        assert await webhook.stop() == 0


@pytest.mark.errors_expected  # the database's going away is logged at ERROR
async def test_a_second_poller_starting_during_a_restart_never_polls_beside_the_first(
    api, own_postgres
):
    """The second poller is on its way up as the server restarts, so it asks for the lock
    about when the first takes it again: whichever gets it polls, the other exits with
    code 1, and Telegram never sees two pollers."""
    env = bot_env(api, await own_postgres.fresh_url())
    first = await spawn_bot(env=env, stderr=asyncio.subprocess.PIPE)
    await api.wait_request("setMyCommands", timeout=PROCESS_TIMEOUT)
    await User(api, 101, "Anna").open_board()

    second = await spawn_bot(env=env, stderr=asyncio.subprocess.PIPE)
    await own_postgres.restart("fast")
    pair = {asyncio.ensure_future(p.wait()): p for p in (first, second)}
    done, _ = await asyncio.wait(pair, timeout=PROCESS_TIMEOUT, return_when="FIRST_COMPLETED")
    assert len(done) == 1, "neither poller gave way"
    (ended,) = (pair[task] for task in done)
    (survivor,) = (p for p in (first, second) if p is not ended)
    try:
        assert ended.returncode == 1
        assert survivor.returncode is None
        await User(api, 202, "Bob").open_board()  # the one left serves
        assert not api.find_requests("getUpdates", ok=False), "two pollers met at Telegram"
    finally:
        for task in pair:
            task.cancel()
        # Stopped, not `stop_cleanly`: the outage's own log lines are not this test's business.
        await terminate(survivor)
    assert survivor.returncode == 0
