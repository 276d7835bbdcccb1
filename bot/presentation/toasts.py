"""The toasts a tap or a Mini App move is answered with: one wording for both ways of playing."""

from __future__ import annotations

from bot.outcomes import HintResult, HintStatus, TapResult, TapStatus
from bot.presentation import render
from bot.presentation.i18n import Translator
from engine.solver.reasons import Reason, ReasonKind


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
            "This daily ended at midnight (UTC). Your score counts as it stands: {score}.",
            score=t.number(result.stored.game.score),
        )
    if status is TapStatus.CHALLENGE_OVER:
        return t._("This challenge has ended. Your score counts as it stands.")
    if status is TapStatus.OLD_GAME:
        return t._("This board is from a game that has ended.")
    if status is TapStatus.UNKNOWN_GAME:
        return t._("This board is no longer available. /start shows your game.")
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
        return t._("Hints are off in the daily: everyone plays on their own.")
    if status is HintStatus.HINTS_OFF:
        return t._("Hints are off in challenges: everyone plays on their own.")
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
    tile = t.number(reason.tile)
    if reason.kind is ReasonKind.EVERY_OTHER_LOSES_CORNER:
        return t._("every other move loses the corner")
    if reason.kind is ReasonKind.JOINS:
        return t._("joins two {tile}s", tile=tile)
    if reason.kind is ReasonKind.ONLY_FREE_CELL_BESIDE_HIGHEST:
        return t._("the only move that keeps a free cell next to your highest tile")
    return t._("keeps your {tile} in the corner", tile=tile)
