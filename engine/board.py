"""The grid: sliding and merging tiles, with no randomness and no game state.

A board is a flat, row-major tuple of tile values (0 for an empty cell). Flat tuples are
hashable and cheap to copy, which keeps one tap well inside the bot's time budget.
"""

from __future__ import annotations

from functools import cache, lru_cache
from operator import itemgetter
from typing import Literal

Board = tuple[int, ...]
Direction = Literal["up", "down", "left", "right"]
DIRECTIONS: tuple[Direction, ...] = ("up", "down", "left", "right")


@cache
def _line_indices(size: int, direction: Direction) -> tuple[tuple[int, ...], ...]:
    """Cell indices of every line, each ordered from the edge the tiles move toward.

    Ordering the line this way lets one routine (`slide_line`, which slides toward index 0)
    serve all four directions, and makes "pairs form from the edge moved toward" automatic.
    """
    cols = range(size)
    if direction == "left":
        return tuple(tuple(r * size + c for c in cols) for r in range(size))
    if direction == "right":
        return tuple(tuple(r * size + c for c in reversed(cols)) for r in range(size))
    if direction == "up":
        return tuple(tuple(r * size + c for r in cols) for c in range(size))
    if direction == "down":
        return tuple(tuple(r * size + c for r in reversed(cols)) for c in range(size))
    raise ValueError(f"unknown direction {direction!r}")


_Getters = tuple[tuple[itemgetter, tuple[int, ...]], ...]


@cache
def _line_getters(size: int, direction: Direction) -> _Getters:
    return tuple((itemgetter(*idx), idx) for idx in _line_indices(size, direction))


@lru_cache(maxsize=1 << 17)
def slide_line(line: tuple[int, ...]) -> tuple[tuple[int, ...], int]:
    """Slide one line toward index 0; return the new line and the points it scores.

    Gaps close first, then pairs form from index 0 outward and each tile merges at most once,
    so `4 4 4 4` gives `8 8` and `2 2 4` gives `4 4`. Cached: real games reuse few lines.
    """
    tiles = [value for value in line if value]
    merged: list[int] = []
    gained = 0
    i = 0
    while i < len(tiles):
        if i + 1 < len(tiles) and tiles[i] == tiles[i + 1]:
            value = tiles[i] * 2
            merged.append(value)
            gained += value
            i += 2
        else:
            merged.append(tiles[i])
            i += 1
    merged.extend([0] * (len(line) - len(merged)))
    return tuple(merged), gained


def move(board: Board, size: int, direction: Direction) -> tuple[Board, int]:
    """Slide the whole board; the result equals `board` exactly when the move is invalid."""
    cells: list[int] | None = None
    gained = 0
    for getter, idx in _line_getters(size, direction):
        line = getter(board)
        after, points = slide_line(line)
        if after != line:
            if cells is None:
                cells = list(board)
            for i, value in zip(idx, after, strict=True):
                cells[i] = value
            gained += points
    if cells is None:
        return board, 0
    return tuple(cells), gained


def has_move(board: Board, size: int) -> bool:
    """False exactly when the game is over: no empty cell and no equal orthogonal neighbours."""
    if 0 in board:
        return True
    for r in range(size):
        row = r * size
        for c in range(size):
            value = board[row + c]
            if c + 1 < size and board[row + c + 1] == value:
                return True
            if r + 1 < size and board[row + size + c] == value:
                return True
    return False


def empty_cells(board: Board) -> list[int]:
    return [i for i, value in enumerate(board) if value == 0]
