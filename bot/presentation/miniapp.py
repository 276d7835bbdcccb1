"""What the Mini App's page shows, in the player's language: the game as JSON and its texts.

The page draws tiles itself; every word, every formatted number and every tile's label it
shows comes from here, from the same catalogs and the same `render.tile_label` as the chat,
so page and chat never disagree on a text, a figure or a tile.
"""

from __future__ import annotations

import re
from typing import Any

import engine
from bot.models import StoredGame
from bot.presentation import captions, render
from bot.presentation.i18n import Translator

TAGS = re.compile(r"<[^>]+>")
# The largest tile an n×n board can ever hold is 2^(n²+1).
TOP_EXPONENT = max(engine.SIZES) ** 2 + 1


def _plain(html: str | None) -> str | None:
    return None if html is None else TAGS.sub("", html)


def state(t: Translator, stored: StoredGame, best: int, number: int) -> dict[str, Any]:
    """The game as committed, for the page to draw; `number` is its next move's sequence."""
    game = stored.game
    return {
        "game": stored.id,
        "seq": number,
        "size": game.size,
        "board": list(game.board),
        "score": game.score,
        "scoreText": t.number(game.score),
        "bestText": t.number(max(best, game.score)),
        "movesText": t.number(game.moves),
        "undos": game.undos_left,
        "canUndo": game.undos_left > 0 and bool(game.history),
        "seconds": game.play_seconds,
        "running": game.clock_at is not None,
        "won": game.awaiting_choice,
        "over": game.over,
        "active": stored.active,
        "hint": stored.shown_hint,
        "hints": stored.challenge_id is None and stored.daily_id is None,
        "banner": _plain(render.game_banner(t, game)),
        "title": render.size_name(t, game.size),
    }


def page_texts(t: Translator) -> dict[str, Any]:
    """Every fixed text of the page."""
    return {
        "score": t._("Score"),
        "best": t._("Best"),
        "moves": t._("Moves"),
        "undos": t._("Undos left"),
        "time": t._("Time"),
        "undo": "↩️ " + t._("Undo"),
        "hint": "💡 " + t._("Hint"),
        "keep": "▶️ " + t._("Keep going"),
        "new": "🆕 " + t._("New game"),
        "share": "📤 " + t._("Share"),
        "pick": t._("Pick a board size:"),
        "sizes": {str(size): render.size_name(t, size) for size in engine.SIZES},
        "busy": t._("Easy there: too many taps at once. Try again in a moment."),
        "offline": t._("No connection to the game. Trying again…"),
        "expired": t._("This page has expired. Close it and open the game again."),
        "tiles": tile_labels(),
    }


def tile_labels() -> dict[str, str]:
    """Every tile any board can hold, by value: the page slides and merges before the server
    answers, so it needs the label of a tile the board does not hold yet."""
    return {str(1 << e): render.tile_label(1 << e) for e in range(1, TOP_EXPONENT + 1)}


def share_toast(t: Translator, shared: bool) -> str:
    if not shared:
        return captions.nothing_to_show(t)
    return t._("Your picture is in the chat.")
