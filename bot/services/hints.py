"""Hints: the expectimax search, run in the worker pool so no tap waits behind it."""

from __future__ import annotations

from bot.services.workers import WorkerPool
from engine import Direction
from engine.board import Board
from engine.solver import DEFAULT_BUDGET_MS, best_move


class HintService:
    def __init__(self, workers: WorkerPool, budget_ms: float = DEFAULT_BUDGET_MS) -> None:
        self._workers = workers
        self._budget_ms = budget_ms

    async def suggest(self, board: Board, size: int) -> Direction | None:
        hint = await self._workers.run(best_move, board, size, self._budget_ms)
        return None if hint is None else hint.direction
