"""The rules of one move, through the public `slide` and `can_move`: how tiles slide and
merge, which moves change nothing, and when no move is left.

Boards are written as lists of rows, top row first, 0 for an empty cell. Every expected board
here is written out by hand (or placed by the small `place` helper below), never computed by
the engine.
"""

from __future__ import annotations

import copy

import pytest

import engine

_ = 0  # an empty cell, so hand-written boards read like the game


def blank(size: int) -> list[list[int]]:
    return [[0] * size for _row in range(size)]


def place(
    line: list[int], direction: str, size: int = 4, index: int = 1, others: list[int] | None = None
) -> list[list[int]]:
    """A board whose line number `index` holds `line`, listed from the edge tiles move toward.

    For "left" the line is a row read left to right, for "right" a row read right to left,
    for "up" a column read top to bottom, for "down" a column read bottom to top. Every other
    line holds `others` (read the same way), or stays empty.
    """
    lines = [list(others) if others else [0] * size for _ in range(size)]
    lines[index] = list(line)
    grid = [[0] * size for _ in range(size)]
    for k, values in enumerate(lines):
        for pos, value in enumerate(values):
            if direction == "left":
                grid[k][pos] = value
            elif direction == "right":
                grid[k][size - 1 - pos] = value
            elif direction == "up":
                grid[pos][k] = value
            elif direction == "down":
                grid[size - 1 - pos][k] = value
            else:
                raise AssertionError(direction)
    return grid


def test_place_helper_orientation():
    # The helper itself, pinned against hand-written boards so the four-way tests mean something.
    assert place([2, 4, _, _], "right", index=0) == [
        [_, _, 4, 2],
        [_, _, _, _],
        [_, _, _, _],
        [_, _, _, _],
    ]
    assert place([2, 4, _, _], "down", index=0) == [
        [_, _, _, _],
        [_, _, _, _],
        [4, _, _, _],
        [2, _, _, _],
    ]
    assert place([2, 4, _, _], "up", index=3) == [
        [_, _, _, 2],
        [_, _, _, 4],
        [_, _, _, _],
        [_, _, _, _],
    ]


# ---------------------------------------------------------------------------------------------
# Worked examples of whole moves: a row before and after, and the points it scores. Each row is
# tried as the top row and the bottom row of a 4×4 board whose other rows are empty.

ORACLE = [
    pytest.param([2, 2, _, _], "left", [4, _, _, _], 4, id="2 2 . . left"),
    pytest.param([4, 4, 4, 4], "left", [8, 8, _, _], 16, id="4 4 4 4 left"),
    pytest.param([4, 4, 4, _], "left", [8, 4, _, _], 8, id="4 4 4 . left"),
    pytest.param([4, 4, 4, _], "right", [_, _, 4, 8], 8, id="4 4 4 . right"),
    pytest.param([2, 2, 4, _], "left", [4, 4, _, _], 4, id="2 2 4 . left"),
    pytest.param([16, _, _, 16], "left", [32, _, _, _], 32, id="16 . . 16 left"),
    pytest.param([4, 8, _, _], "left", [4, 8, _, _], 0, id="4 8 . . left (invalid)"),
    pytest.param([1024, 1024, _, _], "left", [2048, _, _, _], 2048, id="1024 1024 . . left"),
]


@pytest.mark.parametrize("row_index", [0, 3], ids=["top row", "bottom row"])
@pytest.mark.parametrize(("before", "direction", "after", "gained"), ORACLE)
def test_oracle_table(before, direction, after, gained, row_index):
    board = blank(4)
    board[row_index] = list(before)
    expected = blank(4)
    expected[row_index] = list(after)
    assert engine.slide(board, direction) == (expected, gained)


def test_oracle_row_that_reaches_2048_contains_the_winning_tile():
    rows, gained = engine.slide([[1024, 1024, _, _], [_] * 4, [_] * 4, [_] * 4], "left")
    assert max(max(row) for row in rows) == 2048
    assert gained == 2048


# ---------------------------------------------------------------------------------------------
# The three merge rules and "different values never merge", in all four directions. Lines are
# written from the edge the tiles move toward; `place` lays them out as a row or a column.

FOUR_WAYS = pytest.mark.parametrize("direction", ["left", "right", "up", "down"])

