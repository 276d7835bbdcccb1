"""The compact strings behind inline buttons, and their strict parsing.

Telegram echoes `callback_data` back verbatim, but a modified client can send anything, so
parsing accepts only the exact shapes built here and everything else is refused up front.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

import engine

GameAction = Literal["up", "down", "left", "right", "undo", "keep", "hint"]
_ACTION_CODES: dict[GameAction, str] = {
    "up": "u",
    "down": "d",
    "left": "l",
    "right": "r",
    "undo": "z",
    "keep": "k",
    "hint": "h",
}
_CODE_ACTIONS = {code: action for action, code in _ACTION_CODES.items()}

GAME_PATTERN = r"^g:[1-9]\d{0,14}:[udlrzkh]$"
NEW_PATTERN = r"^new(:[456])?$"
LANGUAGE_PATTERN = r"^lang:(en|nl|de)$"
CURRENT_PATTERN = r"^cur$"


@dataclass(frozen=True, slots=True)
class GameTap:
    game_id: int
    action: GameAction


def game_tap(game_id: int, action: GameAction) -> str:
    return f"g:{game_id}:{_ACTION_CODES[action]}"


def parse_game_tap(data: str | None) -> GameTap | None:
    if data is None or not re.fullmatch(GAME_PATTERN, data):
        return None
    _, game_id, code = data.split(":")
    return GameTap(int(game_id), _CODE_ACTIONS[code])


def new_game(size: int | None = None) -> str:
    return "new" if size is None else f"new:{size}"


def parse_new_game(data: str | None) -> int | None:
    """The chosen board size, or None for "show me the size menu"."""
    if data is None or not re.fullmatch(NEW_PATTERN, data):
        raise ValueError(f"not a new-game button: {data!r}")
    size = int(data[4:]) if ":" in data else None
    assert size is None or size in engine.SIZES
    return size


def language(code: str) -> str:
    return f"lang:{code}"


def parse_language(data: str | None) -> str:
    if data is None or not re.fullmatch(LANGUAGE_PATTERN, data):
        raise ValueError(f"not a language button: {data!r}")
    return data[5:]


CURRENT_BOARD = "cur"
