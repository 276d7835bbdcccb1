"""What the Mini App's page shows, in the player's language: the game as JSON and its texts.

The page draws tiles itself; every word, every formatted number and every tile's label it
shows comes from here, from the same catalogs and the same `render.tile_label` as the chat,
so page and chat never disagree on a text, a figure or a tile. The fixed texts of every
language come with the page (`page_catalog`), so a page whose first call fails can still say
so, in its player's language.
"""

from __future__ import annotations

import re
from typing import Any

import engine
from bot.config import LANGUAGES
from bot.models import StoredGame
from bot.presentation import captions, render, reviews, toasts
from bot.presentation.i18n import Translator, translator
from engine.solver import GameReview

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


def no_game(t: Translator, best: int) -> dict[str, Any]:
    """What the page draws for a player with no game running: an empty classic board and
    the sizes to pick from, as /new offers them, until the player picks one."""
    size = engine.SIZES[0]
    return {
        "game": None,
        "seq": 0,
        "size": size,
        "board": [0] * size * size,
        "score": 0,
        "scoreText": t.number(0),
        "bestText": t.number(best),
        "movesText": t.number(0),
        "undos": engine.UNDO_LIMIT,
        "canUndo": False,
        "seconds": 0,
        "running": False,
        "won": False,
        "over": False,
        "active": False,
        "hint": None,
        "hints": True,
        "banner": None,
        "title": render.size_name(t, size),
    }


def page_texts(t: Translator) -> dict[str, Any]:
    """Every fixed text of the page, in one language."""
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
        "busy": toasts.too_fast(t),
        "hints": t._("Easy on the hints: give me a moment to think."),
        "offline": t._("No connection. Trying again…"),
        "unsent": t._("Not sent: there's no connection yet."),
        "unreached": t._("Couldn't load the game. Check your connection and try again."),
        "retry": "🔄 " + t._("Try again"),
        "expired": t._("This page has expired. Close it and open the game again."),
        "board": t._("Game board"),
        "empty": t._("empty cell"),
        "merged": t._("Merged: {tiles}."),
        "contrast": t._("High-contrast colours"),
        "moved": {d: _moved(t, d) for d in engine.DIRECTIONS},
        "review": "🔎 " + t._("Review"),
        "making": reviews.on_its_way(t),
        "back": "◀️ " + t._("Back"),
        "next": t._("Next") + " ▶️",
        "close": "✖️ " + t._("Close"),
    }


def _moved(t: Translator, direction: engine.Direction) -> str:
    """What a screen reader says first after a move: a sentence, so it starts with a capital
    even where the direction's own words do not ("nach links" → "Nach links geschoben.")."""
    said = t._("Moved {direction}.", direction=render.direction_name(t, direction))
    return said[:1].upper() + said[1:]


def page_catalog() -> dict[str, Any]:
    """The page's texts in every language, and every tile's label: what comes with the page."""
    texts = {language: page_texts(translator(language)) for language in LANGUAGES}
    return {"texts": texts, "tiles": tile_labels()}


def tile_labels() -> dict[str, str]:
    """Every tile any board can hold, by value: the page slides and merges before the server
    answers, so it needs the label of a tile the board does not hold yet."""
    return {str(1 << e): render.tile_label(1 << e) for e in range(1, TOP_EXPONENT + 1)}


def review(t: Translator, made: GameReview) -> dict[str, Any]:
    """A game's review for the page to step through: its costliest moves in the order they
    were played, each on the position it was played on (the tiles before the move, nothing
    of what came after), worded as the chat's picture words them."""
    return {
        "size": made.size,
        "moves": [
            {
                "number": cost.number,
                "board": list(cost.board),
                "played": cost.played,
                "best": cost.best,
                "title": reviews.move_title(t, cost.number),
                "yours": reviews.your_move(t, cost.played),
                "better": reviews.better_move(t, cost.best),
                "cost": reviews.cost(t, made.size, cost.loss),
            }
            for cost in sorted(made.costliest, key=lambda cost: cost.number)
        ],
        "totals": reviews.totals(t, made),
    }


def old_game_toast(t: Translator) -> str:
    """A move on a game that has ended: the page offers the sizes for the next one."""
    return t._("This game has ended. Pick a board size to start a new one.")


def share_toast(t: Translator, shared: bool) -> str:
    if not shared:
        return captions.nothing_to_show(t, started=True)
    return t._("Your picture is in the chat.")
