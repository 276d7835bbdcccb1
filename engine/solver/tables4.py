"""Precomputed 4×4 tables: each 16-bit row's slides and line score, for the compiled search.

A 4×4 board is one integer holding 16 four-bit exponents: cell (r, c) sits at bit 16·r + 4·c, so
row r is `(board >> 16·r) & 0xFFFF` with its leftmost cell in the lowest nibble. A move is then
four row lookups (see `compiled`). Built once per process on first use (about 0.2 s of pure
Python), by `engine.solver.warm_up()` in a worker pool's initializer.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product

from engine.solver.heuristic import line_score
from engine.solver.lines import slide_exponents

ROWS = 1 << 16
MAX_RANK = 15  # a nibble holds exponents up to 15 (32768)


@dataclass(frozen=True, slots=True)
class Tables4:
    """Per-row lookups, each a list indexed by the 16-bit row: `left[row]` and `right[row]`
    are the row after sliding, `heur[row]` its score (`heuristic.line_score`)."""

    left: list[int]
    right: list[int]
    heur: list[float]


def _build() -> Tables4:
    left: list[int] = []
    heur: list[float] = []
    reverse: list[int] = []
    # Rows in index order: cell 0 (the lowest nibble) varies fastest.
    slide_cache: dict[tuple[int, ...], tuple[int, ...]] = {}
    for d, c, b, a in product(range(16), repeat=4):
        line = (a, b, c, d)
        key = tuple(rank for rank in line if rank)
        moved = slide_cache.get(key)
        if moved is None:
            moved = slide_exponents(line, cap=MAX_RANK)
            slide_cache[key] = moved
        left.append(moved[0] | moved[1] << 4 | moved[2] << 8 | moved[3] << 12)
        heur.append(line_score(line))
        reverse.append(d | c << 4 | b << 8 | a << 12)
    right = [reverse[left[reverse[row]]] for row in range(ROWS)]
    return Tables4(left=left, right=right, heur=heur)


_TABLES: Tables4 | None = None


def tables4() -> Tables4:
    """The process-wide tables, built on first call."""
    global _TABLES
    if _TABLES is None:
        _TABLES = _build()
    return _TABLES


def pack(ranks: tuple[int, ...]) -> int:
    """Pack 16 exponents (row-major) into the board integer."""
    board = 0
    for index, rank in enumerate(ranks):
        board |= rank << (4 * index)
    return board


def unpack(board: int) -> tuple[int, ...]:
    """The 16 exponents of a packed board, row-major."""
    return tuple(board >> (4 * i) & 0xF for i in range(16))
