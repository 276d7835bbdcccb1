"""The move-hint solver: valid, deterministic hints on every size, and a quality floor.

Searches here use `budget_ms=None` with a `max_depth`, which makes them reproducible on any
machine; only `test_tiny_budget_still_returns_a_valid_move` runs against the clock, and it
asserts nothing about time.
"""

from __future__ import annotations

import json
import pickle
import random
from concurrent.futures import ProcessPoolExecutor

import pytest

from engine.board import DIRECTIONS, has_move, move
from engine.solver import Hint, best_move
from engine.solver.common import DIRECTION_ORDER
from engine.solver.compiled import cache_directory, compiled
from engine.solver.generic import move_grid, search_generic, to_grid
from engine.solver.tables4 import pack, unpack
from tests.support.data import DATA

POSITIONS = DATA / "solver_positions.json"

# The CI setting: a deterministic search this many player moves deep (about 1 ms a hint).
CI_DEPTH = 3
# Share of the 300 positions in tests/data/solver_positions.json where the CI setting picks
# the stored move of the depth-10 reference search: 189/300 = 63.0%, measured with
# `python -m benchmarks.solver --agreement-only` (which also printed depth 1: 46.0%, depth 2:
# 55.0%, depth 4: 69.7%, and 85.0% for the real 50 ms hint). The test allows MARGIN below
# it: a change that weakens the evaluation or the search fails, while one that merely moves
# a near-tie or two does not. Re-measure and update this after a deliberate change.
MEASURED_AGREEMENT = 189 / 300
MARGIN = 0.03


def _board(*rows: list[int]) -> tuple[int, ...]:
    return tuple(value for row in rows for value in row)


def _valid(board: tuple[int, ...], size: int) -> list[str]:
    return [d for d in DIRECTIONS if move(board, size, d)[0] != board]


def _random_board(rng: random.Random, size: int, top: int, fill: float) -> tuple[int, ...]:
    """A board with roughly `fill` of its cells taken by tiles up to 2**top."""
    return tuple(
        (1 << rng.randint(1, top)) if rng.random() < fill else 0 for _ in range(size * size)
    )


def _one_way_board(rng: random.Random, size: int) -> tuple[int, ...]:
    """A board on which exactly one direction is valid.

    Tiles fill the right-hand columns of every row with no equal neighbours, so only "left"
    moves anything; a random rotation or reflection then picks which direction that is.
    """
    while True:
        width = rng.randint(1, size - 1)
        grid = [
            [0] * (size - width) + [1 << rng.randint(1, 12) for _ in range(width)]
            for _ in range(size)
        ]
        for _ in range(rng.randint(0, 3)):
            grid = [list(row) for row in zip(*grid[::-1], strict=True)]  # rotate a quarter turn
        if rng.random() < 0.5:
            grid = [row[::-1] for row in grid]
        board = tuple(value for row in grid for value in row)
        if len(_valid(board, size)) == 1:
            return board


def _dead_board(size: int) -> tuple[int, ...]:
    return tuple(2 if (r + c) % 2 else 4 for r in range(size) for c in range(size))


@pytest.mark.parametrize("size", [4, 5, 6])
def test_hints_are_always_valid_moves(size):
    rng = random.Random(size)
    for _ in range(60 if size == 4 else 25):
        board = _random_board(rng, size, top=11, fill=rng.choice([0.3, 0.7, 0.9, 1.0]))
        hint = best_move(board, size, budget_ms=None, max_depth=2)
        if not has_move(board, size):
            assert hint is None
            continue
        assert hint is not None
        assert hint.direction in _valid(board, size)


@pytest.mark.parametrize("size", [4, 5, 6])
def test_a_single_valid_direction_is_the_hint(size):
    rng = random.Random(100 + size)
    seen = set()
    for _ in range(40):
        board = _one_way_board(rng, size)
        (only,) = _valid(board, size)
        hint = best_move(board, size, budget_ms=None, max_depth=3)
        assert hint is not None
        assert hint.direction == only
        assert hint.depth == 0  # forced: nothing to search
        seen.add(only)
    assert seen == set(DIRECTIONS)


@pytest.mark.parametrize("size", [4, 5, 6])
def test_no_valid_move_gives_none(size):
    assert best_move(_dead_board(size), size) is None
    assert best_move(_dead_board(size), size, budget_ms=None, max_depth=3) is None


def test_a_full_board_with_one_pair_is_not_lost():
    board = _board([2, 2, 8, 16], [4, 8, 16, 32], [2, 4, 8, 16], [4, 8, 16, 32])
    assert sorted(_valid(board, 4)) == ["left", "right"]
    hint = best_move(board, 4, budget_ms=None, max_depth=3)
    assert hint is not None
    assert hint.direction in ("left", "right")


