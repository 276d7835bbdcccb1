"""The daily as tests drive it: a clock moved past midnight, and a daily played to its end."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime

import engine
from bot.emulator import FakeBotApi, StoredMessage
from bot.models import Daily
from bot.services.daily import DAY_SECONDS, DailyService
from bot.storage import Storage, open_storage
from tests.support.boards import button_data
from tests.support.databases import Database
from tests.support.harness import RunningBot, User

THROTTLED = "Whoa, too fast for me! Try again in a moment."
_ARROWS = {"left": "⬅️", "up": "⬆️", "right": "➡️", "down": "⬇️"}


class DayClock:
    """The daily's clock: time.time() until the test moves it on to another day."""

    def __init__(self) -> None:
        self.offset = 0.0

    def __call__(self) -> float:
        return time.time() + self.offset

    def day(self) -> str:
        """The UTC day it is on this clock, as the daily names it ("2026-12-02")."""
        return datetime.fromtimestamp(self(), UTC).date().isoformat()

    def next_day(self, after: float = 1.0) -> float:
        """Jump to `after` seconds past the next midnight (UTC); that midnight."""
        now = self()
        midnight = now - now % DAY_SECONDS + DAY_SECONDS
        self.offset += midnight + after - now
        return midnight


def losing_actions(size: int, seed: int) -> list[engine.Action]:
    """Moves that end the game on this seed soon: each leaves the fewest empty cells."""
    game = engine.new_game(size, seed, 0.0)
    actions: list[engine.Action] = []
    while True:
        best: tuple[tuple[int, int], engine.Action, engine.Game] | None = None
        for action in _ARROWS:
            turn = engine.act(game, action, 0.0)  # type: ignore[arg-type]
            if turn.outcome is engine.Outcome.GAME_OVER:
                return [*actions, action]  # type: ignore[list-item]
            if turn.game.moves == game.moves:
                continue
            key = (turn.game.board.count(0), turn.game.score)
            if best is None or key < best[0]:
                best = (key, action, turn.game)  # type: ignore[assignment]
        assert best is not None, "no move left before the game was over"
        actions.append(best[1])
        game = best[2]


async def stored_daily(database: Database, day: str, size: int = 4) -> Daily | None:
    store = await open_storage(database)
    try:
        return await store.daily_of(day, size)
    finally:
        await store.close()


async def play_daily_to_the_end(api: FakeBotApi, user: User, seed: int) -> StoredMessage:
    """The player's `/daily`, played until no move is left; their board."""
    await user.send("/daily", replies=2)
    board = user.board()
    game_id = button_data(board, "⬅️").split(":")[1]
    actions = losing_actions(4, seed)
    for action in actions:
        data = f"g:{game_id}:{engine.ACTION_CODES[action]}"
        # Faster than a player may tap for long: a tap over the budget is tried again.
        while (await api.wait_answer(api.tap(user.id, user.id, board.message_id, data)))[
            "text"
        ] == THROTTLED:
            await asyncio.sleep(0.2)
    return board


async def catch_up_runs(bot: RunningBot, runs: int = 2) -> None:
    """Wait until the bot's catch-up job has run `runs` more times."""
    assert bot.application.job_queue is not None
    (job,) = bot.application.job_queue.get_jobs_by_name("catch-up")
    for _ in range(runs):
        due = job.next_t
        while job.next_t == due:
            await asyncio.sleep(0.05)


async def results_set_by_hand(
    storage: Storage, daily: DailyService, results: list[tuple[int, int, int, float]], now: float
) -> None:
    """Today's 4×4 daily played by each (user, score, moves, seconds after `now` the score
    was reached), set by hand rather than replayed, so every kind of tie can be made."""
    for user, score, moves, at in results:
        entry = (await daily.play(user, 4)).entry
        assert entry is not None
        async with storage.transaction():
            await storage._execute(
                "UPDATE games SET score = ?, moves = ?, score_at = ?, actions = NULL WHERE id = ?",
                (score, moves, now + at, entry.id),
            )
