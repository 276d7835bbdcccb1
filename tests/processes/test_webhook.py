"""`python -m bot` refusing what it cannot run: webhook mode without its settings, a database
URL it cannot use, a database server that is not there or never answers."""

from __future__ import annotations

import asyncio
import socket

import pytest

from tests.support.processes import refused_setting, spawn_bot

TOKEN = "123456:TEST-TOKEN-abcdefghijklmnopqrstuvwxyz"


@pytest.mark.parametrize(
    ("args", "settings", "message"),
    [
        (
            ["--webhook"],
            {},
            "WEBHOOK_URL is not set: webhook mode needs the public https:// URL Telegram posts "
            "updates to; set it, or leave out --webhook to poll.",
        ),
        (
            [],
            {"WEBHOOK_URL": "https://bot.example/hook"},
            "WEBHOOK_SECRET is not set: webhook mode needs one; set it to 1-256 characters of "
            "A-Z, a-z, 0-9, _ and -, such as the output of openssl rand -hex 32.",
        ),
    ],
)
def test_webhook_mode_without_its_settings_is_one_clear_line_and_exit_code_2(
    args, settings, message
):
    assert refused_setting(
        args, {"PATH": "/usr/bin:/bin", "TELEGRAM_BOT_TOKEN": TOKEN, **settings}
    ) == (f"bot2048: {message}\n")


async def _bot_on_postgres_at(api, port: int) -> asyncio.subprocess.Process:
    """`python -m bot` with a DATABASE_URL (password hunter2) on a local port."""
    return await spawn_bot(
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
    assert stderr == (
        f"bot2048: cannot open the database (PostgreSQL 127.0.0.1:{port}/bot): connection "
        "refused; check the host and port in DATABASE_URL, and that the server is running\n"
    )


def test_a_database_url_with_a_port_that_is_no_number_is_one_line_and_exit_code_2():
    url = "postgresql://bot:hunter2@db.internal:54x2/bot"
    stderr = refused_setting(
        [], {"PATH": "/usr/bin:/bin", "TELEGRAM_BOT_TOKEN": TOKEN, "DATABASE_URL": url}
    )
    assert stderr == (
        "bot2048: DATABASE_URL has a port that is not a number from 1 to 65535 ('54x2'): fix "
        "the port after the host.\n"
    )


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
    assert stderr == (
        f"bot2048: cannot open the database (PostgreSQL 127.0.0.1:{port}/bot): the server did "
        "not answer within 5 s; check the host and port in DATABASE_URL, and that the server "
        "is running\n"
    )
