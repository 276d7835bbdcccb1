"""Every game as its seed plus one character per action, and the game rebuilt from them.

Spawns depend only on the seed and the move number, so the seed and the actions that
changed the game (moves, undos, keep going) are the whole game: `replay` rebuilds every
tile, the score, the win and the undos left. What it cannot rebuild is the play clock,
which depends on when each action happened: a replayed game's clock reads zero.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from typing import Literal

from engine.board import Direction
from engine.errors import EngineError
from engine.game import Game, Turn, keep_going, new_game, play, undo

# What a player can do to a game: the four moves, one undo, or keep going after 2048.
Action = Direction | Literal["undo", "keep"]

ACTION_CODES: dict[Action, str] = {
    "up": "u",
    "down": "d",
    "left": "l",
    "right": "r",
    "undo": "z",
    "keep": "k",
}
CODE_ACTIONS: dict[str, Action] = {code: action for action, code in ACTION_CODES.items()}


def act(game: Game, action: Action, now: float) -> Turn:
    """Apply any action; the one entry point both live play and replays go through."""
    if action == "undo":
        return undo(game, now)
    if action == "keep":
        return keep_going(game, now)
    return play(game, action, now)


def replay_steps(size: int, seed: int, actions: str) -> Iterator[Game]:
    """The opening game, then the game after each action, in order.

    A log with an unknown code, or with an action that would have changed nothing (which a
    real game never records), is refused with EngineError when the replay reaches it.
    """
    game = new_game(size, seed, 0.0)
    yield game
    for index, code in enumerate(actions):
        action = CODE_ACTIONS.get(code)
        if action is None:
            raise EngineError(f"action {index} is {code!r}, not one of {''.join(CODE_ACTIONS)}")
        turn = act(game, action, 0.0)
        if not turn.changed:
            raise EngineError(f"action {index} ({action}) changes nothing: {turn.outcome}")
        game = turn.game
        yield game


def replay(size: int, seed: int, actions: str) -> Game:
    """The game after all `actions`: equal to the one played, except for its clock."""
    return deque(replay_steps(size, seed, actions), maxlen=1)[0]
