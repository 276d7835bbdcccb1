"""Reading boards back from the messages the bot sent, and replaying taps on the engine."""

from __future__ import annotations

import re

import engine
from bot.emulator import StoredMessage
from bot.presentation.render import LADDER


def isolated(name: str) -> str:
    """A name as the bot writes it into its texts: inside Unicode isolates (FSI ... PDI)."""
    return f"\u2068{name}\u2069"


def buttons(message: StoredMessage) -> dict[str, str]:
    markup = message.reply_markup or {"inline_keyboard": []}
    return {
        button["text"]: button.get(
            "callback_data", button.get("url", button.get("switch_inline_query", ""))
        )
        for row in markup["inline_keyboard"]
        for button in row
    }


def button_data(message: StoredMessage, label: str) -> str:
    matches = [data for text, data in buttons(message).items() if text.startswith(label)]
    assert len(matches) == 1, f"no single button {label!r} in {list(buttons(message))}"
    return matches[0]


def grid(message: StoredMessage) -> list[str]:
    """The emoji grid lines of a board message (between the title and the legend)."""
    lines = message.text.split("\n")
    size = len(lines[1])
    return lines[1 : 1 + size]


DIRECTION = {"l": "left", "u": "up", "r": "right", "d": "down"}


def shown_board(text: str) -> tuple[int, ...]:
    """Read the tile values back from a board message's emoji grid."""
    lines = text.split("\n")
    size = len(lines[1])
    return tuple(
        0 if ch == LADDER[0] else 1 << LADDER.index(ch)
        for line in lines[1 : 1 + size]
        for ch in line
    )


def shown_moves(text: str) -> int:
    match = re.search(r"(\d+) moves?", text)
    assert match is not None, text
    return int(match.group(1))


def replay(game: engine.Game, codes: str | list[str]) -> engine.Game:
    """Where a series of taps (l, u, r, d) leads, applied one after another."""
    for code in codes:
        game = engine.play(game, DIRECTION[code], 0.0).game
    return game


def moving_code(game: engine.Game) -> str:
    """A tap (l, r, u, d) that moves this game; which one depends on the tiles its seed spawned."""
    return next(code for code in "lrud" if replay(game, code) != game)


# Right keeps the 512 in its corner; down, the one other move, pulls it out: a hint with a
# reason ("any other move gives up the corner") that every test of hints can count on.
CORNER = [[512, 4, 8, 2], [2, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]
