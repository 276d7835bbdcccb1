"""Games to compact JSON-compatible dicts and back, refusing anything tampered with.

Tiles are stored as exponents (0 = empty, 1 = 2, 11 = 2048): short, and a non-power of two
cannot even be written down. Every field is checked on load, because saves come back from a
database that other code (or a person) may have touched.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

from engine.board import Board
from engine.errors import EngineError
from engine.game import SEED_LIMIT, SIZES, UNDO_LIMIT, Game, Snapshot, Win

FORMAT_VERSION = 1
_FIELDS = frozenset({"v", "n", "seed", "b", "sc", "mv", "ud", "h", "w", "kg", "ew", "pt", "ca"})


def _exponents(board: Board) -> list[int]:
    return [value.bit_length() - 1 if value else 0 for value in board]


def _win(win: Win | None) -> list[int | float] | None:
    return None if win is None else [win.moves, win.play_seconds]


def to_dict(game: Game) -> dict[str, Any]:
    return {
        "v": FORMAT_VERSION,
        "n": game.size,
        "seed": game.seed,
        "b": _exponents(game.board),
        "sc": game.score,
        "mv": game.moves,
        "ud": game.undos_left,
        "h": [
            [_exponents(s.board), s.score, s.moves, _win(s.win), s.kept_going] for s in game.history
        ],
        "w": _win(game.win),
        "kg": game.kept_going,
        "ew": game.ever_won,
        "pt": game.play_seconds,
        "ca": game.clock_at,
    }


def _int(value: Any, what: str, low: int, high: int) -> int:
    if type(value) is not int or not low <= value <= high:
        raise EngineError(f"{what} must be a whole number from {low} to {high}, not {value!r}")
    return value


def _number(value: Any, what: str) -> float:
    try:
        valid = type(value) in (int, float) and math.isfinite(value) and value >= 0
    except OverflowError:  # an int too large to be a float is not a sane number of seconds
        valid = False
    if not valid:
        raise EngineError(f"{what} must be a finite number of seconds >= 0, not {value!r}")
    return float(value)


def _bool(value: Any, what: str) -> bool:
    if type(value) is not bool:
        raise EngineError(f"{what} must be true or false, not {value!r}")
    return value


def _board(value: Any, size: int, what: str) -> Board:
    cells = size * size
    if type(value) is not list or len(value) != cells:
        raise EngineError(f"{what} must be a list of {cells} exponents")
    # The largest tile an n×n board can ever hold is 2^(n²+1).
    top = cells + 1
    for e in value:
        if type(e) is not int or not 0 <= e <= top:
            raise EngineError(f"{what} holds {e!r}, not a tile exponent from 0 to {top}")
    return tuple(1 << e if e else 0 for e in value)


def _load_win(value: Any, what: str) -> Win | None:
    if value is None:
        return None
    if type(value) is not list or len(value) != 2:
        raise EngineError(f"{what} must be null or [moves, seconds]")
    return Win(_int(value[0], f"{what} moves", 1, 1 << 62), _number(value[1], f"{what} time"))


def _score(value: Any, what: str) -> int:
    return _int(value, what, 0, 1 << 62)


def from_dict(data: Any) -> Game:
    if type(data) is not dict:
        raise EngineError("a saved game must be a JSON object")
    if type(data.get("v")) is not int or data["v"] != FORMAT_VERSION:
        raise EngineError(f"unknown saved-game format version {data.get('v')!r}")
    try:
        size = data["n"]
        if size not in SIZES or type(size) is not int:
            raise EngineError(f"board size must be one of {SIZES}, not {size!r}")
        undos_left = _int(data["ud"], "undos left", 0, UNDO_LIMIT)
        raw_history = data["h"]
        if type(raw_history) is not list or len(raw_history) > undos_left:
            raise EngineError("history must be a list no longer than the undos left")
        history = []
        for i, entry in enumerate(raw_history):
            if type(entry) is not list or len(entry) != 5:
                raise EngineError(f"history entry {i} must have 5 fields")
            history.append(
                Snapshot(
                    board=_board(entry[0], size, f"history board {i}"),
                    score=_score(entry[1], f"history score {i}"),
                    moves=_int(entry[2], f"history moves {i}", 0, 1 << 62),
                    win=_load_win(entry[3], f"history win {i}"),
                    kept_going=_bool(entry[4], f"history keep-going {i}"),
                )
            )
        clock_at = data["ca"]
        game = Game(
            size=size,
            seed=_int(data["seed"], "seed", 0, SEED_LIMIT - 1),
            board=_board(data["b"], size, "board"),
            score=_score(data["sc"], "score"),
            moves=_int(data["mv"], "moves", 0, 1 << 62),
            undos_left=undos_left,
            history=tuple(history),
            win=_load_win(data["w"], "win"),
            kept_going=_bool(data["kg"], "keep-going"),
            ever_won=_bool(data["ew"], "ever-won"),
            play_seconds=_number(data["pt"], "play time"),
            clock_at=None if clock_at is None else _number(clock_at, "clock"),
        )
    except KeyError as missing:
        raise EngineError(f"saved game lacks the field {missing}") from None
    if data.keys() != _FIELDS:
        raise EngineError("saved game has unknown fields")
    _check_consistent(game)
    return game


def _check_consistent(game: Game) -> None:
    """Reject saves whose fields cannot belong together in a real game.

    The history is checked as strictly as the current state: an undo makes a history entry
    the current state, and a save the engine would refuse to reload after one undo must not
    load in the first place.
    """
    now = Snapshot(game.board, game.score, game.moves, game.win, game.kept_going)
    states = [*game.history, now]
    for state in states:
        if sum(1 for value in state.board if value) < 2:
            raise EngineError("a game always has at least two tiles")
        if state.kept_going and state.win is None:
            raise EngineError("a game can only keep going after a win")
        if state.win is not None and (not game.ever_won or state.win.moves > state.moves):
            raise EngineError("the win record does not fit the game")
    for earlier, later in itertools.pairwise(states):
        if later.moves <= earlier.moves:
            raise EngineError("history moves must increase toward the current move")
        if later.score < earlier.score:
            raise EngineError("the score never goes down from one move to the next")
        if earlier.win is not None and (
            later.win != earlier.win or earlier.kept_going > later.kept_going
        ):
            raise EngineError("a win, and the choice to keep going, stay for the rest of the game")
