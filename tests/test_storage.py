"""Storage and the game service on real SQLite files: what survives, what is counted."""

from __future__ import annotations

import sqlite3
from dataclasses import replace

import pytest

import engine
from bot.games import GameService, TapStatus
from bot.storage import SCHEMA_VERSION, Storage


class Clock:
    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        self.now += 2.0
        return self.now


@pytest.fixture
async def storage(tmp_path):
    store = await Storage.open(tmp_path / "bot.sqlite3")
    yield store
    await store.close()


def service(storage: Storage, seed: int = 7) -> GameService:
    return GameService(storage, clock=Clock(), new_seed=lambda: seed)


async def _valid_move(svc: GameService, chat: int, game_id: int) -> str:
    for direction in engine.DIRECTIONS:
        result = await svc.tap(chat, chat, game_id, direction)
        if result.changed:
            return direction
    raise AssertionError("no valid move")


async def test_schema_is_migrated_and_wal_is_on(tmp_path):
    path = tmp_path / "bot.sqlite3"
    store = await Storage.open(path)
    assert await store.schema_version() == SCHEMA_VERSION
    await store.close()
    with sqlite3.connect(path) as raw:
        assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert raw.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


async def test_a_newer_schema_is_refused(tmp_path):
    path = tmp_path / "bot.sqlite3"
    with sqlite3.connect(path) as raw:
        raw.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(RuntimeError, match="newer"):
        await Storage.open(path)


async def test_games_survive_reopening_the_database(tmp_path):
    path = tmp_path / "bot.sqlite3"
    store = await Storage.open(path)
    svc = service(store)
    stored = await svc.start(10, 10, 5)
    await _valid_move(svc, 10, stored.id)
    await _valid_move(svc, 10, stored.id)
    before = (await store.active_game(10, 10)).game
    await store.close()

    reopened = await Storage.open(path)
    after = await reopened.active_game(10, 10)
    await reopened.close()
    assert after is not None and after.game == before and after.game.moves == 2


async def test_a_new_game_replaces_the_running_one_and_counts_it(storage):
    svc = service(storage)
    first = await svc.start(10, 10, 4)
    await _valid_move(svc, 10, first.id)
    second = await svc.start(10, 10, 4)
    assert (await storage.active_game(10, 10)).id == second.id
    assert (await svc.tap(10, 10, first.id, "left")).status is TapStatus.OLD_GAME
    records = await storage.records(10)
    assert records[4].games_played == 1  # the unplayed second game does not count yet


async def test_taps_on_other_players_and_unknown_games_change_nothing(storage):
    svc = service(storage)
    mine = await svc.start(-100, 1, 4)
    assert (await svc.tap(-100, 2, mine.id, "left")).status is TapStatus.NOT_YOURS
    assert (await svc.tap(-100, 1, mine.id + 99, "left")).status is TapStatus.UNKNOWN_GAME
    assert (await svc.tap(-200, 1, mine.id, "left")).status is TapStatus.UNKNOWN_GAME
    assert (await storage.game(mine.id)).game == mine.game


async def test_records_keep_best_score_highest_tile_and_one_win_per_game(storage):
    svc = service(storage)
    stored = await svc.start(10, 10, 4)
    one_merge_from_win = replace(
        stored.game, board=(1024, 1024, 0, 0, 2, 0, 0, 0) + (0,) * 8, score=19_000, moves=800
    )
    async with storage.transaction():
        await storage.update_game(stored, one_merge_from_win, 0.0, played_counted=False)
    won = await svc.tap(10, 10, stored.id, "left")
    assert won.outcome is engine.Outcome.WON
    await svc.tap(10, 10, stored.id, "undo")
    again = await svc.tap(10, 10, stored.id, "left")
    assert again.outcome is engine.Outcome.WON
    record = (await storage.records(10))[4]
    assert record.games_won == 1
    assert record.games_played == 1
    assert record.best_score == 19_000 + 2048
    assert record.highest_tile == 2048
    assert record.fewest_moves_to_win == 801
    assert record.fastest_win_seconds is not None
