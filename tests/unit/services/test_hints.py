"""HintService: the search runs in a worker process and names a move that changes the board,
or none when no move is left."""

from __future__ import annotations

import pytest

import engine
from bot.services.hints import HintService
from bot.services.workers import WorkerPool

NO_MOVE_LEFT = (2, 4, 2, 4, 4, 2, 4, 2, 2, 4, 2, 4, 4, 2, 4, 2)
# Packed against the left and the top: only "right" and "down" move anything.
TWO_WAYS = (2, 4, 0, 0, 4, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
# Full, and one pair in the bottom row: only left and right move it.
ONE_PAIR = (2, 4, 2, 4, 4, 2, 4, 2, 2, 4, 2, 4, 8, 8, 4, 2)


@pytest.fixture(scope="module")
def hints():
    workers = WorkerPool(workers=1)
    yield HintService(workers, budget_ms=50.0)
    workers.close()


def moves(board: tuple[int, ...], direction: str) -> bool:
    return engine.play(engine.Game(size=4, seed=1, board=board), direction, 0.0).changed


@pytest.mark.parametrize("board", [TWO_WAYS, ONE_PAIR], ids=["two ways", "one pair"])
async def test_a_hint_is_a_move_that_changes_the_board(hints, board):
    direction = await hints.suggest(board, 4)
    assert direction is not None and moves(board, direction)


async def test_no_hint_on_a_board_where_nothing_moves(hints):
    assert not any(moves(NO_MOVE_LEFT, d) for d in engine.DIRECTIONS)
    assert await hints.suggest(NO_MOVE_LEFT, 4) is None


async def test_every_board_size_gets_a_hint_that_moves_it(hints):
    for size in engine.SIZES:
        game = engine.new_game(size, 11, 0.0)
        direction = await hints.suggest(game.board, size)
        assert direction is not None and engine.play(game, direction, 0.0).changed
