"""Players with long games to replay: work that keeps the bot's worker pool busy."""

from __future__ import annotations

import time
from pathlib import Path

import engine
from bot.storage import open_storage
from tests.support.data import LONG_GAME


async def give_long_games(database: Path | str, players: range) -> None:
    """Each player with the 1,000-move long game running in their private chat."""
    game = engine.replay(LONG_GAME["size"], LONG_GAME["seed"], LONG_GAME["actions"])
    store = await open_storage(database)
    try:
        async with store.transaction():
            for user_id in players:
                await store.remember_name(user_id, f"Player {user_id}")
                game_id = await store.insert_game(user_id, user_id, game, time.time())
                await store._execute(
                    "UPDATE games SET actions = ? WHERE id = ?", (LONG_GAME["actions"], game_id)
                )
    finally:
        await store.close()
