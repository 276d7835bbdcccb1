"""What a move costs in round trips to PostgreSQL, counted through a proxy on the connection.

A database in another zone multiplies every round trip by its distance: at 200 ms, each one
more is a fifth of a second more before the player's tap is answered.
"""

from __future__ import annotations

import engine
from bot.services.cache import no_cache
from bot.services.games import GameService, move_number
from bot.services.locks import ChatLocks
from bot.services.players import PlayerService, TapBudget
from bot.storage import open_storage

PLAYER = 51


def moving_direction(game: engine.Game) -> engine.Direction:
    return next(d for d in engine.DIRECTIONS if engine.play(game, d, 0.0).changed)


async def test_a_move_is_one_read_and_one_write_and_a_redelivery_one_read(proxied):
    proxy, url = proxied
    storage = await open_storage(url)
    try:
        # No copies of saved games, as a bot on PostgreSQL keeps none: every move reads.
        games = GameService(storage, ChatLocks(storage), new_seed=lambda: 3, copies=no_cache)
        board = await games.start(PLAYER, PLAYER, 4)
        # Each statement is prepared once per connection, on its first use: that is not a
        # tap's cost once the bot has been running for a moment.
        warm = await games.tap(PLAYER, PLAYER, board.id, moving_direction(board.game), "q0")
        await games.tap_at(
            PLAYER, PLAYER, board.id, moving_direction(warm.stored.game), move_number(warm.stored)
        )
        game = (await storage.game(board.id)).game

        async def trips(move) -> tuple[int, object]:
            before = proxy.round_trips
            result = await move
            return proxy.round_trips - before, result

        cost, tapped = await trips(
            games.tap(PLAYER, PLAYER, board.id, moving_direction(game), "q1")
        )
        assert tapped.changed and cost == 2
        cost, again = await trips(games.tap(PLAYER, PLAYER, board.id, "undo", "q1"))
        assert again.outcome is tapped.outcome and cost == 1
        cost, refused = await trips(games.tap(PLAYER, PLAYER + 1, board.id, "left", "q2"))
        assert not refused.changed and cost == 1

        game = tapped.stored.game
        number = move_number(tapped.stored)
        cost, moved = await trips(
            games.tap_at(PLAYER, PLAYER, board.id, moving_direction(game), number)
        )
        assert moved.changed and cost == 2
        assert (await storage.game(board.id)).game.moves == 4
    finally:
        await storage.close()


async def test_spending_a_tap_from_the_shared_budget_is_the_players_read_alone(proxied):
    """The read of the player a tap needs anyway spends their tap, refused or not."""
    proxy, url = proxied
    storage = await open_storage(url)
    try:
        players = PlayerService(
            storage, ChatLocks(storage), copies=no_cache, taps=TapBudget(storage, 1e-6, 2)
        )
        await players.spend_tap(PLAYER)  # the statement prepared on its connection
        before = proxy.round_trips
        assert await players.spend_tap(PLAYER) is not None
        assert await players.spend_tap(PLAYER) is None
        assert proxy.round_trips - before == 2
    finally:
        await storage.close()
