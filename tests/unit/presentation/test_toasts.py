"""Every toast fits Telegram's 200 characters in every language, with its longest values.

Telegram shows nothing at all of a longer answer to a tap, so a toast that grows with a name,
a score or a flood wait is checked here at its longest: a name at its cap in the characters
that count twice, a score of a billion, a flood wait of a day, German.
"""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

import engine
from bot.models import StoredGame
from bot.outcomes import HintResult, HintStatus, TapResult, TapStatus
from bot.presentation import render, toasts
from bot.presentation.i18n import LANGUAGES, translator
from bot.presentation.limits import telegram_length
from bot.presentation.names import player_name
from bot.presentation.toasts import TOAST_LIMIT, tap_answer
from engine.solver.reasons import Reason, ReasonKind
from tests.support.processes import ROOT

LONGEST_NAME = "𝕬" * 200  # capped by the bot, each letter two UTF-16 units
SCORE = 10**9
TILE = 2**17
FLOOD_WAIT = 86_400.0


def stored(daily: bool = False, hint: str | None = None) -> StoredGame:
    game = replace(engine.new_game(4, 7, 0.0), score=SCORE)
    return StoredGame(
        id=1,
        chat_id=1,
        owner_id=1,
        game=game,
        active=True,
        message_id=1,
        played_counted=True,
        daily_id=1 if daily else None,
        shown_hint=hint,
    )


def tap_results() -> list[TapResult]:
    results = [TapResult(TapStatus.APPLIED, stored(), outcome) for outcome in engine.Outcome]
    results.append(TapResult(TapStatus.APPLIED, stored(), None))
    results += [TapResult(status, stored()) for status in TapStatus]
    results.append(TapResult(TapStatus.CHALLENGE_OVER, stored(daily=True)))
    return results


def hint_results() -> list[HintResult]:
    results = [
        HintResult(HintStatus.SHOWN, stored(hint=direction), reason=reason)
        for direction in engine.DIRECTIONS
        for reason in [None, *(Reason(kind, TILE) for kind in ReasonKind)]
    ]
    results.append(HintResult(HintStatus.HINTS_OFF, stored()))
    results.append(HintResult(HintStatus.HINTS_OFF, stored(daily=True)))
    results += [HintResult(HintStatus.NOT_NOW, stored(), outcome=o) for o in engine.Outcome]
    results += [HintResult(HintStatus.NO_MOVE), HintResult(HintStatus.MOVED_ON)]
    results += [HintResult(HintStatus.REFUSED, refused=refused) for refused in tap_results()]
    return results


def owner(language: str) -> str:
    return player_name(translator(language), LONGEST_NAME, 1, html=False)


def fits(text: str | None) -> bool:
    return text is None or telegram_length(text) <= TOAST_LIMIT


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_tap_answer_fits_with_its_longest_values(language):
    t = translator(language)
    for result in tap_results():
        for moved_below in (False, True):
            for held in (0.0, FLOOD_WAIT):
                text = tap_answer(
                    t, result, owner=owner(language), moved_below=moved_below, held_back=held
                )
                assert fits(text), (result, moved_below, held, text)


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_move_held_back_by_telegram_always_says_so_first_after_what_the_move_did(language):
    """Where everything does not fit, where the game went is what gives way."""
    t = translator(language)
    held = t._(
        "Saved (score {score}). Telegram is slowing down messages in this chat, so "
        "your board will update in {time}.",
        score=t.number(SCORE),
        time=t.countdown(FLOOD_WAIT),
    )
    for outcome in [None, *engine.Outcome]:
        result = TapResult(TapStatus.APPLIED, stored(), outcome)
        if not result.changed:
            continue
        text = tap_answer(t, result, moved_below=True, held_back=FLOOD_WAIT)
        assert text is not None and text.endswith(held), text
        said = toasts.tap_toast(t, result)
        assert said is None or text.startswith(said + "\n"), text


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_held_back_tap_on_an_older_board_still_says_where_the_game_went(language):
    """The wait and the newest board's note fit together even at a billion points and a day
    (German included), so neither has to give way."""
    t = translator(language)
    below = t._("Your game continues on the newest board below.")
    for outcome in [None, *engine.Outcome]:
        result = TapResult(TapStatus.APPLIED, stored(), outcome)
        if not result.changed:
            continue
        text = tap_answer(t, result, moved_below=True, held_back=FLOOD_WAIT)
        assert text is not None and below in text.split("\n"), text


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_hint_answer_fits_with_its_longest_values(language):
    t = translator(language)
    for result in hint_results():
        text = toasts.hint_toast(t, result, owner=owner(language))
        assert fits(text), (result, text)


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_fixed_toast_of_the_handlers_fits(language):
    """The toasts the handlers word themselves, `answer(query, t._("…"))`, as translated."""
    t = translator(language)
    sources = "".join(path.read_text() for path in (ROOT / "bot" / "handlers").glob("*.py"))
    literals = re.findall(r'answer\(\s*query,\s*[\w.]*_\(\s*((?:"[^"]*"\s*)+)\)', sources)
    assert len(literals) >= 3  # the pattern still finds them
    for literal in literals:
        message = "".join(re.findall(r'"([^"]*)"', literal))
        assert fits(t._(message)), message
    assert fits(toasts.too_fast(t))  # the throttles' refusal, worded in toasts.py
    for view in render.View:
        assert fits(render.view_notice(t, view))