ONE_MERGE_PER_TILE = [
    pytest.param([4, 4, 4, 4], [8, 8, _, _], 16, id="4444 -> 88 not 16"),
    pytest.param([2, 2, 4, _], [4, 4, _, _], 4, id="224 -> 44, new 4 stays"),
    pytest.param([2, 2, 2, 2], [4, 4, _, _], 8, id="2222 -> 44"),
    pytest.param([4, 4, 8, _], [8, 8, _, _], 8, id="448 -> 88, new 8 stays"),
    pytest.param([8, 4, 4, _], [8, 8, _, _], 8, id="844 -> 88, new 8 stays"),
    pytest.param([2, 2, 4, 8], [4, 4, 8, _], 4, id="2248 -> 448, no chain"),
]

PAIRS_FROM_THE_EDGE = [
    pytest.param([4, 4, 4, _], [8, 4, _, _], 8, id="444. -> 84"),
    pytest.param([_, 2, 2, 2], [4, 2, _, _], 4, id=".222 -> 42"),
    pytest.param([2, 4, 4, 4], [2, 8, 4, _], 8, id="2444 -> 284"),
    pytest.param([8, 8, 8, _], [16, 8, _, _], 16, id="888. -> 16 8"),
]

GAPS_CLOSE_FIRST = [
    pytest.param([16, _, _, 16], [32, _, _, _], 32, id="16..16 -> 32"),
    pytest.param([2, _, 2, _], [4, _, _, _], 4, id="2.2. -> 4"),
    pytest.param([_, 4, _, 4], [8, _, _, _], 8, id=".4.4 -> 8"),
    pytest.param([_, _, _, 2], [2, _, _, _], 0, id="...2 -> 2, slide only"),
    pytest.param([2, _, 2, 2], [4, 2, _, _], 4, id="2.22 -> 42"),
    pytest.param([2, 4, _, 2], [2, 4, 2, _], 0, id="24.2 -> 242, the 2s never meet"),
]

DIFFERENT_NEVER_MERGE = [
    pytest.param([4, 8, _, _], [4, 8, _, _], 0, id="48 stays"),
    pytest.param([4, _, 8, _], [4, 8, _, _], 0, id="4.8 -> 48"),
    pytest.param([2, 4, 8, 16], [2, 4, 8, 16], 0, id="2 4 8 16 stays"),
    pytest.param([_, 2, _, 4], [2, 4, _, _], 0, id=".2.4 -> 24"),
]

# Lines that no move along their own axis can change, used to fill the rest of the board.
FROZEN = [2, 4, 2, 4]


# Each rule's lines, as a row or a column of every index of the board, with the other lines
# empty or frozen: only the line itself may change, exactly as written.
LINE_RULES = {
    "one merge per tile": ONE_MERGE_PER_TILE,
    "pairs from the edge": PAIRS_FROM_THE_EDGE,
    "gaps close first": GAPS_CLOSE_FIRST,
    "different never merge": DIFFERENT_NEVER_MERGE,
}


@FOUR_WAYS
@pytest.mark.parametrize(
    ("line", "expected", "gained"),
    [
        pytest.param(*case.values, id=f"{rule}: {case.id}")
        for rule, cases in LINE_RULES.items()
        for case in cases
    ],
)
def test_each_merge_rule_holds_on_every_line_in_every_direction(line, expected, gained, direction):
    for index in range(4):
        for others in (None, FROZEN):
            board = place(line, direction, index=index, others=others)
            want = place(expected, direction, index=index, others=others)
            assert engine.slide(board, direction) == (want, gained), (index, others)


def test_columns_written_out_by_hand():
    board = [
        [4, _, 2, 16],
        [4, 8, _, _],
        [4, _, 2, _],
        [_, 8, 4, 16],
    ]
    assert engine.slide(board, "up") == (
        [
            [8, 16, 4, 32],
            [4, _, 4, _],
            [_, _, _, _],
            [_, _, _, _],
        ],
        8 + 16 + 4 + 32,
    )
    assert engine.slide(board, "down") == (
        [
            [_, _, _, _],
            [_, _, _, _],
            [4, _, 4, _],
            [8, 16, 4, 32],
        ],
        8 + 16 + 4 + 32,
    )


def test_whole_board_moves_at_once():
    board = [
        [2, 2, 2, 2],
        [_, 4, 4, 8],
        [8, _, _, 8],
        [2, 4, 8, 16],
    ]
    assert engine.slide(board, "right") == (
        [
            [_, _, 4, 4],
            [_, _, 8, 8],
            [_, _, _, 16],
            [2, 4, 8, 16],
        ],
        4 + 4 + 8 + 16,
    )


