"""`python -m bot` as an operator runs it: configuration errors, a real run, a clean stop."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import subprocess
import sys

import pytest

from bot.__main__ import main
from tests.support.boards import grid
from tests.support.harness import User
from tests.support.processes import ROOT, refused_setting, stop_cleanly


def _env(**values: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TELEGRAM_", "BOT_"))}
    env.update(values)
    return env


@pytest.mark.parametrize(
    ("token", "message"),
    [(None, "TELEGRAM_BOT_TOKEN is not set"), ("not-a-token", "does not look like a bot token")],
)
def test_a_missing_or_malformed_token_is_one_clear_line_and_exit_code_2(token, message):
    env = _env() if token is None else _env(TELEGRAM_BOT_TOKEN=token)
    assert message in refused_setting([], env)


async def test_the_bot_process_serves_players_and_stops_cleanly_on_sigterm(api, tmp_path):
    database = tmp_path / "bot.sqlite3"
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        cwd=ROOT,
        env=_env(
            TELEGRAM_BOT_TOKEN=api.token,
            TELEGRAM_BASE_URL=api.base_url,
            BOT_DATABASE=str(database),
            LOG_LEVEL="WARNING",
        ),
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        await api.wait_request("setMyCommands", timeout=30)
        anna = User(api, 101, "Anna", "de")
        board = await anna.open_board()
        assert "Punkte" in board.text and len(grid(board)) == 4
        _, board = await anna.tap(board, "🆕", edit=False)
    except BaseException:
        process.kill()
        raise
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
