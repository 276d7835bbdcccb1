"""GameService: games started, played, undone and hinted, on real storage."""

from __future__ import annotations

import dataclasses
import random

import pytest

import engine
from bot.models import StoredGame
from bot.services.games import move_number


@pytest.mark.parametrize("seed", range(20))
def test_the_sequence_number_grows_with_every_action_without_an_action_log(seed):
    """Games saved before actions were logged: undo after keep going included."""
    chooser = random.Random(seed)
    rows = (1024, 1024, 0, 0) + (0,) * 12
    game = dataclasses.replace(engine.new_game(4, seed, 0.0), board=rows)
    stored = StoredGame(1, 1, 1, game, True, None, False, actions=None)
    number = move_number(stored)
    for _ in range(300):
        action = chooser.choice(["left", "left", "up", "right", "down", "undo", "keep"])
        turn = engine.act(stored.game, action, 0.0)
        if not turn.changed:
            continue
        stored = dataclasses.replace(stored, game=turn.game)
        assert move_number(stored) > number, action
        number = move_number(stored)