@pytest.mark.parametrize(
    ("size", "row", "after", "gained"),
    [
        pytest.param(5, [2, 2, 2, 2, 2], [4, 4, 2, _, _], 8, id="5x5 22222"),
        pytest.param(6, [2, 2, 2, 2, 2, 2], [4, 4, 4, _, _, _], 12, id="6x6 222222"),
        pytest.param(6, [2, _, 2, _, 4, 4], [4, 8, _, _, _, _], 12, id="6x6 2.2.44"),
        pytest.param(6, [_, _, _, _, _, 65536], [65536, _, _, _, _, _], 0, id="6x6 far slide"),
        pytest.param(
            6, [131072, 131072, _, _, _, _], [262144, _, _, _, _, _], 262144, id="6x6 beyond 131072"
        ),
    ],
)
def test_larger_boards(size, row, after, gained):
    board = blank(size)
    board[size - 1] = list(row)
    expected = blank(size)
    expected[size - 1] = list(after)
    assert engine.slide(board, "left") == (expected, gained)


# ---------------------------------------------------------------------------------------------
# Invalid moves: the board comes back identical and scores nothing.

INVALID = [
    pytest.param([[2, 4, _, _], [8, _, _, _], [_] * 4, [_] * 4], "left", id="packed left"),
    pytest.param([[2, 4, _, _], [8, _, _, _], [_] * 4, [_] * 4], "up", id="packed up"),
    pytest.param(
        [[_, _, 2, 4], [_, _, _, 8], [_, _, _, 2], [_, _, _, 4]], "right", id="packed right"
    ),
    pytest.param([[_] * 4, [_] * 4, [_, 2, _, _], [4, 8, _, 2]], "down", id="packed down"),
    pytest.param(
        [[2, 4, 2, 4], [4, 2, 4, 2], [2, 4, 2, 4], [4, 2, 4, 2]], "left", id="full, no pairs"
    ),
    pytest.param(blank(4), "up", id="empty board"),
]


@pytest.mark.parametrize(("board", "direction"), INVALID)
def test_invalid_move_returns_identical_board_and_no_points(board, direction):
    original = copy.deepcopy(board)
    assert engine.slide(board, direction) == (original, 0)
    assert board == original


def test_slide_does_not_modify_its_input():
    board = [[2, 2, _, _], [_, 4, _, 4], [_] * 4, [8, _, _, 8]]
    original = copy.deepcopy(board)
    engine.slide(board, "left")
    assert board == original


# ---------------------------------------------------------------------------------------------
# can_move: the game is over only when the board is full and no orthogonal neighbours match.

CHECKER = [
    [2, 4, 2, 4],
    [4, 2, 4, 2],
    [2, 4, 2, 4],
    [4, 2, 4, 2],
]


def _distinct(size: int) -> list[list[int]]:
    """A full board where every tile differs from every other tile."""
    return [[2 ** (1 + r * size + c) for c in range(size)] for r in range(size)]


def _with(board, *cells):
    grid = copy.deepcopy(board)
    for r, c, value in cells:
        grid[r][c] = value
    return grid


CAN_MOVE = [
    pytest.param(CHECKER, False, id="full checkerboard: lost (diagonal equals do not count)"),
    pytest.param(_distinct(4), False, id="full, all different: lost"),
    pytest.param(_distinct(5), False, id="5x5 full, all different: lost"),
    pytest.param(_distinct(6), False, id="6x6 full, all different: lost"),
    pytest.param(_with(_distinct(4), (1, 1, 2)), False, id="only a diagonal pair: lost"),
    pytest.param(_with(_distinct(4), (2, 1, 128)), False, id="only an anti-diagonal pair: lost"),
    pytest.param(_with(_distinct(4), (0, 2, 2)), False, id="equal tiles two apart in a row: lost"),
    pytest.param(_with(_distinct(4), (0, 1, 2)), True, id="one horizontal pair at the top"),
    pytest.param(_with(_distinct(4), (1, 0, 2)), True, id="one vertical pair at the left"),
    pytest.param(
        _with(_distinct(4), (3, 3, 32768)),
        True,
        id="one horizontal pair in the bottom-right corner",
    ),
    pytest.param(
        _with(_distinct(4), (3, 3, 4096)), True, id="one vertical pair in the bottom-right corner"
    ),
    pytest.param(
        _with(_distinct(6), (5, 4, 2**36)), True, id="6x6 one horizontal pair on the last row"
    ),
    pytest.param(
        _with(_distinct(6), (5, 5, 2**30)), True, id="6x6 one vertical pair in the last column"
    ),
    pytest.param(_with(CHECKER, (2, 2, 0)), True, id="one empty cell, no pairs"),
    pytest.param(_with(_distinct(6), (0, 0, 0)), True, id="6x6 one empty corner"),
    pytest.param(blank(4), True, id="empty board"),
]


