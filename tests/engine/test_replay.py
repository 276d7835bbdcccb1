"""Replays: a game rebuilt from its seed and its action letters is the game that was played.

The played games here are real ones (live `act` calls with a running clock); the replay only
sees the seed and the letters recorded for the actions that changed the game.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine import EngineError
from tests.support.data import LONG_GAME
from tests.support.databases import without_clock

ACTIONS = ("up", "down", "left", "right", "undo", "keep")
# Mostly moves, so that games get somewhere; undos and "keep going" often enough to matter.
_ACTION = st.sampled_from(ACTIONS[:4] * 4 + ACTIONS[4:])


def play_live(
    size: int, seed: int, actions: list[str], gaps: list[float]
) -> tuple[engine.Game, str]:
    """Play `actions` as the bot does; return the game and the letters it would store."""
    now = 1_700_000_000.0
    game = engine.new_game(size, seed, now)
    log = []
    for action, gap in zip(actions, gaps, strict=True):
        now += gap
        turn = engine.act(game, action, now)
        if turn.changed:
            log.append(engine.ACTION_CODES[action])
        game = turn.game
    return game, "".join(log)


# Half the examples start with the stored long game up to its winning move, so that
# winning, keeping going and undoing the win get replayed too, not only early-game moves.
_TO_THE_WIN = [engine.CODE_ACTIONS[code] for code in LONG_GAME["actions"][: LONG_GAME["win_at"]]]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    size=st.sampled_from(engine.SIZES),
    seed=st.integers(min_value=0, max_value=2**64 - 1),
    actions=st.lists(_ACTION, max_size=150),
    gap=st.floats(min_value=0, max_value=200),
    near_win=st.booleans(),
)
def test_replaying_any_actions_gives_the_game_played(size, seed, actions, gap, near_win):
    if near_win:
        size, seed, actions = 4, LONG_GAME["seed"], _TO_THE_WIN + actions
    played, log = play_live(size, seed, actions, [gap] * len(actions))
    assert engine.replay(size, seed, log) == without_clock(played)


def test_the_long_game_replays_to_its_recorded_figures():
    game = engine.replay(4, LONG_GAME["seed"], LONG_GAME["actions"])
    assert (game.moves, game.score, game.highest) == (
        LONG_GAME["moves"],
        LONG_GAME["score"],
        LONG_GAME["highest"],
    )
    assert game.win is not None and game.win.moves == LONG_GAME["win_moves"]
    assert game.kept_going and game.ever_won
    assert game.undos_left == engine.UNDO_LIMIT - LONG_GAME["actions"].count("z")


def test_replay_steps_give_the_opening_then_one_game_per_action():
    steps = list(engine.replay_steps(5, 99, "lurd"))
    assert steps[0] == engine.new_game(5, 99, 0.0)
    assert len(steps) == 5
    assert [g.moves for g in steps] == [0, 1, 2, 3, 4]
    assert steps[-1] == engine.replay(5, 99, "lurd")


@pytest.mark.parametrize(
    ("actions", "problem"),
    [
        ("lx", "action 1 is 'x'"),
        ("z", "action 0 (undo) changes nothing"),
        ("k", "action 0 (keep) changes nothing"),
        ("L", "action 0 is 'L'"),
    ],
)
def test_a_log_no_real_game_could_write_is_refused(actions, problem):
    with pytest.raises(EngineError, match=problem.replace("(", r"\(").replace(")", r"\)")):
        engine.replay(4, 1, actions)


def test_a_move_that_moves_nothing_is_refused():
    seed, stuck = next(
        (seed, direction)
        for seed in range(100)
        for direction in engine.DIRECTIONS
        if not engine.act(engine.new_game(4, seed, 0.0), direction, 0.0).changed
    )
    with pytest.raises(EngineError, match="changes nothing"):
        engine.replay(4, seed, engine.ACTION_CODES[stuck])
