"""Why a hint is good: each reason pinned to a board where it is true, and only there."""

from __future__ import annotations

from engine.solver.reasons import Reason, ReasonKind, explain


def _board(*rows: list[int]) -> tuple[int, ...]:
    return tuple(value for row in rows for value in row)


def test_every_other_move_loses_the_corner():
    # Right slides the 2 and leaves the 512 where it is; down, the one other move, pulls it
    # out of its corner.
    board = _board([512, 4, 8, 2], [2, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0])
    assert explain(board, 4, "right") == Reason(ReasonKind.EVERY_OTHER_LOSES_CORNER, 512)
    assert explain(board, 4, "down") is None


def test_joins_the_biggest_pair():
    board = _board([2, 64, 64, 4], [0, 8, 0, 0], [0, 8, 0, 0], [0, 0, 0, 0])
    # Left or right joins the 64s; up or down only the 8s.
    assert explain(board, 4, "left") == Reason(ReasonKind.JOINS, 64)
    assert explain(board, 4, "right") == Reason(ReasonKind.JOINS, 64)
    assert explain(board, 4, "up") is None


def test_small_joins_are_no_reason():
    board = _board([2, 4, 4, 2], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0])
    assert explain(board, 4, "left") is None


def test_the_only_move_that_keeps_a_free_cell_next_to_the_highest_tile():
    # The 256 sits inside; only right leaves the cell below it empty.
    board = _board([2, 4, 2, 4], [4, 256, 8, 2], [2, 0, 2, 4], [4, 2, 4, 2])
    assert explain(board, 4, "right") == Reason(ReasonKind.ONLY_FREE_CELL_BESIDE_HIGHEST, 256)
    for other in ("up", "down", "left"):
        assert explain(board, 4, other) is None


def test_keeps_the_highest_tile_in_its_corner():
    # Left and up keep the 512 in its corner, right and down take it out.
    board = _board([512, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 2])
    assert explain(board, 4, "left") == Reason(ReasonKind.KEEPS_CORNER, 512)
    assert explain(board, 4, "up") == Reason(ReasonKind.KEEPS_CORNER, 512)
    assert explain(board, 4, "right") is None


def test_reasons_on_bigger_boards():
    board = (1024,) + (0,) * 23 + (2,)
    assert explain(board, 5, "left") == Reason(ReasonKind.KEEPS_CORNER, 1024)


def test_a_forced_or_invalid_move_has_no_reason():
    only_left = _board([0, 2, 4, 8], [0, 16, 32, 64], [0, 2, 4, 8], [0, 16, 32, 64])
    assert explain(only_left, 4, "left") is None  # the only valid move: nothing to prefer
    assert explain(only_left, 4, "right") is None  # moves nothing
