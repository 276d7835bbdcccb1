"""`bot2048 --playground` as a real process: as tidy as the bot about its database and log."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.support.processes import refused_at_start, start_playground, stop_cleanly

OPEN = "2048 playground: open "


async def refused(folder: Path, **env: str) -> str:
    """A playground that must stop at once: exit code 1, one line, no traceback."""
    stdout, stderr = await refused_at_start(await start_playground(folder, **env))
    assert OPEN not in stdout
    return stderr


async def test_a_second_playground_in_the_same_folder_is_one_line(tmp_path):
    first = await start_playground(tmp_path)  # at the default log level: INFO
    try:
        line = (await asyncio.wait_for(first.stdout.readline(), 60)).decode()
        assert line.startswith(OPEN), line
        assert (tmp_path / "playground.sqlite3").exists()  # where the README says
        message = await refused(tmp_path)
        assert "already using playground.sqlite3" in message
    except BaseException:
        first.kill()
        raise
    console = await stop_cleanly(first)
    assert "apscheduler" not in console, console  # the job queue's chatter stays out


async def test_a_damaged_database_is_one_line(tmp_path):
    damaged = tmp_path / "damaged.sqlite3"
    damaged.write_bytes(b"not a database, but forty bytes of text..")
    message = await refused(tmp_path, BOT_DATABASE=str(damaged))
    assert "is not a sound SQLite database" in message