@pytest.mark.parametrize("size", [4, 5, 6])
def test_same_board_and_depth_give_the_same_hint(size):
    rng = random.Random(7 * size)
    boards = [_random_board(rng, size, top=9, fill=0.6) for _ in range(6)]
    depth = 3 if size == 4 else 2
    first = [best_move(board, size, budget_ms=None, max_depth=depth) for board in boards]
    # Other searches in between must not leave anything behind that changes an answer.
    best_move(_random_board(rng, size, top=10, fill=0.8), size, budget_ms=None, max_depth=depth)
    again = [best_move(board, size, budget_ms=None, max_depth=depth) for board in boards]
    for one, two in zip(first, again, strict=True):
        assert (one is None) == (two is None)
        if one is not None and two is not None:
            assert (one.direction, one.depth, one.nodes) == (two.direction, two.depth, two.nodes)


def test_compiled_moves_match_the_engine():
    """The packed 4×4 tables slide exactly like engine.board.move, exponents 1..15 included."""
    search = compiled()
    rng = random.Random(2048)
    for _ in range(3000):
        ranks = [rng.choice((0, 0, 0, *range(1, 16))) for _ in range(16)]
        while ranks.count(15) > 1:  # two 32768s never reach the compiled path
            ranks[ranks.index(15)] = 14
        board = tuple(1 << r if r else 0 for r in ranks)
        packed = pack(tuple(ranks))
        for index, direction in enumerate(DIRECTION_ORDER):
            expected, _ = move(board, 4, direction)
            moved = search.move(packed, index)
            assert tuple(1 << r if r else 0 for r in unpack(moved)) == expected


@pytest.mark.parametrize("size", [4, 5, 6])
def test_generic_moves_match_the_engine(size):
    rng = random.Random(size * 31)
    for _ in range(500):
        ranks = tuple(rng.choice((0, 0, *range(1, 19))) for _ in range(size * size))
        board = tuple(1 << r if r else 0 for r in ranks)
        rows, cols = to_grid(ranks, size)
        for direction in DIRECTIONS:
            expected, _ = move(board, size, direction)
            moved, moved_cols = move_grid(rows, cols, direction)
            assert tuple(1 << r if r else 0 for row in moved for r in row) == expected
            assert moved_cols == tuple(zip(*moved, strict=True))


def test_compiled_and_generic_paths_agree_on_4x4():
    """Same tree, same evaluation: both paths value every root move alike."""
    search = compiled()
    rng = random.Random(44)
    for _ in range(25):
        ranks = tuple(rng.choice((0, 0, 0, 1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10)) for _ in range(16))
        packed = pack(ranks)
        rows, cols = to_grid(ranks, 4)
        assert search.evaluate(packed) == pytest.approx(
            sum(_line_scores(rows)) + sum(_line_scores(cols))
        )
        for depth, cutoff in ((1, 1e-4), (2, 1e-4), (3, 1e-4), (3, 3e-3), (4, 3e-2)):
            search.begin()
            values, _, _, late = search.search(packed, depth, None, cutoff)
            assert not late
            fast = [(d, v) for d, v in zip(DIRECTION_ORDER, values, strict=True) if v is not None]
            slow, _, _ = search_generic(rows, cols, 4, depth, None, cutoff, {}, {})
            assert [d for d, _ in fast] == [d for d, _ in slow]
            for (_, a), (_, b) in zip(fast, slow, strict=True):
                assert a == pytest.approx(b, rel=1e-9)


def test_a_depth_cut_short_keeps_the_moves_it_finished():
    """Root moves go in the order asked; past the deadline the finished ones keep exact values.

    The deadline here has passed before the search starts; the clock is read every
    `CLOCK_EVERY` chance nodes, which this board's right and left moves stay under.
    """
    search = compiled()
    packed = pack((2, 0, 3, 7, 0, 0, 10, 5, 0, 2, 6, 0, 5, 1, 0, 0))
    search.begin()
    full, _, _, late = search.search(packed, 4, None, 1e-4)
    assert not late and None not in full
    search.begin()
    right_first = tuple(DIRECTION_ORDER.index(d) for d in ("right", "left", "down", "up"))
    cut, _, _, late = search.search(packed, 4, 1e-9, 1e-4, right_first)
    assert late
    assert cut == [None, None, full[2], full[3]]  # up, down unfinished; left, right exact


def test_compiled_code_is_cached_where_numba_is_told(tmp_path, monkeypatch):
    """`NUMBA_CACHE_DIR` is honoured, and a directory that cannot be made means no cache."""
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "numba"))
    assert cache_directory() == tmp_path / "numba"
    assert (tmp_path / "numba").is_dir()
    (tmp_path / "file").write_text("")
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "file" / "numba"))
    assert cache_directory() is None


