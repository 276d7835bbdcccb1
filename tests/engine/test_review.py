"""The review's expected loss: nothing for the solver's own move, a real cost for a bad one."""

from __future__ import annotations

import pytest

import engine
from engine.solver import move_loss, review_game
from engine.solver.review import COSTLIEST, REVIEW_DEPTH

# The 512 sits in the top-left corner: right keeps it there, down (the one other valid move)
# pulls it out of the corner and under a 2.
CORNER = (512, 4, 8, 2, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)


def test_the_solvers_own_move_costs_nothing_and_a_bad_one_costs_points():
    best, own = move_loss(CORNER, 4, "right", REVIEW_DEPTH)
    assert (best, own) == ("right", 0.0)
    best, bad = move_loss(CORNER, 4, "down", REVIEW_DEPTH)
    assert best == "right"
    # Losing the corner costs more than ten empty cells' worth (540 expected points each).
    assert bad > 10 * 540


def test_a_move_that_changes_nothing_is_refused():
    with pytest.raises(engine.EngineError):
        move_loss(CORNER, 4, "up", REVIEW_DEPTH)


def solver_game(size: int, seed: int, moves: int) -> str:
    """The actions of a game in which every move is the review's own best move."""
    game, codes = engine.new_game(size, seed, 0.0), ""
    for _ in range(moves):
        valid = [d for d in engine.DIRECTIONS if engine.play(game, d, 0.0).changed]
        best, _ = move_loss(game.board, size, valid[0], REVIEW_DEPTH if size == 4 else 2)
        game = engine.play(game, best, 0.0).game
        codes += engine.ACTION_CODES[best]
    return codes


def test_a_game_of_the_solvers_moves_matches_on_every_move():
    actions = solver_game(4, 7, 30)
    review = review_game(4, 7, actions)
    assert (review.moves, review.matched, review.costliest) == (30, 30, ())
    assert review.matched_share == 1.0


def test_the_costliest_moves_are_kept_costliest_first_and_an_undone_move_is_not_reviewed():
    actions = solver_game(4, 11, 12)
    # Twelve solver moves, then each of the other moves played and undone, then a bad one kept.
    game = engine.replay(4, 11, actions)
    best, _ = move_loss(
        game.board,
        4,
        next(d for d in engine.DIRECTIONS if engine.play(game, d, 0.0).changed),
        REVIEW_DEPTH,
    )
    others = [d for d in engine.DIRECTIONS if d != best and engine.play(game, d, 0.0).changed]
    assert others, "the pinned game has a move other than the best at move 13"
    tried = "".join(engine.ACTION_CODES[d] + "z" for d in others)
    worst = max(others, key=lambda d: move_loss(game.board, 4, d, REVIEW_DEPTH)[1])
    review = review_game(4, 11, actions + tried + engine.ACTION_CODES[worst])
    assert review.moves == 13 and review.matched == 12
    (kept,) = review.costliest
    assert (kept.number, kept.played, kept.best, kept.board) == (13, worst, best, game.board)
    assert kept.loss > 0


def test_a_long_game_keeps_three_costly_moves_in_order():
    game, codes = engine.new_game(4, 3, 0.0), ""
    while len(codes) < 120 and not game.over:  # a player who always tries down first
        code = next(c for c in "dlru" if engine.act(game, engine.CODE_ACTIONS[c], 0.0).changed)
        game, codes = engine.act(game, engine.CODE_ACTIONS[code], 0.0).game, codes + code
    review = review_game(4, 3, codes)
    assert len(review.costliest) == COSTLIEST
    losses = [cost.loss for cost in review.costliest]
    assert losses == sorted(losses, reverse=True) and losses[-1] > 0
    assert review.matched < review.moves


def test_a_broken_log_is_refused():
    with pytest.raises(engine.EngineError):
        review_game(4, 1, "lx")
