"""`best_move`: checks the board, picks the search path and deepens it under the time budget.

Both paths (`compiled.Compiled.search` for 4×4, `generic.search_generic` for the rest) search
one depth per call; the deepening, the budget, the roomy-board cap and the choice among equal values
are the same for both and live here. The package's docstring tells the design as a whole.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from time import perf_counter

from engine.board import Board, Direction
from engine.solver.common import DIRECTION_ORDER, SearchTimeout
from engine.solver.compiled import compiled
from engine.solver.generic import search_generic, to_grid
from engine.solver.tables4 import MAX_RANK, pack

DEFAULT_BUDGET_MS = 50.0
# Spawn branches less likely than this are not searched further (see `compiled._chance`):
# the published programs' value. The pure-Python search needed 3e-3 to reach depth 5 in
# the budget; compiled, 1e-4 reaches depth 6 or 7 on most positions, and on the 300 test
# positions at 50 ms it picks the deep reference search's move in 95 % of them, against 82 %
# with 3e-3 (whose deeper but narrower trees miss more of what a spawn can do).
PROBABILITY_CUTOFF = 1e-4
# The generic path (5×5, 6×6) keeps the cutoff it had in pure Python: there, 3e-3 makes a
# depth-4 search about 2.5 times cheaper than 1e-4, so the budget reaches a depth more.
GENERIC_CUTOFF = 3e-3
# The deepest search tried under a time budget (player moves, the hinted one included).
MAX_SEARCH_DEPTH = 10
# The generic path starts a depth only if it is predicted to end within this share of the
# budget: a depth it abandons at the cap has wasted all its time. The compiled path keeps what
# a depth cut short had finished (see `best_move`), so it starts one whenever the first
# `DECIDING_MOVES` of its root moves are predicted to finish before the cap.
START_SHARE = 0.8
DECIDING_MOVES = 2
# A search is told to stop at this share of its cap: past its deadline it still unwinds, and
# the compiled one reads its clock only every `CLOCK_EVERY` chance nodes. Stopped at the cap
# itself, a quarter of 4×4 hints ran past it, by up to 2.5 ms (self-play, AMD EPYC, load 2-6).
STOP_SHARE = 0.95
# The prediction: the last depth's time times the growth seen from the depth before it,
# damped (the probability cutoff trims deeper levels more, so growth slows with depth) and
# floored. FIRST_GROWTH stands in for the growth before two depths have been timed.
GROWTH_DAMPING = 0.6
MIN_GROWTH = 2.5
FIRST_GROWTH = 20.0
# On 5×5 and 6×6, a board with more than this share of its cells empty is searched two
# moves deep at most when the caller set no max_depth: such a board cannot be lost for many
# moves, and depth-2 play alone outlasts the greedy player by about ten times as many moves
# (measured on seeds 1 and 2 of each size), while a third move costs the generic path tens
# of milliseconds there.
ROOMY_SHARE = 1 / 3
ROOMY_DEPTH = 2


# What one depth of either search returns: the value of each valid root move it finished (in
# the fixed order up, down, left, right), the positions searched, whether the depth limit cut
# anything, and whether the deadline passed (then some moves, or all, are missing).
_Result = tuple[list[tuple[Direction, float]], int, bool, bool]


@dataclass(frozen=True, slots=True)
class Hint:
    """A suggested move and how it was found.

    `depth` is the number of player moves the deciding search looked ahead, the hinted one
    included (0 when the move was forced: it was the only valid one). With a time budget it
    varies with the machine's speed and load; a depth the budget cut short counts when it
    chose among at least two moves. `nodes` counts the player-to-move positions the search
    scored or expanded (cache hits aside), across all depths tried (a depth the generic path
    abandoned excepted); `elapsed_ms` is the wall time of the whole call.
    """

    direction: Direction
    depth: int
    nodes: int
    elapsed_ms: float


def warm_up() -> None:
    """Build the 4×4 tables and compile (or load) the 4×4 search now, not in the first hint.

    About 0.3 s with numba's cache on disk, a few seconds the first time it is compiled.
    """
    compiled()


def _ranks(board: Board, size: int) -> tuple[int, ...]:
    if size < 2 or len(board) != size * size:
        raise ValueError(f"a {size}×{size} board has {size * size} cells, not {len(board)}")
    ranks = []
    for value in board:
        if type(value) is not int or value < 0 or value & (value - 1) or value == 1:
            raise ValueError(f"{value!r} is not a tile: use 0 or a power of two from 2 up")
        ranks.append(value.bit_length() - 1 if value else 0)
    return tuple(ranks)


def best_move(
    board: Board,
    size: int,
    budget_ms: float | None = DEFAULT_BUDGET_MS,
    max_depth: int | None = None,
    *,
    cutoff: float | None = None,
) -> Hint | None:
    """The best move for `board` (row-major tile values, 0 = empty), or None if none is valid.

    `budget_ms` is a hard cap on the search (depth 1 excepted: it always completes, so a valid
    move is always returned); None means no time limit, which needs `max_depth`. `max_depth`
    caps the look-ahead in player moves; without it the search deepens up to
    `MAX_SEARCH_DEPTH` as time allows. `cutoff` overrides `PROBABILITY_CUTOFF` (or
    `GENERIC_CUTOFF`), for reference searches and tuning.
    """
    start = perf_counter()
    if budget_ms is None and max_depth is None:
        raise ValueError("give a time budget, a max_depth, or both")
    if max_depth is not None and max_depth < 1:
        raise ValueError(f"max_depth must be at least 1, not {max_depth!r}")
    ranks = _ranks(board, size)
    limit_depth = max_depth
    if limit_depth is None:
        roomy = size >= 5 and ranks.count(0) > ROOMY_SHARE * size * size
        limit_depth = ROOMY_DEPTH if roomy else MAX_SEARCH_DEPTH
    deadline = None if budget_ms is None else start + budget_ms * STOP_SHARE / 1000.0
    # The generic search keeps nothing of a depth cut short: it starts one only by this.
    start_by = None if budget_ms is None else start + budget_ms * START_SHARE / 1000.0

    run, keeps_partial = _searcher(ranks, size, cutoff)
    values, nodes, truncated, _ = run(1, None, DIRECTION_ORDER)
    if not values:
        return None
    if len(values) == 1:
        return Hint(values[0][0], 0, nodes, (perf_counter() - start) * 1000.0)
    best = _pick(values)
    reached = 1
    durations = [perf_counter() - start]
    depth = 2
    while depth <= limit_depth and truncated:
        if deadline is not None and start_by is not None:
            growth = FIRST_GROWTH
            if len(durations) >= 2 and durations[-2] > 0:
                growth = max(MIN_GROWTH, GROWTH_DAMPING * durations[-1] / durations[-2])
            predicted = durations[-1] * growth
            if keeps_partial:
                ends = perf_counter() + predicted * min(DECIDING_MOVES, len(values)) / len(values)
                if ends > deadline:
                    break
            elif perf_counter() + predicted > start_by:
                break
        began = perf_counter()
        # Best first, so that what a deadline cuts short is the least promising moves.
        ranked = tuple(d for d, _ in sorted(values, key=lambda move: -move[1]))
        found, searched, truncated, late = run(depth, deadline, ranked)
        nodes += searched
        if late:
            # The moves it finished are the best ones of the depth before: the deeper values
            # choose among them as soon as there are two to choose from.
            if len(found) >= min(DECIDING_MOVES, len(values)):
                best = _pick(found)
                reached = depth
            break
        values = found
        durations.append(perf_counter() - began)
        best = _pick(values)
        reached = depth
        depth += 1
    return Hint(best, reached, nodes, (perf_counter() - start) * 1000.0)


# One depth of a search, until an optional deadline, the root moves searched in the given
# order (see `_Result`).
_Run = Callable[[int, float | None, tuple[Direction, ...]], _Result]


def _searcher(ranks: tuple[int, ...], size: int, cutoff: float | None) -> tuple[_Run, bool]:
    """The search of one position, one depth per call: compiled for 4×4, generic otherwise.

    The flag says whether a depth cut short by the deadline still returns the moves it
    finished (compiled), or nothing (generic, which raises inside its recursion).
    """
    # Exponent 15 fits a nibble; the compiled path is exact as long as two 32768s cannot merge
    # at the root (see `lines.slide_exponents` for what happens deeper down).
    if size == 4 and max(ranks) <= MAX_RANK and ranks.count(MAX_RANK) <= 1:
        packed = pack(ranks)
        spawn_cutoff = PROBABILITY_CUTOFF if cutoff is None else cutoff
        search = compiled()
        search.begin()  # its transposition table's entries from earlier hints stop counting

        def run_compiled(depth: int, until: float | None, order: tuple[Direction, ...]) -> _Result:
            indices = tuple(DIRECTION_ORDER.index(d) for d in order)
            indices += tuple(i for i in range(4) if i not in indices)
            scores, searched, cut, late = search.search(packed, depth, until, spawn_cutoff, indices)
            valued = [(d, v) for d, v in zip(DIRECTION_ORDER, scores, strict=True) if v is not None]
            return valued, searched, cut, late

        return run_compiled, True
    # Both caches live for this search only: no state survives between hints.
    cache: dict = {}
    aux: dict = {}
    rows, cols = to_grid(ranks, size)
    spawn_cutoff = GENERIC_CUTOFF if cutoff is None else cutoff

    def run_generic(depth: int, until: float | None, _: tuple[Direction, ...]) -> _Result:
        try:
            values, searched, cut = search_generic(
                rows, cols, size, depth, until, spawn_cutoff, cache, aux
            )
        except SearchTimeout:
            return [], 0, True, True
        return values, searched, cut, False

    return run_generic, False


def move_values(
    board: Board, size: int, depth: int, *, cutoff: float | None = None
) -> list[tuple[Direction, float]]:
    """Each valid move's value on `board`, searched exactly `depth` player moves deep.

    A move's value is the expectimax value of the position it leads to: the evaluation
    (`heuristic`) of the positions `depth` moves on, averaged over the spawns in between
    with their probabilities, the best move taken at each of the player's turns. No time
    limit, so the values depend on the board, the depth and the cutoff alone. In
    DIRECTION_ORDER; empty when no move is valid.
    """
    if depth < 1:
        raise ValueError(f"depth must be at least 1, not {depth!r}")
    run, _ = _searcher(_ranks(board, size), size, cutoff)
    values, _, _, _ = run(depth, None, DIRECTION_ORDER)
    return values


def _pick(values: list[tuple[Direction, float]]) -> Direction:
    """The highest value; on equal values the earliest in DIRECTION_ORDER (values keep it)."""
    best, top = values[0]
    for direction, value in values[1:]:
        if value > top:
            best, top = direction, value
    return best
