"""The generic path for any board size: expectimax over tuples of row tuples of exponents.

Used for 5×5 and 6×6, and for 4×4 boards whose tiles no longer fit the compiled path's 4-bit
cells. A position is carried as its rows and its columns (both tuples of exponent tuples),
so every direction is a `map` of one cached line function over rows or columns followed by one
`zip` transposition; both loops run in C, which matters more in CPython than the data layout.
Line results (slides, evaluations, spawn placements) are computed on first sight and kept in
bounded dictionaries, so exponents of any size work, 65536 and 131072 included.
"""

from __future__ import annotations

from collections.abc import Callable
from time import perf_counter
from typing import Generic, TypeVar

from engine.board import Direction
from engine.solver.common import DIRECTION_ORDER, SearchTimeout
from engine.solver.heuristic import LOST_PENALTY, line_score
from engine.solver.lines import slide_exponents

Line = tuple[int, ...]
Grid = tuple[Line, ...]
V = TypeVar("V")

# Each line cache is dropped once it holds this many entries: a long 6×6 game meets many
# distinct lines, and a dropped entry is only recomputed, never wrong.
LINE_CACHE_LIMIT = 250_000


class LineCache(dict[Line, V], Generic[V]):
    """A dict that computes a missing line's entry on demand (the lookup stays a C call)."""

    def __init__(self, compute: Callable[[Line], V]) -> None:
        super().__init__()
        self._compute = compute

    def __missing__(self, line: Line) -> V:
        if len(self) >= LINE_CACHE_LIMIT:
            self.clear()
        value = self._compute(line)
        self[line] = value
        return value


def line_base(size: int) -> float:
    """The per-line constant for a board size: a lost board scores 0, live ones far above it.

    Bigger boards hold bigger exponents, whose power-4 and power-3.5 penalties would otherwise
    push busy but live boards below a lost one; 4×4 keeps the published constant, so the
    generic path scores a 4×4 board exactly as the compiled path does.
    """
    return LOST_PENALTY * 4.0 ** (size - 4)


def _slide_right(line: Line) -> Line:
    return slide_exponents(line[::-1])[::-1]


def _spawn_places(line: Line) -> tuple[tuple[int, ...], tuple[tuple[Line, Line] | None, ...]]:
    """Empty positions of a line, and per position the line with a 2 or a 4 placed there."""
    empty = tuple(i for i, rank in enumerate(line) if rank == 0)
    placed = tuple(
        ((*line[:i], 1, *line[i + 1 :]), (*line[:i], 2, *line[i + 1 :])) if rank == 0 else None
        for i, rank in enumerate(line)
    )
    return empty, placed


SLIDE_LEFT: LineCache[Line] = LineCache(slide_exponents)
SLIDE_RIGHT: LineCache[Line] = LineCache(_slide_right)
SPAWNS: LineCache[tuple[tuple[int, ...], tuple[tuple[Line, Line] | None, ...]]] = LineCache(
    _spawn_places
)
_HEURISTICS: dict[int, LineCache[float]] = {}


def heuristic_table(size: int) -> LineCache[float]:
    """Line scores for one board size (the per-line constant depends on the size)."""
    table = _HEURISTICS.get(size)
    if table is None:
        extra = line_base(size) - LOST_PENALTY
        table = LineCache(lambda line: line_score(line) + extra)
        _HEURISTICS[size] = table
    return table


def to_grid(ranks: tuple[int, ...], size: int) -> tuple[Grid, Grid]:
    """Rows and columns of a row-major tuple of exponents."""
    rows = tuple(ranks[r * size : (r + 1) * size] for r in range(size))
    return rows, tuple(zip(*rows, strict=True))


def move_grid(rows: Grid, cols: Grid, direction: str) -> tuple[Grid, Grid]:
    """One move on (rows, cols); the rows come back unchanged exactly when it is invalid."""
    if direction == "left":
        moved = tuple(map(SLIDE_LEFT.__getitem__, rows))
        return moved, tuple(zip(*moved, strict=True))
    if direction == "right":
        moved = tuple(map(SLIDE_RIGHT.__getitem__, rows))
        return moved, tuple(zip(*moved, strict=True))
    if direction == "up":
        moved = tuple(map(SLIDE_LEFT.__getitem__, cols))
        return tuple(zip(*moved, strict=True)), moved
    moved = tuple(map(SLIDE_RIGHT.__getitem__, cols))
    return tuple(zip(*moved, strict=True)), moved


