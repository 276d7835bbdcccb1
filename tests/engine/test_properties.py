"""Properties of a move that must hold on every board of every size, checked with hypothesis.

The expected values here come from the tests' own bookkeeping (tile sums, which input tiles
each output tile was made of, mirroring and transposing lists), never from the engine.
"""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine

DIRECTIONS = ("left", "right", "up", "down")
SETTINGS = settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Cell values: lots of empties and small tiles so that merges are common, plus the odd big
# tile up to 2**17 so that nothing depends on values staying small.
_CELL = st.one_of(
    st.sampled_from([0, 0, 0, 2, 2, 2, 4, 4, 8, 16]),
    st.integers(min_value=1, max_value=17).map(lambda e: 2**e),
)


@st.composite
def boards(draw: st.DrawFn) -> list[list[int]]:
    """Any board of size 4, 5 or 6, mostly with gaps."""
    size = draw(st.sampled_from([4, 5, 6]))
    return [[draw(_CELL) for _c in range(size)] for _r in range(size)]


@st.composite
def full_boards(draw: st.DrawFn) -> list[list[int]]:
    """Full boards, where the game may or may not be over: the interesting case for can_move."""
    size = draw(st.sampled_from([4, 5, 6]))
    top = size * size + 1
    exponent = st.integers(min_value=1, max_value=top)
    return [[2 ** draw(exponent) for _c in range(size)] for _r in range(size)]


@st.composite
def nearly_lost_boards(draw: st.DrawFn) -> list[list[int]]:
    """A lost checkerboard with a few cells changed: single matching pairs, or none at all."""
    size = draw(st.sampled_from([4, 5, 6]))
    a, b = draw(st.lists(st.sampled_from([2, 4, 8, 16, 1024]), min_size=2, max_size=2, unique=True))
    rows = [[a if (r + c) % 2 else b for c in range(size)] for r in range(size)]
    for _ in range(draw(st.integers(min_value=0, max_value=3))):
        r = draw(st.integers(min_value=0, max_value=size - 1))
        c = draw(st.integers(min_value=0, max_value=size - 1))
        rows[r][c] = draw(st.sampled_from([2, 4, 8, 16, 1024]))
    return rows


def mirror(rows: list[list[int]]) -> list[list[int]]:
    return [list(reversed(row)) for row in rows]


def transpose(rows: list[list[int]]) -> list[list[int]]:
    return [list(column) for column in zip(*rows, strict=True)]


def lines_toward_edge(rows: list[list[int]], direction: str) -> list[list[int]]:
    """Every line of the board, each listed from the edge the tiles move toward."""
    if direction == "left":
        return [list(row) for row in rows]
    if direction == "right":
        return mirror(rows)
    if direction == "up":
        return transpose(rows)
    return mirror(transpose(rows))


def created_tiles(before: list[int], after: list[int]) -> list[int]:
    """Which tiles of `after` a move created by merging, read off by matching input to output.

    Walking both lines from the edge moved toward, every output tile must be either the next
    input tile carried over unchanged, or the next two input tiles (equal) merged into one.
    Anything else means the move broke the rules, which fails the test right here.
    """
    tiles_in = [v for v in before if v]
    tiles_out = [v for v in after if v]
    assert after == tiles_out + [0] * (len(after) - len(tiles_out)), "gaps left behind"
    created = []
    i = 0
    for value in tiles_out:
        if i < len(tiles_in) and tiles_in[i] == value:
            i += 1
        else:
            assert tiles_in[i : i + 2] == [value // 2, value // 2], (before, after)
            created.append(value)
            i += 2
    assert i == len(tiles_in), ("tiles lost", before, after)
    return created


def reference_line(line: list[int]) -> list[int]:
    """An independent model of one line slid toward index 0, written as a recursion."""
    tiles = [v for v in line if v]

    def merge(rest: list[int]) -> list[int]:
        if len(rest) >= 2 and rest[0] == rest[1]:
            return [rest[0] * 2, *merge(rest[2:])]
        return rest[:1] + merge(rest[1:]) if rest else []

    merged = merge(tiles)
    return merged + [0] * (len(line) - len(merged))


def total(rows: list[list[int]]) -> int:
    return sum(sum(row) for row in rows)


@SETTINGS
@given(boards(), st.sampled_from(DIRECTIONS))
def test_slide_conserves_the_sum_of_tiles(rows, direction):
    after, _gained = engine.slide(rows, direction)
    assert total(after) == total(rows)


@SETTINGS
@given(boards(), st.sampled_from(DIRECTIONS))
def test_points_gained_are_the_sum_of_the_tiles_created(rows, direction):
    after, gained = engine.slide(rows, direction)
    created = []
    for line_before, line_after in zip(
        lines_toward_edge(rows, direction), lines_toward_edge(after, direction), strict=True
    ):
        created += created_tiles(line_before, line_after)
    assert gained == sum(created)


@SETTINGS
@given(boards())
def test_slide_left_matches_an_independent_model(rows):
    after, _gained = engine.slide(rows, "left")
    assert after == [reference_line(row) for row in rows]


_SYMMETRIES: dict[str, tuple[Callable, Callable]] = {
    # direction: (turn the board so this direction becomes "left", turn it back)
    "right": (mirror, mirror),
    "up": (transpose, transpose),
    "down": (lambda b: mirror(transpose(b)), lambda b: transpose(mirror(b))),
}


@SETTINGS
@given(boards(), st.sampled_from(sorted(_SYMMETRIES)))
def test_every_direction_is_left_on_a_turned_board(rows, direction):
    there, back = _SYMMETRIES[direction]
    left_after, left_gained = engine.slide(there(rows), "left")
    assert engine.slide(rows, direction) == (back(left_after), left_gained)


@SETTINGS
@given(boards(), st.sampled_from(DIRECTIONS))
def test_sliding_twice_changes_nothing_more_without_merges(rows, direction):
    # After a move every line is packed: a second move the same way only merges, never slides.
    once, _ = engine.slide(rows, direction)
    twice, gained = engine.slide(once, direction)
    if gained == 0:
        assert twice == once


@SETTINGS
@given(st.one_of(boards(), full_boards(), nearly_lost_boards()))
def test_can_move_is_false_exactly_when_no_direction_changes_the_board(rows):
    if not any(any(row) for row in rows):
        return  # the all-empty board never occurs in a game (see tests/engine/test_rules.py)
    movable = [d for d in DIRECTIONS if engine.slide(rows, d)[0] != rows]
    assert engine.can_move(rows) is bool(movable)


@SETTINGS
@given(st.one_of(full_boards(), nearly_lost_boards()))
def test_a_full_board_is_lost_exactly_when_no_neighbours_match(rows):
    size = len(rows)
    pairs = any(
        (c + 1 < size and rows[r][c] == rows[r][c + 1])
        or (r + 1 < size and rows[r][c] == rows[r + 1][c])
        for r in range(size)
        for c in range(size)
    )
    assert engine.can_move(rows) is pairs
