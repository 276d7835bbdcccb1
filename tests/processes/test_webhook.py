"""Webhook mode: its settings, and the emulator delivering updates the way Telegram does."""

from __future__ import annotations

import asyncio
import socket
import sys

import pytest
from aiohttp import web

from bot.config import DEFAULT_WEBHOOK_PORT, ConfigError, load_config
from bot.emulator.webhook import SECRET_HEADER
from tests.support.harness import eventually
from tests.support.processes import ROOT, refused_setting

TOKEN = "123456:TEST-TOKEN-abcdefghijklmnopqrstuvwxyz"
SECRET = "s3cret_-token"


def env(**values: str) -> dict[str, str]:
    return {"TELEGRAM_BOT_TOKEN": TOKEN, **values}


def test_webhook_settings_come_from_the_environment():
    config = load_config(
        env(
            WEBHOOK_URL="https://bot.example.org/telegram/hook",
            WEBHOOK_SECRET=SECRET,
            PORT="8080",
            DATABASE_URL="postgresql://bot:pw@db.internal:5432/bot",
        )
    )
    assert config.webhook is not None
    assert (config.webhook.port, config.webhook.listen) == (8080, "0.0.0.0")
    assert config.webhook.path == "telegram/hook" and config.webhook.secret == SECRET
    assert config.database_url == "postgresql://bot:pw@db.internal:5432/bot"


def test_the_postgresql_pool_has_a_connection_for_each_update_telegram_sends_at_once():
    hook = {"WEBHOOK_URL": "https://b.example/h", "WEBHOOK_SECRET": "a"}
    config = load_config(env(**hook, WEBHOOK_MAX_CONNECTIONS="60"))
    assert config.webhook is not None and config.webhook.max_connections == 60
    assert config.database_pool_size > 60
    assert load_config(env(**hook)).webhook.max_connections == 40  # Telegram's default
    hosts = load_config(env(DATABASE_URL="postgresql://u@[::1]:5432,db2:6432/b"))
    assert hosts.database_url == "postgresql://u@[::1]:5432,db2:6432/b"  # libpq's host list


def test_without_webhook_settings_the_bot_polls_with_sqlite():
    config = load_config(env())
    assert config.webhook is None and config.database_url is None
    assert str(config.database) == "bot2048.sqlite3"
    defaults = load_config(env(WEBHOOK_URL="https://x.example/", WEBHOOK_SECRET="a"))
    assert defaults.webhook is not None and defaults.webhook.port == DEFAULT_WEBHOOK_PORT


@pytest.mark.parametrize(
    ("settings", "webhook", "message"),
    [
        ({}, True, "WEBHOOK_URL is not set"),
        ({"WEBHOOK_URL": "http://bot.example/hook", "WEBHOOK_SECRET": "a"}, False, "https://"),
        ({"WEBHOOK_URL": "https://bot.example/hook"}, False, "WEBHOOK_SECRET is not set"),
        (
            {"WEBHOOK_URL": "https://bot.example/hook", "WEBHOOK_SECRET": "no spaces"},
            False,
            "WEBHOOK_SECRET must be",
        ),
        (
            {"WEBHOOK_URL": "https://bot.example/hook", "WEBHOOK_SECRET": "a" * 257},
            False,
            "WEBHOOK_SECRET must be",
        ),
        (
            {"WEBHOOK_URL": "https://bot.example/h", "WEBHOOK_SECRET": "a", "PORT": "99999"},
            False,
            "PORT must be",
        ),
        ({"DATABASE_URL": "mysql://db/bot"}, False, "DATABASE_URL must be a PostgreSQL URL"),
        ({"DATABASE_URL": "postgresql://bot@db:port/bot"}, False, "DATABASE_URL has a port"),
        ({"DATABASE_URL": "postgresql://db:5432,db2:x/b"}, False, "DATABASE_URL has a port"),
        (
            {
                "WEBHOOK_URL": "https://b.example/h",
                "WEBHOOK_SECRET": "a",
                "WEBHOOK_MAX_CONNECTIONS": "0",
            },
            False,
            "WEBHOOK_MAX_CONNECTIONS must be",
        ),
        ({"TELEGRAM_RETRY_MAX_SECONDS": "soon"}, False, "TELEGRAM_RETRY_MAX_SECONDS must be"),
    ],
)
def test_malformed_settings_are_refused(settings, webhook, message):
    with pytest.raises(ConfigError, match=message):
        load_config(env(**settings), webhook=webhook)


@pytest.mark.parametrize(
    ("args", "settings", "message"),
    [
        (["--webhook"], {}, "WEBHOOK_URL is not set"),
        ([], {"WEBHOOK_URL": "https://bot.example/hook"}, "WEBHOOK_SECRET is not set"),
    ],
)
def test_webhook_mode_without_its_settings_is_one_clear_line_and_exit_code_2(
    args, settings, message
):
    assert message in refused_setting(args, {"PATH": "/usr/bin:/bin", **env(**settings)})


class Receiver:
    """A stand-in webhook server: records what arrives, answers with a scripted status."""

    def __init__(self) -> None:
        self.received: list[tuple[dict, str | None]] = []
        self.statuses: list[int] = []  # consumed one per request; 200 once empty
        self.delay = 0.0
        self.in_flight = 0
        self.most_in_flight = 0
        self.port = 0

    async def handle(self, request: web.Request) -> web.Response:
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            update = await request.json()
            self.received.append((update, request.headers.get(SECRET_HEADER)))
            await asyncio.sleep(self.delay)
            status = self.statuses.pop(0) if self.statuses else 200
            return web.Response(status=status)
        finally:
            self.in_flight -= 1


