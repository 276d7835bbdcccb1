"""What a real bot process's web server serves: /healthz and /metrics to the operator's
platform, the Mini App's page and API to players."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import socket

import aiohttp
import pytest
from prometheus_client.parser import text_string_to_metric_families

from bot.config import MINIAPP_PATH
from bot.emulator import FakeBotApi
from tests.support.boards import shown_moves
from tests.support.databases import stored_game
from tests.support.harness import User, eventually
from tests.support.miniapp import WEBAPP_URL, authorization, init_data
from tests.support.processes import (
    PROCESS_TIMEOUT,
    bot_env,
    free_port,
    refused_at_start,
    spawn_bot,
    stop_cleanly,
    terminate,
)


class WebProcess:
    """`python -m bot` polling the emulator, with its web server on a port of its own."""

    def __init__(self, api: FakeBotApi, database, **settings: str) -> None:
        self.port = free_port()
        self.env = bot_env(
            api, database, **{"PORT": str(self.port), "LISTEN": "127.0.0.1", **settings}
        )
        self.api = api
        self.process: asyncio.subprocess.Process | None = None

    def url(self, path: str, port: int | None = None, host: str = "127.0.0.1") -> str:
        return f"http://{host}:{port or self.port}{path}"

    async def __aenter__(self) -> WebProcess:
        polls = self.api.polls
        self.process = await spawn_bot(env=self.env, stderr=asyncio.subprocess.PIPE)
        # A long poll under way (beside another poller, it ends in a 409).
        await self.api.wait_polling(after=polls, timeout=30)
        return self

    async def __aexit__(self, *_: object) -> None:
        assert self.process is not None
        await terminate(self.process)

    async def get(
        self, path: str, port: int | None = None, host: str = "127.0.0.1"
    ) -> tuple[int, str]:
        async with (
            aiohttp.ClientSession() as session,
            session.get(self.url(path, port, host)) as response,
        ):
            return response.status, await response.text()

    async def first_answer(self, path: str) -> tuple[int, str]:
        """The answer to `path` as soon as the process listens (it may still be starting)."""
        deadline = asyncio.get_running_loop().time() + PROCESS_TIMEOUT
        while True:
            assert self.process is not None and self.process.returncode is None
            with contextlib.suppress(aiohttp.ClientConnectionError):
                return await self.get(path)
            assert asyncio.get_running_loop().time() < deadline, "the web server never listened"
            await asyncio.sleep(0.1)


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """The scraped samples by (name, labels)."""
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


async def test_metrics_count_what_players_did_and_health_is_ok(api, tmp_path):
    async with WebProcess(api, tmp_path / "bot.sqlite3") as bot:
        assert await bot.get("/healthz") == (200, "ok\n")
        anna = User(api, 101, "Anna")
        board = await anna.open_board()
        for label in ("⬅️", "➡️", "⬆️", "⬇️"):  # on a fresh board, one of them moves at least
            await anna.tap(board, label, edit=False)
        await eventually(lambda: shown_moves(anna.board().text) >= 1, timeout=10)
        api.send_text(anna.id, anna.id, "/replay")
        await api.wait_request("sendAnimation", chat_id=anna.id, timeout=60)
        status, text = await bot.get("/metrics")
        while samples(text).get(("bot2048_tap_to_edit_seconds_count", ()), 0) < 1:
            status, text = await bot.get("/metrics")  # the edit's end is counted just after it
    assert status == 200
    scraped = samples(text)
    assert scraped[("bot2048_updates_handled_total", (("kind", "message"),))] >= 1
    assert scraped[("bot2048_updates_handled_total", (("kind", "callback_query"),))] >= 1
    assert scraped[("bot2048_games_started_total", ())] == 1
    assert scraped[("bot2048_moves_applied_total", ())] >= 1
    assert scraped[("bot2048_tap_to_edit_seconds_count", ())] >= 1
    assert scraped[("bot2048_database_wait_seconds_count", ())] >= 1
    for gauge in ("bot2048_pacer_queued", "bot2048_pacer_longest_wait_seconds"):
        assert (
            gauge,
            (),
        ) in scraped  # their values: tests/unit/transport/test_pacer.py's backlog test
    assert scraped[("bot2048_render_seconds_count", (("kind", "replay"),))] == 1
    assert scraped[("bot2048_flood_waits", ())] == 0
    assert scraped[("bot2048_telegram_429_total", ())] == 0
    assert ("process_resident_memory_bytes", ()) in scraped
    assert api.token.partition(":")[2] not in text


async def test_metrics_can_be_switched_off_or_served_on_localhost_alone(api, tmp_path):
    async with WebProcess(api, tmp_path / "off.sqlite3", METRICS="off") as bot:
        assert (await bot.get("/metrics"))[0] == 404
        assert (await bot.get("/healthz"))[0] == 200
    own = free_port()
    async with WebProcess(api, tmp_path / "own.sqlite3", METRICS=f"127.0.0.1:{own}") as bot:
        assert (await bot.get("/metrics"))[0] == 404
        status, text = await bot.get("/metrics", port=own)
        assert status == 200 and "bot2048_updates_handled_total" in text


async def test_health_is_503_with_one_line_while_telegram_cannot_be_reached(tmp_path):
    api = FakeBotApi()
    await api.start()
    port = api.port
    try:
        async with WebProcess(api, tmp_path / "bot.sqlite3", TELEGRAM_RETRY_MAX_SECONDS="1") as bot:
            await api.stop()  # Telegram is gone: the long polls fail from now on
            status, text = 200, ""
            while status == 200:  # retried within limits at first, then 503
                status, text = await bot.get("/healthz")
                await asyncio.sleep(0.2)
            assert status == 503
            assert text.startswith("no answer from Telegram for ") and text.count("\n") == 1
            assert api.token.partition(":")[2] not in text and "127.0.0.1" not in text
            await api.start(port=port)
            while (await bot.get("/healthz"))[0] != 200:
                await asyncio.sleep(0.2)
    finally:
        with contextlib.suppress(Exception):
            await api.stop()


async def test_health_is_503_with_one_line_while_the_database_is_gone(api, proxied):
    proxy, url = proxied
    async with WebProcess(api, url) as bot:
        assert await bot.get("/healthz") == (200, "ok\n")
        proxy.cut()
        status, text = 200, ""
        while status == 200:  # the last answer is given again for up to a second
            status, text = await bot.get("/healthz")
            await asyncio.sleep(0.2)
        assert status == 503 and text.startswith("the database") and text.count("\n") == 1
        assert "127.0.0.1" not in text
        proxy.restore()
        while (await bot.get("/healthz"))[0] != 200:
            await asyncio.sleep(0.2)


async def test_a_real_bot_process_serves_the_mini_app_on_its_web_server(api, tmp_path, http):
    """`python -m bot` with WEBAPP_URL and PORT: the page and its API on the one web server."""
    anna = User(api, 101, "Anna")
    database = tmp_path / "bot.sqlite3"
    async with WebProcess(api, database, WEBAPP_URL=WEBAPP_URL) as bot:
        await anna.send("/help")
        status, html = await bot.get(f"{MINIAPP_PATH}/")
        assert status == 200 and "telegram-web-app.js" in html
        init = init_data(api.token, 101)
        async with http.post(
            bot.url(f"{MINIAPP_PATH}/api/open"), json={}, headers=authorization(init)
        ) as answer:
            assert answer.status == 200 and (await answer.json())["game"] is None
        async with http.post(
            bot.url(f"{MINIAPP_PATH}/api/new"), json={"size": 4}, headers=authorization(init)
        ) as answer:
            assert answer.status == 200
            opened = await answer.json()
        forged = authorization(init_data("1:" + "x" * 35, 101))
        async with http.post(
            bot.url(f"{MINIAPP_PATH}/api/open"), json={}, headers=forged
        ) as answer:
            assert answer.status == 401
    assert (await stored_game(database, 101, 101)).board == tuple(opened["board"])


async def test_health_answers_from_the_start_and_waits_for_telegram_with_the_rest_refused(
    tmp_path,
):
    port = free_port()  # nothing listens here until the "network" comes up
    api = FakeBotApi()
    bot = WebProcess(
        api,
        tmp_path / "bot.sqlite3",
        TELEGRAM_BASE_URL=f"http://127.0.0.1:{port}/bot",
        TELEGRAM_RETRY_MAX_SECONDS="1",
        WEBAPP_URL=WEBAPP_URL,
    )
    bot.process = await spawn_bot(env=bot.env, stderr=asyncio.subprocess.PIPE)
    try:
        answer = await bot.first_answer("/healthz")
        while answer == (503, "opening the database\n"):  # the SQLite file, a moment
            await asyncio.sleep(0.1)
            answer = await bot.get("/healthz")
        assert answer == (503, "waiting for Telegram\n")
        assert await bot.get(f"{MINIAPP_PATH}/") == (503, "waiting for Telegram\n")
        assert (await bot.get("/metrics"))[0] == 200
        await api.start(port=port)
        try:
            while await bot.get("/healthz") != (200, "ok\n"):
                await asyncio.sleep(0.2)
            assert (await bot.get(f"{MINIAPP_PATH}/"))[0] == 200
        finally:
            await api.stop()
    finally:
        await terminate(bot.process)


async def _says_it_opens_the_database(bot: WebProcess) -> None:
    """From its first answer: /healthz and the Mini App say what the process waits for, and
    /metrics is served all the same."""
    assert await bot.first_answer("/healthz") == (503, "opening the database\n")
    assert await bot.get(f"{MINIAPP_PATH}/") == (503, "opening the database\n")
    assert (await bot.get("/metrics"))[0] == 200


async def test_health_answers_while_a_database_that_never_answers_is_opened(api, proxied):
    """PostgreSQL swallowing every byte: /healthz says so from the start, until the process
    gives up with its one line."""
    proxy, url = proxied
    proxy.black_hole()
    bot = WebProcess(api, url, WEBAPP_URL=WEBAPP_URL)
    bot.process = await spawn_bot(env=bot.env, stderr=asyncio.subprocess.PIPE)
    try:
        await _says_it_opens_the_database(bot)
        _, stderr = await refused_at_start(bot.process)
    finally:
        await terminate(bot.process)
    assert stderr.startswith("bot2048: cannot open the database (PostgreSQL 127.0.0.1:")
    assert "the server did not answer within 5 s" in stderr


async def test_health_answers_while_a_slow_database_is_opened_then_says_ok(api, proxied):
    proxy, url = proxied
    proxy.delay = 0.5  # each way: every round trip of the opening takes a second
    bot = WebProcess(api, url, WEBAPP_URL=WEBAPP_URL)
    bot.process = await spawn_bot(env=bot.env, stderr=asyncio.subprocess.PIPE)
    try:
        await _says_it_opens_the_database(bot)
        proxy.delay = 0.0
        while await bot.get("/healthz") != (200, "ok\n"):
            await asyncio.sleep(0.2)
        assert (await bot.get(f"{MINIAPP_PATH}/"))[0] == 200
    finally:
        await terminate(bot.process)


async def test_sigterm_while_waiting_for_telegram_at_start_stops_the_process_cleanly(tmp_path):
    api = FakeBotApi()
    nowhere = f"http://127.0.0.1:{free_port()}/bot"  # nothing listens there
    env = bot_env(api, tmp_path / "bot.sqlite3", TELEGRAM_BASE_URL=nowhere)
    process = await spawn_bot(env=env, stderr=asyncio.subprocess.PIPE)
    assert process.stderr is not None
    line = await asyncio.wait_for(process.stderr.readline(), timeout=PROCESS_TIMEOUT)
    assert b"Telegram is not reachable" in line
    await stop_cleanly(process)


@pytest.mark.parametrize("settings", [{"WEBAPP_URL": WEBAPP_URL}, {"METRICS": "local"}])
async def test_with_a_public_address_metrics_are_served_to_this_machine_alone(
    api, tmp_path, settings
):
    async with WebProcess(api, tmp_path / "bot.sqlite3", **settings) as bot:
        assert (await bot.get("/metrics"))[0] == 200
        async with aiohttp.ClientSession() as session:
            for header in ("X-Forwarded-For", "Forwarded", "X-Real-IP"):
                forwarded = {header: "203.0.113.7"}
                async with session.get(bot.url("/metrics"), headers=forwarded) as response:
                    assert response.status == 403
                    assert await response.text() == (
                        "/metrics is served to this machine only (METRICS)\n"
                    )
        assert (await bot.get("/healthz"))[0] == 200


def _outside_address() -> str | None:
    """An address of this machine's other than loopback, which a peer on the network uses."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # no packet is sent: this only picks a route
        except OSError:
            return None
        address = probe.getsockname()[0]
    return None if address.startswith("127.") else address