def _line_scores(lines):
    from engine.solver.heuristic import line_score

    return [line_score(line) for line in lines]


@pytest.mark.parametrize(
    ("size", "big"),
    [(5, 65536), (5, 131072), (6, 131072), (6, 1 << 20)],
)
def test_exponents_above_15_work_on_big_boards(size, big):
    rng = random.Random(big)
    for _ in range(5):
        board = list(_random_board(rng, size, top=10, fill=0.6))
        board[0] = big
        board[1] = big  # a merge into 2**17 or more must be understood
        board = tuple(board)
        hint = best_move(board, size, budget_ms=None, max_depth=2)
        assert hint is not None
        assert hint.direction in _valid(board, size)
    # Two huge tiles side by side in an otherwise locked board: merging them is the only move.
    board = list(_dead_board(size))
    board[0] = board[1] = big
    hint = best_move(tuple(board), size, budget_ms=None, max_depth=2)
    assert hint is not None
    assert hint.direction in ("left", "right")


def test_4x4_with_tiles_beyond_the_compiled_path():
    """Two 32768s (which the 4-bit cells cannot merge) or a 65536 take the generic path."""
    board = _board([32768, 32768, 4, 2], [0, 8, 16, 2], [0, 0, 4, 8], [0, 0, 0, 2])
    hint = best_move(board, 4, budget_ms=None, max_depth=3)
    assert hint is not None and hint.direction in _valid(board, 4)
    board = _board([65536, 32768, 4, 2], [2, 8, 16, 4], [4, 2, 8, 16], [0, 4, 2, 8])
    hint = best_move(board, 4, budget_ms=None, max_depth=3)
    assert hint is not None and hint.direction in _valid(board, 4)
    assert best_move((131072, 2, 4, 8, 2, 4, 8, 16, 4, 8, 16, 32, 8, 16, 32, 64), 4) is None


def test_tiny_budget_still_returns_a_valid_move():
    rng = random.Random(5)
    for size in (4, 5, 6):
        for _ in range(5):
            board = _random_board(rng, size, top=10, fill=0.5)
            hint = best_move(board, size, budget_ms=0.01)
            if not has_move(board, size):
                assert hint is None
                continue
            assert hint is not None
            assert hint.direction in _valid(board, size)
            assert hint.depth <= 1  # depth 1 always completes; nothing deeper fits 10 µs


def test_a_budget_deepens_the_search():
    board = _board([2, 4, 8, 16], [0, 0, 2, 2], [4, 0, 0, 0], [0, 0, 0, 2])
    hint = best_move(board, 4, budget_ms=200)
    assert hint is not None and hint.depth >= 2
    assert hint.nodes > 0 and hint.elapsed_ms > 0


def test_roomy_big_boards_stay_shallow_unless_asked():
    """A 6×6 board that is mostly empty gets depth 2 under a budget, deeper only on request."""
    board = (2, 4, 8, 2) + (0,) * 32
    hint = best_move(board, 6, budget_ms=5000)
    assert hint is not None and hint.depth == 2
    hint = best_move(board, 6, budget_ms=None, max_depth=3)
    assert hint is not None and hint.depth == 3


def test_bad_input_is_rejected():
    with pytest.raises(ValueError):
        best_move((0,) * 15, 4)
    with pytest.raises(ValueError):
        best_move((3,) + (0,) * 15, 4)
    with pytest.raises(ValueError):
        best_move((2,) + (0,) * 15, 4, budget_ms=None, max_depth=None)
    with pytest.raises(ValueError):
        best_move((2,) + (0,) * 15, 4, max_depth=0)


def _hint_in_worker(board: tuple[int, ...]) -> Hint | None:
    return best_move(board, 4, budget_ms=None, max_depth=2)


def test_hints_work_from_a_process_pool():
    board = _board([2, 4, 8, 16], [0, 0, 2, 2], [4, 0, 0, 0], [0, 0, 0, 2])
    with ProcessPoolExecutor(max_workers=1) as pool:
        remote = pool.submit(_hint_in_worker, board).result(timeout=60)
    local = _hint_in_worker(board)
    assert remote is not None and local is not None
    assert remote.direction == local.direction
    assert pickle.loads(pickle.dumps(remote)) == remote


def test_hint_quality_does_not_regress():
    """Agreement with a much deeper search on ~300 positions from real self-played games."""
    data = json.loads(POSITIONS.read_text())
    positions = data["positions"]
    assert len(positions) >= 250
    agree = 0
    for item in positions:
        board = tuple(item["board"])
        hint = best_move(board, data["size"], budget_ms=None, max_depth=CI_DEPTH)
        assert hint is not None
        agree += hint.direction == item["move"]
    share = agree / len(positions)
    assert share >= MEASURED_AGREEMENT - MARGIN, f"agreement {share:.3f}"
