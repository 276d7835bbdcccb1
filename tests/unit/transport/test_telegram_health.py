"""Another process polling the same token: one line a minute with a count, and a counter."""

from __future__ import annotations

import logging

import pytest
from prometheus_client import REGISTRY

from bot.transport.telegram_health import TelegramHealth


def conflicts_counted() -> float:
    return REGISTRY.get_sample_value("bot2048_telegram_409_total") or 0.0


@pytest.mark.errors_expected
def test_a_conflict_every_few_seconds_is_one_line_a_minute_with_its_count(caplog):
    clock = [0.0]
    telegram = TelegramHealth(60.0, clock=lambda: clock[0])
    before = conflicts_counted()
    for _ in range(60):  # two and a half minutes of 409s, one every 2.5 s
        telegram.answered(409)
        clock[0] += 2.5
    lines = [r.getMessage() for r in caplog.records if r.name == "bot.transport.telegram_health"]
    assert len(lines) == 3, lines
    assert all(r.levelno == logging.ERROR and not r.exc_info for r in caplog.records)
    assert "another process polls this bot's token" in lines[0]
    assert lines[1].startswith("Telegram answered 409 Conflict 24 times in the last 60 s")
    assert lines[2].startswith("Telegram answered 409 Conflict 24 times in the last 60 s")
    assert conflicts_counted() - before == 60