async def test_a_peer_on_the_network_gets_metrics_only_when_told_to(api, tmp_path):
    address = _outside_address()
    if address is None:
        pytest.skip("this machine has no address but loopback")
    for metrics, status in (("", 403), ("on", 200)):
        settings = {"WEBAPP_URL": WEBAPP_URL, "LISTEN": "0.0.0.0", "METRICS": metrics}
        database = tmp_path / f"{metrics or 'unset'}.sqlite3"
        async with WebProcess(api, database, **settings) as bot:
            status_seen, _ = await bot.get("/metrics", host=address)
            assert status_seen == status


async def test_no_answer_names_the_server(api, tmp_path, http):
    async with WebProcess(api, tmp_path / "bot.sqlite3", WEBAPP_URL=WEBAPP_URL) as bot:
        for path in ("/healthz", "/metrics", f"{MINIAPP_PATH}/", "/nothing-here"):
            async with http.get(bot.url(path)) as response:
                assert response.status in (200, 404)
                assert "Server" not in response.headers, (path, response.headers)
        async with http.post(bot.url(f"{MINIAPP_PATH}/api/open"), data=b"{") as response:
            assert response.status >= 400
            assert "Server" not in response.headers


# 409s the two processes meet before they stop: one of them meets three at least, one more
# than the lines a process may log of them (the first at once, then one a minute).
CONFLICTS = 5


