"""The toasts a tap or a Mini App move is answered with: one wording for both ways of playing.

Telegram shows a toast of at most 200 characters (`TOAST_LIMIT`) and nothing at all of a longer
one, so a tap's answer puts its lines together most important first and leaves out what would
not fit.
"""

from __future__ import annotations

from bot.outcomes import HintResult, HintStatus, TapResult, TapStatus
from bot.presentation import render
from bot.presentation.i18n import Translator
from bot.presentation.limits import telegram_length
from engine.solver.reasons import Reason, ReasonKind

TOAST_LIMIT = 200


def tap_answer(
    t: Translator,
    result: TapResult,
    *,
    owner: str | None = None,
    moved_below: bool = False,
    held_back: float = 0.0,
) -> str | None:
    """The whole answer to a tap on a board in the chat: what the tap did, then, for a move
    applied, where the game went on (`moved_below`: the tap was on an older board of it)
    and how long Telegram holds the chat back (`held_back` seconds).

    Where the three would not fit, where the game went is left out first: the board a player
    scrolls to is easy to find, a board that does not change for minutes is not explained.
    """
    said = tap_toast(t, result, owner=owner)
    below = held = None
    if result.status is TapStatus.APPLIED:
        if moved_below:
            below = t._("Your game continues on the newest board below.")
        if held_back > 0 and result.changed and result.stored is not None:
            held = t._(
                "Saved (score {score}). Telegram is slowing down messages in this chat, so "
                "your board will update in {time}.",
                score=t.number(result.stored.game.score),
                time=t.countdown(held_back),
            )
    for lines in ((said, below, held), (said, held)):
        text = "\n".join(line for line in lines if line)
        if telegram_length(text) <= TOAST_LIMIT:
            return text or None
    return said  # alone, every toast fits: tests/unit/presentation/test_toasts.py


def too_fast(t: Translator) -> str:
    """A player over their taps' budget, tapping in the chat or swiping on the page: the
    words name neither gesture, so one sentence is true on both."""
    return t._("Easy there: too fast for me. Try again in a moment.")


def tap_toast(t: Translator, result: TapResult, *, owner: str | None = None) -> str | None:
    """What a tap's answer says, if anything; `owner`: whose game a NOT_YOURS tap was on.

    A stale move says nothing: the page simply shows the game as it is now.
    """
    status = result.status
    if status is TapStatus.APPLIED:
        return render.outcome_toast(t, result.outcome)
    if status is TapStatus.NOT_YOURS:
        return t._("This is {name}'s game. /new starts your own.", name=owner or "")
    if (
        status is TapStatus.CHALLENGE_OVER
        and result.stored is not None
        and (result.stored.daily_id is not None)
    ):
        return t._(
            "This daily ended at midnight (UTC). Your final score: {score}.",
            score=t.number(result.stored.game.score),
        )
    if status is TapStatus.CHALLENGE_OVER:
        return t._("This challenge has ended. Your score is final.")
    if status is TapStatus.OLD_GAME:
        return t._("This board is from a game that has ended.")
    if status is TapStatus.UNKNOWN_GAME:
        return t._("This board is no longer available. /start shows your game.")
    if status is TapStatus.THROTTLED:
        return too_fast(t)
    return None


def hint_toast(t: Translator, result: HintResult, *, owner: str | None = None) -> str | None:
    """What a hint's answer says: the direction, or why there is none."""
    status = result.status
    if status is HintStatus.SHOWN:
        assert result.stored is not None and result.stored.shown_hint is not None
        direction = result.stored.shown_hint
        arrow = render.ARROWS[direction]
        name = render.direction_name(t, direction)  # type: ignore[arg-type]
        if result.reason is None:
            return t._("💡 Try {arrow} {direction}.", arrow=arrow, direction=name)
        return t._(
            "💡 Try {arrow} {direction}: {reason}.",
            arrow=arrow,
            direction=name,
            reason=hint_reason(t, result.reason),
        )
    if (
        status is HintStatus.HINTS_OFF
        and result.stored is not None
        and (result.stored.daily_id is not None)
    ):
        return t._("Hints are off in the daily, to keep it fair.")
    if status is HintStatus.HINTS_OFF:
        return t._("Hints are off in challenges, to keep it fair.")
    if status is HintStatus.NOT_NOW:
        return render.outcome_toast(t, result.outcome)
    if status is HintStatus.NO_MOVE:
        return t._("No moves left, so I have no hint.")
    if status is HintStatus.MOVED_ON:
        return t._("The board changed while I was thinking. Ask again.")
    assert result.refused is not None
    return tap_toast(t, result.refused, owner=owner)


def hint_reason(t: Translator, reason: Reason) -> str:
    """Why the hinted move is good, as a clause that follows the move's name."""
    tile = t.tile(reason.tile)
    if reason.kind is ReasonKind.EVERY_OTHER_LOSES_CORNER:
        return t._("any other move gives up the corner")
    if reason.kind is ReasonKind.JOINS:
        return t._("joins two {tile}s", tile=tile)
    if reason.kind is ReasonKind.ONLY_FREE_CELL_BESIDE_HIGHEST:
        return t._("the only move that keeps a free cell next to your highest tile")
    return t._("keeps your {tile} in the corner", tile=tile)
