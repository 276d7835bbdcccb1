"""Precomputed 4×4 tables: the fast path's moves, evaluation and spawn cells, per 16-bit row.

A 4×4 board is one integer holding 16 four-bit exponents: cell (r, c) sits at bit 16·r + 4·c, so
row r is `(board >> 16·r) & 0xFFFF` with its leftmost cell in the lowest nibble. The search
carries the transpose `t` (cell (r, c) of the board at bit 16·c + 4·r) alongside, which turns
"up" into "left on t" and "down" into "right on t": every direction is then four row lookups,
and no move ever transposes a board.

Built once per process on first use (about 0.2 s of pure Python), or ahead of time with
`engine.solver.warm_up()` in a worker pool's initializer.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product

from engine.solver.heuristic import line_score
from engine.solver.lines import slide_exponents

ROW_MASK = 0xFFFF
ROWS = 1 << 16
MAX_RANK = 15  # a nibble holds exponents up to 15 (32768)

# Per empty cell of a row: (column j, bit in the row, bit in the column, board bit, transpose
# bit), each bit placing a 2; doubling a bit places a 4 instead.
SpawnCells = tuple[tuple[int, int, int, int, int], ...]


@dataclass(frozen=True, slots=True)
class Tables4:
    """Per-row lookups, each a list indexed by the 16-bit row.

    `left[row]` / `right[row]` are the row after sliding; `spread_left[row]` is that result
    scattered into a column of the *other* orientation (nibble c to bit 16·c), so one OR of
    four shifted entries rebuilds the transposed board after a move. `heur_left[row]` is
    `heur[left[row]]`, saving a lookup for the rows that a move just produced. `cells[i][row]`
    lists the empty cells of row i of the board (see SpawnCells), i.e. where a tile can spawn.
    """

    left: list[int]
    right: list[int]
    spread_left: list[int]
    spread_right: list[int]
    heur: list[float]
    heur_left: list[float]
    heur_right: list[float]
    empties: list[int]
    cells: tuple[list[SpawnCells], list[SpawnCells], list[SpawnCells], list[SpawnCells]]


def _build() -> Tables4:
    left: list[int] = []
    heur: list[float] = []
    reverse: list[int] = []
    spread: list[int] = []
    empty_mask: list[int] = []
    # Rows in index order: cell 0 (the lowest nibble) varies fastest.
    slide_cache: dict[tuple[int, ...], tuple[int, ...]] = {}
    for d, c, b, a in product(range(16), repeat=4):
        line = (a, b, c, d)
        packed = [rank for rank in line if rank]
        key = tuple(packed)
        moved = slide_cache.get(key)
        if moved is None:
            moved = slide_exponents(line, cap=MAX_RANK)
            slide_cache[key] = moved
        left.append(moved[0] | moved[1] << 4 | moved[2] << 8 | moved[3] << 12)
        heur.append(line_score(line))
        reverse.append(d | c << 4 | b << 8 | a << 12)
        spread.append(a | b << 16 | c << 32 | d << 48)
        empty_mask.append((a == 0) | (b == 0) << 1 | (c == 0) << 2 | (d == 0) << 3)
    right = [reverse[left[reverse[row]]] for row in range(ROWS)]
    empties = [mask.bit_count() for mask in range(16)]
    cells = []
    for i in range(4):
        choices = [
            tuple(
                (j, 1 << 4 * j, 1 << 4 * i, 1 << (16 * i + 4 * j), 1 << (16 * j + 4 * i))
                for j in range(4)
                if mask >> j & 1
            )
            for mask in range(16)
        ]
        cells.append([choices[mask] for mask in empty_mask])
    return Tables4(
        left=left,
        right=right,
        spread_left=[spread[row] for row in left],
        spread_right=[spread[row] for row in right],
        heur=heur,
        heur_left=[heur[row] for row in left],
        heur_right=[heur[row] for row in right],
        empties=[empties[mask] for mask in empty_mask],
        cells=(cells[0], cells[1], cells[2], cells[3]),
    )


_TABLES: Tables4 | None = None


def tables4() -> Tables4:
    """The process-wide tables, built on first call."""
    global _TABLES
    if _TABLES is None:
        _TABLES = _build()
    return _TABLES


def pack(ranks: tuple[int, ...]) -> tuple[int, int]:
    """Pack 16 exponents (row-major) into the board integer and its transpose."""
    board = 0
    transpose = 0
    for index, rank in enumerate(ranks):
        r, c = divmod(index, 4)
        board |= rank << (16 * r + 4 * c)
        transpose |= rank << (16 * c + 4 * r)
    return board, transpose


def unpack(board: int) -> tuple[int, ...]:
    """The 16 exponents of a packed board, row-major."""
    return tuple(board >> (4 * i) & 0xF for i in range(16))
