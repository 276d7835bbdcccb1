"""Why a hinted move is good, in terms a player can check on the board.

The search knows only that a move's expected value is highest; a player learns from what
that value is made of. `explain` names the first of these that is true of the move, against
every other valid move, on the board just after the move (before the new tile):

1. `EVERY_OTHER_LOSES_CORNER`: the highest tile sits in a corner, this move keeps it there
   and every other valid move takes it out.
2. `JOINS`: the move joins the biggest pair that any move joins, of `MIN_JOIN` or more (the
   opposite move, which joins the same pair, ties with it and still counts).
3. `ONLY_FREE_CELL_BESIDE_HIGHEST`: after this move an empty cell touches the highest tile,
   and after every other valid move none does.
4. `KEEPS_CORNER`: the highest tile stays in its corner, where some other move takes it out.

None when nothing of that holds (or the move is the only valid one): the hint then says
the direction alone rather than a reason that is not quite true.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from engine.board import DIRECTIONS, Board, Direction, move

# A join of smaller tiles than this is too common to be a reason.
MIN_JOIN = 8


class ReasonKind(StrEnum):
    EVERY_OTHER_LOSES_CORNER = "every_other_loses_corner"
    JOINS = "joins"
    ONLY_FREE_CELL_BESIDE_HIGHEST = "only_free_cell_beside_highest"
    KEEPS_CORNER = "keeps_corner"


@dataclass(frozen=True, slots=True)
class Reason:
    """A reason and the tile it speaks of: the corner's tile, or the value of each joined one."""

    kind: ReasonKind
    tile: int


def explain(board: Board, size: int, direction: Direction) -> Reason | None:
    """The reason `direction` is a good move on `board`, if one of the four holds."""
    after = {d: move(board, size, d)[0] for d in DIRECTIONS}
    others = [d for d in DIRECTIONS if d != direction and after[d] != board]
    if after[direction] == board or not others:
        return None
    highest = max(board)
    corners = [i for i in _corners(size) if board[i] == highest]

    def keeps_corner(d: Direction) -> bool:
        return any(after[d][i] >= highest for i in corners)

    if corners and keeps_corner(direction) and not any(keeps_corner(d) for d in others):
        return Reason(ReasonKind.EVERY_OTHER_LOSES_CORNER, highest)
    joined = _largest_join(board, size, direction)
    if joined >= MIN_JOIN and all(_largest_join(board, size, d) <= joined for d in others):
        return Reason(ReasonKind.JOINS, joined)
    if _free_beside_highest(after[direction], size) and not any(
        _free_beside_highest(after[d], size) for d in others
    ):
        return Reason(ReasonKind.ONLY_FREE_CELL_BESIDE_HIGHEST, max(after[direction]))
    if corners and keeps_corner(direction) and not all(keeps_corner(d) for d in others):
        return Reason(ReasonKind.KEEPS_CORNER, highest)
    return None


def _corners(size: int) -> tuple[int, ...]:
    return (0, size - 1, size * (size - 1), size * size - 1)


def _lines(board: Board, size: int, direction: Direction) -> list[list[int]]:
    """The board's lines, each from the edge the move pushes toward."""
    rows = [list(board[r * size : (r + 1) * size]) for r in range(size)]
    if direction in ("up", "down"):
        rows = [list(column) for column in zip(*rows, strict=True)]
    if direction in ("right", "down"):
        rows = [line[::-1] for line in rows]
    return rows


def _largest_join(board: Board, size: int, direction: Direction) -> int:
    """The value of each tile in the biggest pair the move joins; 0 if it joins none."""
    largest = 0
    for line in _lines(board, size, direction):
        tiles = [value for value in line if value]
        i = 0
        while i < len(tiles):
            if i + 1 < len(tiles) and tiles[i] == tiles[i + 1]:
                largest = max(largest, tiles[i])
                i += 2
            else:
                i += 1
    return largest


def _free_beside_highest(board: Board, size: int) -> bool:
    """Whether an empty cell touches a cell holding the board's highest tile."""
    highest = max(board)
    for index, value in enumerate(board):
        if value != highest:
            continue
        r, c = divmod(index, size)
        for nr, nc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if 0 <= nr < size and 0 <= nc < size and board[nr * size + nc] == 0:
                return True
    return False
