"""Move hints: expectimax search over the player's moves and the random spawns.

    best_move(board, size, budget_ms=50.0, max_depth=None) -> Hint | None
    review_game(size, seed, actions) -> GameReview   (see `review`)

The search is iterative deepening: depth 1 (score the position after each move) always
completes; deeper searches run while the time budget allows, and the answer is the best move
of the deepest depth that decided it. Each depth searches the root moves best first, by the
values of the depth before. On 4×4, a depth the budget cuts short (the clock is read every
few dozen microseconds of search) keeps the moves it finished, the most promising ones, and
chooses among them once it has two; a depth is started when the growth between the previous
depths says two of its moves will finish, so a hint uses most of its budget. The generic path
abandons a depth it cannot finish, and starts one only if it should end well inside the
budget. Chance nodes average over every empty cell with a 2
(probability 0.9) and a 4 (0.1); once a branch is less likely than `PROBABILITY_CUTOFF` (on
4×4; `GENERIC_CUTOFF` on the other sizes), it gets one more player move and is then scored
rather than searched. Chance-node values are
shared through a transposition table. The evaluation is a sum of per-line scores (see
`heuristic`), tabulated for all 65,536 rows of a 4×4 board.

Determinism: the answer depends only on the board and the depth searched. With
`budget_ms=None` and a `max_depth` it is fully reproducible; with a time budget the depth
reached (and so possibly the move) depends on the machine's speed and load. Nothing random is
involved, and nothing survives between calls except pure lookup tables.

4×4 boards are searched by compiled code over one packed 64-bit integer (see `compiled` and
`tables4`), a few hundred times faster per node than Python; 5×5, 6×6 and the rare 4×4 board
with two 32768s or anything bigger use the generic pure-Python path (see `generic`), which
reaches a shallower depth in the same time. The deepening that drives either path is in
`search`, re-exported here. `best_move` is a plain top-level function of picklable arguments
returning a picklable `Hint`, so a process pool can run it; `warm_up` builds the 4×4 tables
and compiles the search (or loads it from numba's cache) ahead of the first hint, as the
pool's initializer.

The search is pure, like the rest of the engine: no I/O, nothing but the board in and a move
out. Its compiled part is the one place the engine reaches past the standard library, for
numba and numpy (see pyproject's import contracts).
"""

from __future__ import annotations

from engine.solver.review import (
    GameReview,
    MoveCost,
    Severity,
    move_loss,
    review_game,
    severity,
)
from engine.solver.search import (
    DEFAULT_BUDGET_MS,
    MAX_SEARCH_DEPTH,
    PROBABILITY_CUTOFF,
    Hint,
    best_move,
    warm_up,
)

__all__ = [
    "DEFAULT_BUDGET_MS",
    "MAX_SEARCH_DEPTH",
    "PROBABILITY_CUTOFF",
    "GameReview",
    "Hint",
    "MoveCost",
    "Severity",
    "best_move",
    "move_loss",
    "review_game",
    "severity",
    "warm_up",
]
