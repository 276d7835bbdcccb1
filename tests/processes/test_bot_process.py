"""`python -m bot` as an operator runs it: --help and --version, configuration errors, a real
run, a clean stop."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from bot.__main__ import main
from bot.config import SETTINGS
from bot.emulator import FakeBotApi
from bot.services.workers import RENDERS_QUEUED
from bot.storage import open_storage
from tests.support.boards import grid
from tests.support.harness import User, eventually
from tests.support.processes import (
    PROCESS_TIMEOUT,
    PUBLIC_URL,
    ROOT,
    SECRET,
    free_port,
    refused_setting,
    spawn_bot,
    stop_cleanly,
)
from tests.support.replays import give_long_games


def _env(**values: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TELEGRAM_", "BOT_"))}
    env.update(values)
    return env


@pytest.mark.parametrize(
    ("token", "message"),
    [
        (
            None,
            "TELEGRAM_BOT_TOKEN is not set: get a token from @BotFather and set it (or try "
            "bot2048 --playground, which needs none).",
        ),
        (
            "not-a-token",
            "TELEGRAM_BOT_TOKEN does not look like a bot token (123456789:AbC...): copy it "
            "again, whole, from @BotFather.",
        ),
    ],
)
def test_a_missing_or_malformed_token_is_one_clear_line_and_exit_code_2(token, message):
    env = _env() if token is None else _env(TELEGRAM_BOT_TOKEN=token)
    assert refused_setting([], env) == f"bot2048: {message}\n"


async def _bot_on_sqlite(api, database: Path) -> asyncio.subprocess.Process:
    """`python -m bot` on a SQLite file against the emulator, as an operator starts it."""
    return await _bot_process(
        {
            "TELEGRAM_BOT_TOKEN": api.token,
            "TELEGRAM_BASE_URL": api.base_url,
            "BOT_DATABASE": str(database),
            "LOG_LEVEL": "WARNING",
        }
    )


async def test_the_bot_process_serves_players_and_stops_cleanly_on_sigterm(api, tmp_path):
    database = tmp_path / "bot.sqlite3"
    process = await _bot_on_sqlite(api, database)
    await api.wait_request("setMyCommands", timeout=PROCESS_TIMEOUT)
    anna = User(api, 101, "Anna", "de")
    board = await anna.open_board()
    assert "Punkte" in board.text and len(grid(board)) == 4
    _, board = await anna.tap(board, "🆕", edit=False)
    await stop_cleanly(process)
    with sqlite3.connect(database) as raw:
        assert raw.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert raw.execute("SELECT count(*) FROM games WHERE owner_id = 101").fetchone()[0] == 1


def test_help_names_the_command_the_way_it_was_typed(monkeypatch, capsys):
    done = subprocess.run(
        [sys.executable, "-m", "bot", "--help"],
        cwd=ROOT,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0 and done.stdout.startswith("usage: python -m bot [-h]")

    # The `bot2048` script that pip writes calls main() with its own path as argv[0].
    monkeypatch.setattr(sys, "argv", ["/somewhere/venv/bin/bot2048", "--help"])
    with pytest.raises(SystemExit) as stopped:
        main()
    assert stopped.value.code == 0
    assert capsys.readouterr().out.startswith("usage: bot2048 [-h]")


async def _a_bot_database(path: Path) -> bytes:
    """The bytes of a real bot database with a few hundred players in it, checkpointed."""
    store = await open_storage(path)
    try:
        async with store.transaction():
            for user_id in range(300):
                await store.remember_name(user_id, f"Player number {user_id} " * 3)
    finally:
        await store.close()
    return path.read_bytes()


def _damaged(data: bytes) -> bytes:
    """A valid header and first page, with pages further on overwritten by garbage."""
    page = 4096
    return data[: 3 * page] + b"\xff" * (4 * page) + data[7 * page :]


@contextlib.contextmanager
def _read_only(path: Path):
    """Make `path` unwritable for the bot, even when the tests run as root (chattr +i)."""
    if os.geteuid() != 0:
        path.chmod(0o444)
        yield
        return
    if subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode != 0:
        pytest.skip("running as root without chattr +i: no way to make a file read-only")
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(path)], check=True)


async def _outcome(process: asyncio.subprocess.Process) -> tuple[int, str]:
    """Wait for a bot process to end by itself: its exit code and its stderr."""
    try:
        stderr = (await asyncio.wait_for(process.stderr.read(), timeout=60)).decode()
        code = await asyncio.wait_for(process.wait(), timeout=PROCESS_TIMEOUT)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    return code, stderr


async def _refused_database(api, database: Path) -> str:
    """Run the bot on an unusable database: one line, exit code 1, no polling, no hang."""
    code, stderr = await _outcome(await _bot_on_sqlite(api, database))
    assert code == 1, stderr
    assert len(stderr.strip().splitlines()) == 1 and "Traceback" not in stderr, stderr
    assert not api.find_requests("getUpdates", ok=False)  # no conflict with another poller
    return stderr


@pytest.mark.parametrize("kind", ["garbage", "text", "truncated", "damaged"])
async def test_a_file_that_is_not_a_sound_database_is_one_line_and_exit_code_1(api, tmp_path, kind):
    database = tmp_path / "bot.sqlite3"
    if kind == "garbage":
        database.write_bytes(bytes(range(256)) * 64)
    elif kind == "text":
        database.write_text("players:\nAnna 2048\nBob 1024\n" * 100)
    else:
        data = await _a_bot_database(tmp_path / "good.sqlite3")
        database.write_bytes(data[: len(data) // 2] if kind == "truncated" else _damaged(data))
    before = database.read_bytes()
    stderr = await _refused_database(api, database)
    assert stderr.startswith(f"bot2048: {database} is not a sound SQLite database (")
    assert stderr.endswith("): restore it from a backup, or move it away to start afresh\n")
    assert not api.find_requests("getUpdates")
    assert database.read_bytes() == before  # refused, not "repaired"


async def test_a_read_only_database_is_refused_at_start(api, tmp_path):
    database = tmp_path / "bot.sqlite3"
    await _a_bot_database(database)
    with _read_only(database):
        stderr = await _refused_database(api, database)
    assert stderr.startswith(f"bot2048: {database} cannot be written (")
    assert stderr.endswith("): check the file's permissions\n")


async def test_a_second_process_on_the_same_sqlite_file_is_refused_in_one_line(api, tmp_path):
    database = tmp_path / "bot.sqlite3"
    env = _env(
        TELEGRAM_BOT_TOKEN=api.token,
        TELEGRAM_BASE_URL=api.base_url,
        BOT_DATABASE=str(database),
        LOG_LEVEL="WARNING",
    )
    first = await spawn_bot(env=env, stderr=asyncio.subprocess.PIPE)
    await api.wait_polling(after=0, timeout=PROCESS_TIMEOUT)
    stderr = await _refused_database(api, database)
    assert stderr == (
        f"bot2048: another bot process is already using {database}: stop it first, or give this "
        "one another BOT_DATABASE (one process per SQLite file)\n"
    )
    anna = User(api, 101, "Anna")
    board = await anna.open_board()  # the first process serves on, undisturbed
    assert len(grid(board)) == 4
    assert "Conflict" not in await stop_cleanly(first)


@pytest.mark.parametrize("link", ["symlink", "hard link", "relative path"])
async def test_a_second_process_on_another_name_for_the_same_file_is_refused(api, tmp_path, link):
    database = tmp_path / "bot.sqlite3"
    first = await _bot_on_sqlite(api, database)
    await api.wait_polling(after=0, timeout=30)
    other = tmp_path / "elsewhere" / "same.sqlite3"
    other.parent.mkdir()
    if link == "symlink":
        other.symlink_to(database)
    elif link == "hard link":
        other.hardlink_to(database)
    else:
        other = Path(os.path.relpath(database, ROOT))  # the bot runs in ROOT
    stderr = await _refused_database(api, other)
    assert stderr == (
        f"bot2048: another bot process is already using {other}: stop it first, or give this "
        "one another BOT_DATABASE (one process per SQLite file)\n"
    )
    assert "Conflict" not in await stop_cleanly(first)


async def _bot_process(env: dict[str, str]) -> asyncio.subprocess.Process:
    return await spawn_bot(env=_env(**env), stderr=asyncio.subprocess.PIPE)


@pytest.mark.parametrize("log_level", ["INFO", "DEBUG"])
async def test_a_refused_token_is_one_line_and_exit_code_2_and_never_logged(
    api, tmp_path, log_level
):
    revoked = "123456:REVOKED-abcdefghijklmnopqrstuvwxyz0123456789"
    process = await _bot_process(
        dict(
            TELEGRAM_BOT_TOKEN=revoked,
            TELEGRAM_BASE_URL=api.base_url,
            BOT_DATABASE=str(tmp_path / "bot.sqlite3"),
            LOG_LEVEL=log_level,
        )
    )
    stderr = (await asyncio.wait_for(process.stderr.read(), timeout=60)).decode()
    assert await process.wait() == 2, stderr
    assert api.find_requests("getMe", ok=False)[0].error_code == 401
    assert "REVOKED" not in stderr and "Traceback" not in stderr, stderr
    assert "bot2048: Telegram refused TELEGRAM_BOT_TOKEN (Unauthorized)" in stderr
    if log_level == "INFO":
        assert len(stderr.strip().splitlines()) == 1, stderr


@pytest.mark.parametrize("mode", ["polling", "webhook"])
async def test_a_token_revoked_while_running_ends_the_process_with_one_line_and_exit_2(
    api, tmp_path, mode
):
    database = tmp_path / "bot.sqlite3"
    env = {
        "TELEGRAM_BOT_TOKEN": api.token,
        "TELEGRAM_BASE_URL": api.base_url,
        "BOT_DATABASE": str(database),
        "LOG_LEVEL": "WARNING",
    }
    if mode == "webhook":
        port = free_port()
        env.update(WEBHOOK_URL=PUBLIC_URL, WEBHOOK_SECRET=SECRET, PORT=str(port))
        api.webhook_targets = [f"http://127.0.0.1:{port}/telegram"]
    process = await _bot_process(env)
    if mode == "webhook":
        await api.wait_request("setWebhook", timeout=30)
    else:
        await api.wait_polling(after=0, timeout=30)
    # The descriptions, set in the background, come last: no call of the start is cut short.
    await api.wait_request(
        "setMyShortDescription", language_code="de", after=0, timeout=PROCESS_TIMEOUT
    )
    anna = User(api, 101, "Anna")
    await anna.open_board()
    api.revoke_token()
    if mode == "webhook":  # the next call the bot makes meets the refusal
        api.send_text(101, 101, "/help")
    code, stderr = await _outcome(process)
    assert code == 2, stderr
    assert stderr.strip().splitlines() == [
        "bot2048: Telegram refused TELEGRAM_BOT_TOKEN (Unauthorized): it was revoked or is "
        "mistyped (or TELEGRAM_BASE_URL is wrong); @BotFather shows the current token."
    ], stderr
    # The database was closed: its last connection checkpointed the WAL and removed it.
    assert not database.with_name("bot.sqlite3-wal").exists()
    with sqlite3.connect(database) as raw:
        assert raw.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


async def test_sigterm_with_replays_queued_drops_them_and_exits_cleanly(api, tmp_path):
    database = tmp_path / "bot.sqlite3"
    players = range(1000, 1011)  # eleven replays of 1,000 moves: minutes of drawing
    await give_long_games(database, players)
    process = await _bot_on_sqlite(api, database)
    await api.wait_request("setMyCommands", timeout=30)
    for user_id in players:
        User(api, user_id, f"Player {user_id}")
        api.send_text(user_id, user_id, "/replay")
    # As many replays as the picture queue holds have begun ("sending a video" shows),
    # and every other player was told at once to come back in a minute.
    await eventually(
        lambda: (
            len(api.find_requests("sendChatAction")) == RENDERS_QUEUED
            and len(api.find_requests("sendMessage")) == len(players) - RENDERS_QUEUED
        ),
        timeout=60,
    )
    stderr = await stop_cleanly(process)  # within 30 s, exit code 0, no traceback
    assert "ERROR" not in stderr, stderr
    assert len(api.find_requests("sendAnimation")) <= 2  # at most what was being drawn


async def test_no_log_line_shows_the_token_even_with_every_request_logged(api, tmp_path):
    process = await _bot_process(
        dict(
            TELEGRAM_BOT_TOKEN=api.token,
            TELEGRAM_BASE_URL=api.base_url,
            BOT_DATABASE=str(tmp_path / "bot.sqlite3"),
            LOG_LEVEL="DEBUG",  # httpx logs each request's URL, python-telegram-bot its set-up
        )
    )
    await api.wait_request("setMyCommands", timeout=PROCESS_TIMEOUT)
    anna = User(api, 101, "Anna")
    await anna.tap(await anna.open_board(), "🆕", edit=False)
    stderr = await stop_cleanly(process)
    secret = api.token.partition(":")[2]
    assert secret not in stderr
    assert f"/bot{api.bot_id}:***/getUpdates" in stderr  # the URLs were logged, masked


async def test_telegram_unreachable_at_start_is_retried_until_it_answers(tmp_path):
    port = free_port()  # nothing listens here until the "network" comes up
    api = FakeBotApi()
    process = await _bot_process(
        dict(
            TELEGRAM_BOT_TOKEN=api.token,
            TELEGRAM_BASE_URL=f"http://127.0.0.1:{port}/bot",
            BOT_DATABASE=str(tmp_path / "bot.sqlite3"),
            LOG_LEVEL="WARNING",
            TELEGRAM_RETRY_MAX_SECONDS="1",
        )
    )
    try:
        lines = [
            (await asyncio.wait_for(process.stderr.readline(), timeout=PROCESS_TIMEOUT)).decode()
            for _ in range(3)
        ]
        for line in lines:
            assert f"Telegram is not reachable at http://127.0.0.1:{port}/bot" in line, lines
        await api.start(port=port)
        try:
            await api.wait_request("setMyCommands", timeout=PROCESS_TIMEOUT)
            anna = User(api, 101, "Anna")
            assert len(grid(await anna.open_board())) == 4
            stderr = await stop_cleanly(process)
        finally:
            await api.stop()
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    assert "not reachable" not in stderr  # no more retries once Telegram answered


def run_bot(option: str) -> str:
    """What `python -m bot <option>` prints, in an 80-column terminal."""
    done = subprocess.run(
        [sys.executable, "-m", "bot", option],
        cwd=ROOT,
        env={**os.environ, "COLUMNS": "80"},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return done.stdout


def test_help_lists_every_setting_under_its_group_with_its_default_and_an_example():
    shown = run_bot("--help")
    too_long = [line for line in shown.splitlines() if len(line) > 80]
    assert too_long == []
    assert "\n  TELEGRAM_BOT_TOKEN  required\n" in shown
    groups = shown.split("\n\n")
    for s in SETTINGS:
        (group,) = [g for g in groups if f"  {s.name}  " in g]
        assert group.startswith(f"{s.group} settings:\n")
        lines = group.splitlines()
        start = lines.index(
            f"  {s.name}  " + ("required" if s.required else f"default: {s.default or 'unset'}")
        )
        end = lines.index(f"      example: {s.name}={s.example}", start)
        # The meaning, wrapped under its setting, reads whole.
        meaning = lines[start + 1 : end]
        assert meaning and all(line.startswith("      ") for line in meaning)
        assert " ".join(line.strip() for line in meaning) == s.meaning
    # Each group once, in SETTINGS' order: an operator reads all of a part in one place.
    headings = [
        g.split("\n", 1)[0] for g in groups if g.endswith(" settings:") or " settings:\n" in g
    ]
    assert headings == [f"{g} settings:" for g in dict.fromkeys(s.group for s in SETTINGS)]


def test_version_is_the_package_version():
    from bot import __version__

    shown = run_bot("--version")
    assert shown.strip() == f"python -m bot {__version__}"
    assert re.fullmatch(r"\d+\.\d+\.\d+", __version__)
    assert f"## {__version__} " in (ROOT / "CHANGELOG.md").read_text()


async def _stderr_line(process: asyncio.subprocess.Process, text: str) -> str:
    """The first line of the process's stderr from here on that contains `text`."""
    assert process.stderr is not None
    while True:
        line = (await asyncio.wait_for(process.stderr.readline(), PROCESS_TIMEOUT)).decode()
        assert line, f"the process ended without saying {text!r}"
        if text in line:
            return line


