"""`bot2048 --playground` as a real process: as tidy as the bot about its database and log."""

from __future__ import annotations

import asyncio
import re
import socket
import sys
from pathlib import Path

import pytest

from tests.support.playground import call
from tests.support.processes import (
    ROOT,
    playground_env,
    refused_at_start,
    start_playground,
    stop_cleanly,
)

OPEN = "2048 playground: open "


async def refused(folder: Path, **env: str) -> str:
    """A playground that must stop at once: exit code 1, one line, no traceback."""
    stdout, stderr = await refused_at_start(await start_playground(folder, **env))
    assert OPEN not in stdout
    return stderr


async def test_a_second_playground_in_the_same_folder_is_one_line(tmp_path):
    first = await start_playground(tmp_path)  # at the default log level: INFO
    line = (await asyncio.wait_for(first.stdout.readline(), 60)).decode()
    assert line.startswith(OPEN), line
    assert (tmp_path / "playground.sqlite3").exists()  # where the README says
    message = await refused(tmp_path)
    assert message == (
        "bot2048: another bot process is already using playground.sqlite3: stop it first, or "
        "give this one another BOT_DATABASE (one process per SQLite file)\n"
    )
    console = await stop_cleanly(first)
    assert "apscheduler" not in console, console  # the job queue's chatter stays out


async def test_a_damaged_database_is_one_line(tmp_path):
    damaged = tmp_path / "damaged.sqlite3"
    damaged.write_bytes(b"not a database, but forty bytes of text..")
    message = await refused(tmp_path, BOT_DATABASE=str(damaged))
    assert "is not a sound SQLite database" in message


async def test_python_m_bot_playground_serves_the_page_and_stops_on_sigterm(tmp_path, http):
    database = tmp_path / "playground.sqlite3"
    process = await start_playground(ROOT, BOT_DATABASE=str(database), LOG_LEVEL="WARNING")
    line = (await asyncio.wait_for(process.stdout.readline(), 30)).decode()
    found = re.fullmatch(
        r"2048 playground: open (http://127\.0\.0\.1:\d+/) \(Ctrl\+C to stop\)\n", line
    )
    assert found, line
    async with http.get(found.group(1)) as response:
        assert response.status == 200
        assert "<title>2048 playground</title>" in await response.text()
    state = await call(http, "GET", found.group(1) + "api/state")
    assert [p["first_name"] for p in state["players"]] == ["Anna", "Daan", "Lena"]
    await stop_cleanly(process)
    assert database.exists()


@pytest.mark.parametrize(
    ("args", "env", "message"),
    [
        (["--port", "9000"], {}, "--port only applies to --playground"),
        (
            ["--playground"],
            {"LOG_LEVEL": "LOUD"},
            "LOG_LEVEL is not DEBUG, INFO, WARNING, ERROR or CRITICAL: set one of them, or unset "
            "it for INFO.",
        ),
        (
            ["--playground", "--port", "{busy}"],
            {},
            "cannot listen on 127.0.0.1:{busy}: address already in use; pick another port with "
            "--port (--port 0 picks a free one)",
        ),
    ],
)
def test_playground_mistakes_are_one_line_and_exit_code_2(tmp_path, args, env, message):
    import subprocess

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = str(busy.getsockname()[1])
        done = subprocess.run(
            [sys.executable, "-m", "bot", *(a.replace("{busy}", port) for a in args)],
            cwd=ROOT,
            env=playground_env(BOT_DATABASE=str(tmp_path / "db.sqlite3"), **env),
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 2
    assert done.stderr == f"bot2048: {message.replace('{busy}', port)}\n" or (
        message.startswith("--") and f"error: {message}\n" in done.stderr
    )
    assert "Traceback" not in done.stderr
