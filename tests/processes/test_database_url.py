"""A DATABASE_URL the bot cannot use, whichever part is wrong: one line naming the database
(never its password) and exit code 1, from a server of the test's own that asks for a
password, as a production server does."""

from __future__ import annotations

import asyncio

import pytest

from tests.support.pgserver import PASSWORD
from tests.support.processes import refused_at_start, spawn_bot


async def _refused(api, url: str) -> str:
    process = await spawn_bot(
        env={
            "PATH": "/usr/bin:/bin",
            "TELEGRAM_BOT_TOKEN": api.token,
            "TELEGRAM_BASE_URL": api.base_url,
            "DATABASE_URL": url,
        },
        stderr=asyncio.subprocess.PIPE,
    )
    _, stderr = await refused_at_start(process)
    assert PASSWORD not in stderr and "wrong-password" not in stderr, stderr
    return stderr


@pytest.mark.parametrize(
    ("wrong", "said"),
    [
        ({"password": "wrong-password"}, 'password authentication failed for user "postgres"'),
        ({"user": "nobody"}, 'password authentication failed for user "nobody"'),
        ({"database": "nowhere"}, 'database "nowhere" does not exist'),
    ],
    ids=["password", "user", "database"],
)
async def test_a_wrong_password_user_or_database_is_one_line(api, own_postgres, wrong, said):
    stderr = await _refused(api, own_postgres.url(**wrong))
    database = wrong.get("database", "bot2048_test")
    assert stderr.startswith(
        f"bot2048: cannot open the database (PostgreSQL 127.0.0.1:{own_postgres.port}/{database}): "
    )
    assert stderr.endswith(
        f"{said}; check the user, password, database and sslmode in DATABASE_URL\n"
    )


async def test_tls_asked_of_a_server_without_it_is_one_line(api, own_postgres):
    stderr = await _refused(api, own_postgres.url() + "?sslmode=require")
    assert stderr.endswith(
        "rejected SSL upgrade; check the user, password, database and sslmode in DATABASE_URL\n"
    )


async def test_a_host_that_does_not_exist_is_one_line(api):
    stderr = await _refused(api, f"postgresql://postgres:{PASSWORD}@db.invalid:5432/bot")
    assert stderr.startswith("bot2048: cannot open the database (PostgreSQL db.invalid:5432/bot): ")
    assert stderr.endswith(
        "; check the host and port in DATABASE_URL, and that the server is running\n"
    )
