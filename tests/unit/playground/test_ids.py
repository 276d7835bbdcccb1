"""The playground's ids: each run above the last, even a run that was killed."""

from __future__ import annotations

import json

from bot.emulator import FakeBotApi
from bot.playground.ids import clock_floor, lasting_ids, record_path

NEW_YEAR_2026 = 1_767_225_600.0


def test_without_a_record_ids_start_at_the_clock():
    later = clock_floor(NEW_YEAR_2026 + 3600)
    assert later["message"] == clock_floor(NEW_YEAR_2026)["message"] + 3600
    assert later["query"] == clock_floor(NEW_YEAR_2026)["query"] + 3600 * 1_000_000
    assert clock_floor(3_786_912_000)["message"] < 2**31  # 2090-01-01: still a 32-bit id
    assert clock_floor(0)["message"] == 1


def test_a_killed_run_leaves_a_record_above_every_id_it_handed_out(tmp_path):
    database = tmp_path / "playground.sqlite3"
    api = FakeBotApi(ids=lasting_ids(database, NEW_YEAR_2026))
    api.add_user(7, "Anna")
    sent = [api.send_text(7, 7, f"/start {n}")["message_id"] for n in range(2_500)]
    recorded = json.loads(record_path(database).read_text())
    assert recorded["message"] > max(sent)
    assert recorded["update"] > api.world.next_update_id - 1
    # No stop, no goodbye: the next run reads the record as the killed run left it.
    again = FakeBotApi(ids=lasting_ids(database, NEW_YEAR_2026))
    again.add_user(7, "Anna")
    assert again.send_text(7, 7, "/start")["message_id"] > max(sent)


def test_an_unreadable_record_falls_back_to_the_clock(tmp_path):
    database = tmp_path / "playground.sqlite3"
    record_path(database).write_text("{not json")
    ids = lasting_ids(database, NEW_YEAR_2026)
    assert ids.first("message") == clock_floor(NEW_YEAR_2026)["message"]
    assert json.loads(record_path(database).read_text())["message"] > ids.first("message")