@pytest.fixture
async def receiver():
    target = Receiver()
    app = web.Application()
    app.router.add_post("/hook", target.handle)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    target.port = runner.addresses[0][1]
    yield target
    await runner.cleanup()


async def set_webhook(api, **params) -> None:
    await api.methods.call("setWebhook", {"url": "https://bot.example/hook", **params})


async def test_updates_are_posted_with_the_secret_in_order_per_chat_and_in_parallel_across_chats(
    api, receiver
):
    api.webhook_targets = [f"http://127.0.0.1:{receiver.port}/hook"]
    receiver.delay = 0.05
    for user in (1, 2, 3):
        api.add_user(user, f"U{user}")
    for n in range(3):
        for user in (1, 2, 3):
            api.send_text(user, user, f"{user}:{n}")
    await set_webhook(api, secret_token=SECRET, max_connections=2)
    await eventually(lambda: len(receiver.received) == 9 and not api.pending_updates)
    assert {secret for _, secret in receiver.received} == {SECRET}
    for user in (1, 2, 3):
        texts = [
            u["message"]["text"] for u, _ in receiver.received if u["message"]["chat"]["id"] == user
        ]
        assert texts == [f"{user}:{n}" for n in range(3)]
    assert receiver.most_in_flight == 2  # concurrent, up to max_connections, never more
    info = await api.methods.call("getWebhookInfo", {})
    assert info["pending_update_count"] == 0 and "last_error_date" not in info


async def test_a_failed_delivery_is_retried_and_reported(api, receiver):
    api.webhook_targets = [f"http://127.0.0.1:{receiver.port}/hook"]
    receiver.statuses = [403, 500]
    api.add_user(1, "U1")
    api.send_text(1, 1, "first")
    api.send_text(1, 1, "second")
    await set_webhook(api, secret_token=SECRET)
    await eventually(lambda: not api.pending_updates)
    texts = [u["message"]["text"] for u, _ in receiver.received]
    assert texts == ["first", "first", "first", "second"]  # the chat waits for its first update
    failures = [d for d in api.webhook_deliveries if not d.ok]
    assert [d.status for d in failures] == [403, 500]
    info = await api.methods.call("getWebhookInfo", {})
    assert "500" in info["last_error_message"] and info["last_error_date"] > 0


async def test_deliveries_go_round_robin_and_fail_over_to_a_live_target(api, receiver):
    dead = f"http://127.0.0.1:{receiver.port}/nothing-here"  # 404 from the receiver's server
    live = f"http://127.0.0.1:{receiver.port}/hook"
    api.webhook_targets = [live, dead]
    for user in range(1, 7):
        api.add_user(user, f"U{user}")
        api.send_text(user, user, "hi")
    await set_webhook(api)
    await eventually(lambda: not api.pending_updates)
    assert len(receiver.received) == 6
    assert {d.target for d in api.webhook_deliveries} == {live, dead}
    assert all(d.status == 404 for d in api.webhook_deliveries if d.target == dead)


async def test_polling_is_refused_while_a_webhook_is_set_and_works_again_after_deleting_it(api):
    await set_webhook(api)
    with pytest.raises(Exception, match="webhook is active"):
        await api.methods.call("getUpdates", {})
    await api.methods.call("deleteWebhook", {})
    assert await api.methods.call("getUpdates", {}) == []


async def _bot_on_postgres_at(api, port: int) -> asyncio.subprocess.Process:
    """`python -m bot` with a DATABASE_URL (password hunter2) on a local port."""
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        cwd=ROOT,
        env={
            "PATH": "/usr/bin:/bin",
            "TELEGRAM_BOT_TOKEN": api.token,
            "TELEGRAM_BASE_URL": api.base_url,
            "DATABASE_URL": f"postgresql://bot:hunter2@127.0.0.1:{port}/bot",
        },
        stderr=asyncio.subprocess.PIPE,
    )


async def test_an_unreachable_database_is_one_clear_line_and_exit_code_1(api):
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = await _bot_on_postgres_at(api, port)
    stderr = (await asyncio.wait_for(process.stderr.read(), timeout=60)).decode()
    assert await process.wait() == 1
    assert f"cannot open the database (PostgreSQL 127.0.0.1:{port}/bot)" in stderr
    assert len(stderr.strip().splitlines()) == 1 and "hunter2" not in stderr


def test_a_database_url_with_a_port_that_is_no_number_is_one_line_and_exit_code_2():
    url = "postgresql://bot:hunter2@db.internal:54x2/bot"
    stderr = refused_setting([], {"PATH": "/usr/bin:/bin", **env(DATABASE_URL=url)})
    assert "DATABASE_URL has a port that is not a number" in stderr and "hunter2" not in stderr


async def test_a_database_server_that_never_answers_is_one_line_and_exit_code_1(api):
    accepted: list[asyncio.StreamWriter] = []

    async def accept_and_say_nothing(_: asyncio.StreamReader, writer: asyncio.StreamWriter):
        accepted.append(writer)

    server = await asyncio.start_server(accept_and_say_nothing, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        process = await _bot_on_postgres_at(api, port)
        try:  # far sooner than asyncpg's own minute
            stderr = (await asyncio.wait_for(process.stderr.read(), timeout=30)).decode()
            code = await asyncio.wait_for(process.wait(), timeout=60)
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()
    finally:
        for writer in accepted:
            writer.close()
        server.close()
    assert code == 1 and accepted
    assert f"cannot open the database (PostgreSQL 127.0.0.1:{port}/bot)" in stderr
    assert "did not answer within" in stderr
    assert len(stderr.strip().splitlines()) == 1 and "hunter2" not in stderr