@pytest.mark.parametrize(("board", "expected"), CAN_MOVE)
def test_can_move(board, expected):
    assert engine.can_move(board) is expected


def test_can_move_agrees_with_what_the_player_can_actually_do():
    # On the lost boards above no direction changes anything; on a playable one some does.
    # (The all-empty board is the one exception: not full, so not lost, yet nothing can move.
    # A real game always has at least two tiles, so a player never sees it.)
    for param in CAN_MOVE:
        board, expected = param.values
        if not any(any(row) for row in board):
            continue
        movable = [d for d in ("up", "down", "left", "right") if engine.slide(board, d)[0] != board]
        assert bool(movable) is expected, param.id


# ---------------------------------------------------------------------------------------------
# Bad input is refused with EngineError, never a stray TypeError or a wrong answer.

GOOD = [[2, _, _, _], [_] * 4, [_] * 4, [_, _, _, 4]]

BAD_BOARDS = [
    pytest.param([[2, _, _, _], [_] * 4, [_] * 4], id="3 rows of 4"),
    pytest.param([[2, _, _], [_] * 4, [_] * 4, [_] * 4], id="one short row"),
    pytest.param([[2, _, _, _, _], [_] * 5, [_] * 5, [_] * 5], id="4 rows of 5"),
    pytest.param([[2]], id="1x1"),
    pytest.param([], id="no rows"),
    pytest.param([[]], id="one empty row"),
    pytest.param([2, _, _, 4], id="flat list"),
    pytest.param(["2  4", "    ", "    ", "    "], id="rows are strings"),
    pytest.param(None, id="None"),
    pytest.param(16, id="a number"),
    pytest.param("2 2 . .", id="a string"),
    pytest.param(_with(GOOD, (0, 0, 3)), id="tile 3"),
    pytest.param(_with(GOOD, (0, 0, 6)), id="tile 6"),
    pytest.param(_with(GOOD, (1, 1, 1)), id="tile 1"),
    pytest.param(_with(GOOD, (2, 2, -2)), id="tile -2"),
    pytest.param(_with(GOOD, (2, 2, -4)), id="tile -4"),
    pytest.param(_with(GOOD, (3, 0, True)), id="tile True"),
    pytest.param(_with(GOOD, (3, 0, False)), id="tile False"),
    pytest.param(_with(GOOD, (0, 1, 2.0)), id="tile 2.0"),
    pytest.param(_with(GOOD, (0, 1, "2")), id="tile '2'"),
    pytest.param(_with(GOOD, (0, 1, None)), id="tile None"),
]


@pytest.mark.parametrize("board", BAD_BOARDS)
def test_slide_refuses_bad_boards(board):
    with pytest.raises(engine.EngineError):
        engine.slide(board, "left")


@pytest.mark.parametrize("board", BAD_BOARDS)
def test_can_move_refuses_bad_boards(board):
    with pytest.raises(engine.EngineError):
        engine.can_move(board)


@pytest.mark.parametrize(
    "direction",
    [
        pytest.param("diagonal", id="diagonal"),
        pytest.param("LEFT", id="LEFT"),
        pytest.param("Left", id="Left"),
        pytest.param(" left", id="leading space"),
        pytest.param("", id="empty"),
        pytest.param("l", id="l"),
        pytest.param(None, id="None"),
        pytest.param(0, id="0"),
        pytest.param(["left"], id="list"),
    ],
)
def test_slide_refuses_bad_directions(direction):
    with pytest.raises(engine.EngineError):
        engine.slide(GOOD, direction)


def test_engine_error_is_a_value_error():
    # Callers that only know ValueError still catch refused input.
    with pytest.raises(ValueError, match="tile"):
        engine.slide(_with(GOOD, (0, 0, 3)), "left")


def test_the_smallest_board_that_is_accepted_is_2x2():
    assert engine.slide([[2, 2], [_, 4]], "left") == ([[4, _], [4, _]], 4)
