"""What players read of a game's review: its button, its caption, and why none comes now.

The review itself (engine/solver/review.py) measures each move in expected points, the
solver's rating of a position, which can run to a million in a game that scores a thousand.
So the picture never shows them as a number: each cost is one of four steps in words, from
a small slip to a real chance of losing the game. The picture's labels are here too, for
images.py to draw; the board's 🔎 is in render.py.
"""

from __future__ import annotations

import math

from bot.presentation.i18n import Translator
from bot.presentation.render import direction_name
from engine import Direction
from engine.solver import GameReview, Severity, severity


def title(t: Translator) -> str:
    return t._("Game review")


def move_title(t: Translator, number: int) -> str:
    return t._("Move {number}", number=t.number(number))


def your_move(t: Translator, direction: Direction) -> str:
    return t._("Your move: {direction}", direction=direction_name(t, direction))


def better_move(t: Translator, direction: Direction) -> str:
    return t._("Better: {direction}", direction=direction_name(t, direction))


def cost(t: Translator, size: int, loss: float) -> str:
    """What a move cost, in words: the solver's rating runs to a million in a game that
    scores a thousand, so no number of it would read right next to the game's points."""
    words = {
        Severity.SLIP: t._("Small slip"),
        Severity.MISTAKE: t._("Clear mistake"),
        Severity.BIG_MISTAKE: t._("Big mistake"),
        Severity.RISKS_THE_GAME: t._("Risks ending your game"),
    }
    return words[severity(size, loss)]


def totals(t: Translator, review: GameReview) -> str:
    """The caption: how many moves matched the solver, and where the costliest ones began."""
    # Rounded down: "100 %" only when every move matched, never for 99.6 %.
    share = t.percent(math.floor(review.matched_share * 100) / 100)
    matched = t.ngettext(
        "{percent} of your {n} move was the best move available.",
        "{percent} of your {n} moves were the best move available.",
        review.moves,
        percent=share,
    )
    costly = len(review.costliest)
    if not costly:
        return matched
    # The exact move, not a round one: the picture shows it, and "after move 90" beside a
    # picture of move 99 reads as a mistake.
    first = min(cost.number for cost in review.costliest)
    if first == 1:
        where = t.ngettext(
            "Your costliest move came right at the start.",
            "Your costliest moves began right at the start.",
            costly,
        )
    else:
        where = t.ngettext(
            "Your costliest move came at move {move}.",
            "Your costliest moves came from move {move} on.",
            costly,
            move=t.number(first),
        )
    return f"{matched} {where}"


def started(t: Translator) -> str:
    """The tap's answer: the review is being made, and comes as a picture."""
    return t._("🔎 Going through your game: the review follows in a moment.")


def on_its_way(t: Translator) -> str:
    return t._("Your review is on its way.")


def stale(t: Translator) -> str:
    """A 🔎 from before the game changed (an undo), or one forged onto another message."""
    return t._("That button no longer works: send /review for your last finished game.")


def not_yours(t: Translator) -> str:
    return t._("Only the player of this game can review it.")


def challenge_running(t: Translator, ends: str) -> str:
    return t._(
        "This game is part of a running challenge: send /review again once the challenge "
        "ends ({time}).",
        time=ends,
    )


def daily_running(t: Translator, seconds_left: float) -> str:
    return t._(
        "Your daily is still running: send /review again once the day ends, in {time}.",
        time=t.countdown(seconds_left),
    )


def still_playing(t: Translator) -> str:
    return t._("Your game is still going: send /review again once it's over.")


def no_game(t: Translator) -> str:
    return t._("You have no finished game to review yet. /new starts one.")


def no_log(t: Translator) -> str:
    return t._("This game was played before moves were recorded, so it has no review.")


def in_private(t: Translator) -> str:
    return t._("Reviews are sent in our private chat: send /review there.")
