"""The review of a finished game: each move measured against the solver's best on its position.

    review_game(size, seed, actions) -> GameReview

The game is rebuilt from its seed and its actions (`engine.replay`). Every move that stands
in the final game is reviewed; a move later undone is not, since the player took it back
themselves. On the position before each move, `search.move_values` values every valid move
at one fixed depth, and the move's **expected loss** is the best move's value minus the
played move's: zero when the player played the solver's move (or one of equal value), more
the worse the move was.

**Expected points** are the unit of those values, and of the loss the review shows. A
move's value is what the solver expects of the position it leads to: the solver's evaluation
(`heuristic.line_score` summed over the rows and columns: points for empty cells and for
neighbours that can join, minus points for lines out of order and for tile mass) of the
positions a few moves on, averaged over the tiles that may spawn with their probabilities.
They are not game points: a move that costs 2,000 expected points leaves a position the
solver rates 2,000 lower, and an empty cell is worth 540 of them (270 in its row, 270 in its
column), so 2,000 is about four empty cells fewer.

The depth is fixed rather than a time budget, for two reasons: a review is the same on any
machine and under any load (so it can be cached and tested), and it is fast enough for
long games. The hint's 50 ms a move would take 50 s for a 1,000-move game; four moves deep
on 4×4 (compiled) takes about a millisecond a move, and two moves deep on 5×5 and 6×6 (the
pure-Python path) a few milliseconds (`benchmarks.review`). Four moves deep is shallower than
the six or seven a hint reaches: a review's best move is now and then not the one the hint
would have shown, on positions where the two are close.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from engine.board import Board, Direction
from engine.errors import EngineError
from engine.game import new_game
from engine.replay import CODE_ACTIONS, act
from engine.solver.generic import line_base
from engine.solver.search import move_values

# Player moves looked ahead per reviewed move: compiled 4×4, and the generic path's sizes.
REVIEW_DEPTH = 4
GENERIC_REVIEW_DEPTH = 2
COSTLIEST = 3  # how many of the costliest moves a review keeps


@dataclass(frozen=True, slots=True)
class MoveCost:
    """One reviewed move: its number in the game (1 = the first), the position it was played
    on, the move played, the solver's best move there, and the expected loss (≥ 0)."""

    number: int
    board: Board
    played: Direction
    best: Direction
    loss: float


@dataclass(frozen=True, slots=True)
class GameReview:
    """What a review found: `moves` reviewed, `matched` of them the solver's own (or as good),
    and the `costliest` (at most COSTLIEST, each with a loss above zero, costliest first)."""

    size: int
    moves: int
    matched: int
    costliest: tuple[MoveCost, ...]

    @property
    def matched_share(self) -> float:
        """The share of moves that matched the solver, 1.0 for a game with no move."""
        return self.matched / self.moves if self.moves else 1.0


def review_depth(size: int) -> int:
    return REVIEW_DEPTH if size == 4 else GENERIC_REVIEW_DEPTH


class Severity(IntEnum):
    """How bad a move was, in words a player can weigh: the solver's rating is not points."""

    SLIP = 0
    MISTAKE = 1
    BIG_MISTAKE = 2
    RISKS_THE_GAME = 3


def severity(size: int, loss: float) -> Severity:
    """A move's expected loss as one of four steps, each a share of one line's worth.

    A lost position rates 0 and a live one about `line_base(size)` for each of its rows and
    columns, so a loss of one line's worth or more is about one chance in 2·size (one in
    eight on 4×4) of the game ending within the moves looked at, or a disorder of the biggest
    tiles that the solver rates as badly: a danger to the game. A tenth of that is still a
    big mistake; under a two-hundredth (1,000 on 4×4, about two empty cells) a slip.
    """
    line = line_base(size)
    if loss >= line:
        return Severity.RISKS_THE_GAME
    if loss >= line / 10:
        return Severity.BIG_MISTAKE
    if loss >= line / 200:
        return Severity.MISTAKE
    return Severity.SLIP


def move_loss(board: Board, size: int, played: Direction, depth: int) -> tuple[Direction, float]:
    """The solver's best move on `board` and the expected loss of playing `played` instead.

    The best is the first of the highest values in up, down, left, right order, as the hint
    picks it; a move that does not change the board is refused (no real game has one).
    """
    values = move_values(board, size, depth)
    by_move = dict(values)
    if played not in by_move:
        raise EngineError(f"{played} is not a valid move on this board")
    best, top = values[0]
    for direction, value in values[1:]:
        if value > top:
            best, top = direction, value
    return best, top - by_move[played]


def review_game(size: int, seed: int, actions: str, depth: int | None = None) -> GameReview:
    """Review every move standing in the game `actions` build from `seed` (see the module).

    `depth` overrides `review_depth(size)`. A log the replay refuses raises EngineError.
    """
    look = review_depth(size) if depth is None else depth
    game = new_game(size, seed, 0.0)
    # The moves standing so far, each with what it cost: an undo takes the last one back.
    standing: list[MoveCost] = []
    for index, code in enumerate(actions):
        action = CODE_ACTIONS.get(code)
        if action is None:
            raise EngineError(f"action {index} is {code!r}, not one of {''.join(CODE_ACTIONS)}")
        if action == "undo":
            if standing:
                standing.pop()
        elif action != "keep":
            best, loss = move_loss(game.board, size, action, look)
            standing.append(MoveCost(len(standing) + 1, game.board, action, best, loss))
        turn = act(game, action, 0.0)
        if not turn.changed:
            raise EngineError(f"action {index} ({action}) changes nothing: {turn.outcome}")
        game = turn.game
    costly = sorted((cost for cost in standing if cost.loss > 0), key=lambda c: (-c.loss, c.number))
    matched = sum(1 for cost in standing if cost.loss <= 0)
    return GameReview(size, len(standing), matched, tuple(costly[:COSTLIEST]))