async def test_a_long_flood_wait_on_the_menus_holds_up_neither_play_nor_a_stop(api, tmp_path):
    api.fail_next("setMyCommands", error_code=429, retry_after=120)
    process = await _bot_on_sqlite(api, tmp_path / "bot.sqlite3")
    line = await _stderr_line(process, "the private command menu (en)")
    assert "Telegram asks to wait 120 s" in line and "WARNING" in line
    anna = User(api, 101, "Anna")
    assert len(grid(await anna.open_board())) == 4  # /start answered during the wait
    # Well within the 120 s: SIGTERM ends the wait (the test's patience is 60 s).
    await stop_cleanly(process)
    assert not api.find_requests("setMyCommands", ok=True)


async def test_a_cosmetic_call_that_fails_or_is_refused_never_ends_the_process(api, tmp_path):
    api.fail_next("setMyDescription", error_code=500)
    api.fail_next("setMyShortDescription", "Bad Request: description is too long", 400)
    process = await _bot_on_sqlite(api, tmp_path / "bot.sqlite3")
    line = await _stderr_line(process, "the description (en)")
    assert "Internal Server Error" in line and "trying again in 1 s" in line
    line = await _stderr_line(process, "the short description (en)")
    assert "Telegram refused" in line and "Description is too long" in line
    await api.wait_request("setMyShortDescription", language_code="de", timeout=PROCESS_TIMEOUT)
    assert len(api.find_requests("setMyDescription", ok=True)) == 3  # English's, tried again
    anna = User(api, 101, "Anna")
    assert len(grid(await anna.open_board())) == 4
    assert process.returncode is None
    await stop_cleanly(process)