def search_generic(
    rows: Grid,
    cols: Grid,
    size: int,
    depth: int,
    deadline: float | None,
    cutoff: float,
    cache: dict[Grid, float],
    cache_depth: dict[Grid, int],
) -> tuple[list[tuple[Direction, float]], int, bool]:
    """One depth of the search for (rows, cols) positions of any size.

    Returns each valid root move's (direction, value) in DIRECTION_ORDER, the positions
    searched, and whether the depth limit cut anything, as `compiled.Compiled.search` does;
    raises SearchTimeout past the deadline. `cache` maps a chance node's rows to its value and
    `cache_depth` to the depth it was computed for; a value is reused for any depth up to
    that one, which keeps them valid across the depths of one deepening. Scoring a position
    one move before the horizon costs far more here than compiled, so those scores are also
    cached (for this depth only), keyed by the position.
    """
    left = SLIDE_LEFT.__getitem__
    right = SLIDE_RIGHT.__getitem__
    heur = heuristic_table(size).__getitem__
    spawns = SPAWNS.__getitem__
    clock = perf_counter
    never = deadline is None
    limit = 0.0 if deadline is None else deadline
    cache_get = cache.get
    depth_get = cache_depth.get
    leaf_cache: dict[Grid, float] = {}
    leaf_get = leaf_cache.get
    nodes = 0
    truncated = False

    def moves(rows: Grid, cols: Grid) -> list[tuple[Grid, Grid]]:
        """The positions after each valid move (order does not matter below the root)."""
        out = []
        moved = tuple(map(left, rows))
        if moved != rows:
            out.append((moved, tuple(zip(*moved, strict=True))))
        moved = tuple(map(right, rows))
        if moved != rows:
            out.append((moved, tuple(zip(*moved, strict=True))))
        moved = tuple(map(left, cols))
        if moved != cols:
            out.append((tuple(zip(*moved, strict=True)), moved))
        moved = tuple(map(right, cols))
        if moved != cols:
            out.append((tuple(zip(*moved, strict=True)), moved))
        return out

    def maxleaf(rows: Grid, cols: Grid) -> float:
        best = leaf_get(rows)
        if best is not None:
            return best
        best = 0.0
        for r, c in moves(rows, cols):
            value = sum(map(heur, r)) + sum(map(heur, c))
            if value > best:
                best = value
        leaf_cache[rows] = best
        return best

    def maxnode(rows: Grid, cols: Grid, depth: int, prob: float) -> float:
        best = 0.0
        for r, c in moves(rows, cols):
            value = chance(r, c, depth, prob)
            if value > best:
                best = value
        return best

    def children(rows: Grid, cols: Grid) -> list[tuple[Grid, Grid, Grid, Grid]]:
        """Per empty cell: (rows, cols) with a 2 there, then (rows, cols) with a 4 there."""
        out = []
        for i, row in enumerate(rows):
            empty, placed = spawns(row)
            for j in empty:
                row2, row4 = placed[j]  # type: ignore[misc]
                col2, col4 = spawns(cols[j])[1][i]  # type: ignore[misc]
                head, tail = rows[:i], rows[i + 1 :]
                chead, ctail = cols[:j], cols[j + 1 :]
                out.append(
                    (
                        (*head, row2, *tail),
                        (*chead, col2, *ctail),
                        (*head, row4, *tail),
                        (*chead, col4, *ctail),
                    )
                )
        return out

    def chance(rows: Grid, cols: Grid, depth: int, prob: float) -> float:
        nonlocal nodes, truncated
        hit = cache_get(rows)
        if hit is not None and depth_get(rows) >= depth:
            return hit
        if not never and clock() > limit:
            raise SearchTimeout
        kids = children(rows, cols)
        n = len(kids)
        nodes += 2 * n
        p2 = prob * 0.9 / n
        p4 = prob * 0.1 / n
        total = 0.0
        if depth == 1 or p2 < cutoff:
            if depth == 1:
                truncated = True
            if p4 >= cutoff:
                for r2, c2, r4, c4 in kids:
                    total += 0.9 * maxleaf(r2, c2) + 0.1 * maxleaf(r4, c4)
            else:  # a 4 this unlikely is taken to score like the 2 (see compiled._chance)
                nodes -= n
                for r2, c2, _, _ in kids:
                    total += maxleaf(r2, c2)
        else:
            d = depth - 1
            deep4 = p4 >= cutoff
            for r2, c2, r4, c4 in kids:
                total += 0.9 * maxnode(r2, c2, d, p2)
                if deep4:
                    total += 0.1 * maxnode(r4, c4, d, p4)
                else:
                    total += 0.1 * maxleaf(r4, c4)
        value = total / n
        cache[rows] = value
        cache_depth[rows] = depth
        return value

    values: list[tuple[Direction, float]] = []
    try:
        for direction in DIRECTION_ORDER:
            r, c = move_grid(rows, cols, direction)
            if r == rows:
                continue
            nodes += 1
            if depth <= 1:
                truncated = True
                value = sum(map(heur, r)) + sum(map(heur, c))
            else:
                value = chance(r, c, depth - 1, 1.0)
            values.append((direction, value))
    finally:
        # The inner functions refer to each other: break the cycle (see compiled._chance).
        maxnode = chance = maxleaf = children = moves = None  # type: ignore[assignment]
    return values, nodes, truncated
