"""The playground's server: message ids that no later run reuses."""

from __future__ import annotations

from bot.playground.server import first_message_id


def test_each_run_starts_its_message_ids_above_the_last_runs():
    new_year_2026 = 1_767_225_600
    assert first_message_id(new_year_2026 + 3600) == first_message_id(new_year_2026) + 3600
    assert first_message_id(3_786_912_000) < 2**31  # 2090-01-01: still a 32-bit id
    assert first_message_id(0) == 1