@pytest.mark.errors_expected
async def test_two_processes_polling_one_token_are_said_in_a_line_in_health_and_in_metrics(
    api, tmp_path
):
    first = WebProcess(api, tmp_path / "first.sqlite3")
    second = WebProcess(api, tmp_path / "second.sqlite3")  # another machine, its own file
    async with first, second:
        status, text = 200, ""
        while status == 200:
            status, text = await first.get("/healthz")
            await asyncio.sleep(0.2)
        assert (status, text) == (
            503,
            "another process polls this bot's token (409 Conflict from Telegram)\n",
        )
        scraped = samples((await first.get("/metrics"))[1])
        assert scraped[("bot2048_telegram_409_total", ())] >= 1
        while len(api.find_requests("getUpdates", ok=False)) < CONFLICTS:
            await asyncio.sleep(0.2)
        for bot in (first, second):
            assert bot.process is not None
            bot.process.send_signal(signal.SIGTERM)
        stderrs = []
        for bot in (first, second):
            assert bot.process is not None and bot.process.stderr is not None
            await asyncio.wait_for(bot.process.wait(), timeout=PROCESS_TIMEOUT)
            stderrs.append((await bot.process.stderr.read()).decode())
    for stderr in stderrs:
        assert "Traceback" not in stderr, stderr
        said = [line for line in stderr.splitlines() if "409 Conflict" in line]
        assert 1 <= len(said) <= 2, stderr  # the first at once, then one a minute
