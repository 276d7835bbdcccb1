"""2048's rules as pure functions over plain data: no Telegram, no I/O, no hidden clock or RNG.

The bot uses `new_game`, `act` (or `play`, `undo`, `keep_going`), `replay` and
`to_dict`/`from_dict`. `slide` and `can_move` take a board as rows of tile values, checked,
for the tests, which state each rule on a board drawn as rows; the bot never calls them.
"""

from __future__ import annotations

from engine.board import DIRECTIONS, Board, Direction, has_move, move
from engine.commitment import SALT_HEX_DIGITS, commitment
from engine.errors import EngineError
from engine.game import (
    IDLE_CAP_SECONDS,
    SIZES,
    UNDO_LIMIT,
    WIN_TILE,
    Game,
    Outcome,
    Turn,
    Win,
    keep_going,
    new_game,
    play,
    undo,
)
from engine.record import Verdict, record, verify
from engine.replay import ACTION_CODES, CODE_ACTIONS, Action, act, replay, replay_steps
from engine.serialize import FORMAT_VERSION, from_dict, to_dict

__all__ = [
    "ACTION_CODES",
    "CODE_ACTIONS",
    "DIRECTIONS",
    "FORMAT_VERSION",
    "IDLE_CAP_SECONDS",
    "SALT_HEX_DIGITS",
    "SIZES",
    "UNDO_LIMIT",
    "WIN_TILE",
    "Action",
    "Direction",
    "EngineError",
    "Game",
    "Outcome",
    "Turn",
    "Verdict",
    "Win",
    "act",
    "can_move",
    "commitment",
    "from_dict",
    "keep_going",
    "new_game",
    "play",
    "record",
    "replay",
    "replay_steps",
    "slide",
    "to_dict",
    "undo",
    "verify",
]


def _flatten(rows: list[list[int]]) -> tuple[Board, int]:
    if not isinstance(rows, list | tuple):
        raise EngineError("rows must form a square grid of at least 2×2")
    size = len(rows)
    if size < 2 or any(not isinstance(row, list | tuple) or len(row) != size for row in rows):
        raise EngineError("rows must form a square grid of at least 2×2")
    cells = tuple(value for row in rows for value in row)
    for value in cells:
        if type(value) is not int or value < 0 or value & (value - 1):
            raise EngineError(f"{value!r} is not a tile: use 0 or a power of two")
        if value == 1:
            raise EngineError("1 is not a tile: the smallest tile is 2")
    return cells, size


def slide(rows: list[list[int]], direction: str) -> tuple[list[list[int]], int]:
    """Slide a board (top row first, 0 = empty) without spawning; return it and the points."""
    if direction not in DIRECTIONS:
        raise EngineError(f"direction must be one of {DIRECTIONS}, not {direction!r}")
    cells, size = _flatten(rows)
    after, gained = move(cells, size, direction)  # type: ignore[arg-type]
    return [list(after[r * size : (r + 1) * size]) for r in range(size)], gained


def can_move(rows: list[list[int]]) -> bool:
    """False exactly when the game would be over: full, and no equal orthogonal neighbours."""
    cells, size = _flatten(rows)
    return has_move(cells, size)
