"""Every inline button fits a 360-px-wide phone, in every language and every board state.

A label's width is the number of characters a reader sees: code points, less the invisible
ones that only shape an emoji (variation selectors U+FE0E/U+FE0F, the zero-width joiner
U+200D), so "↩️" counts as one. A joined emoji such as 👨‍👩‍👧 counts once per part: wider than
it looks, never narrower. A 360-px phone has room for about 40 such
characters across one row of Telegram's inline buttons (padding included), so three buttons to
a row get 13 characters each, two get 20 and a button alone 40.
"""

from __future__ import annotations

import inspect
import re
from dataclasses import replace

import pytest
from telegram import InlineKeyboardMarkup

import engine
from bot.presentation import captions, daily, leaderboards, miniapp, reminders, render
from bot.presentation.i18n import LANGUAGES, translator

ROW_WIDTH = 40
INVISIBLE = {"\ufe0e", "\ufe0f", "\u200d"}
# The word for "go back" in each language: an undo button reading like it looks like leaving.
BACK = {"en": "back", "nl": "terug", "de": "zurück"}


def width(label: str) -> int:
    return sum(1 for char in label if char not in INVISIBLE)


def _game(rows: list[list[int]], **changes) -> engine.Game:
    board = tuple(value for row in rows for value in row)
    return replace(engine.new_game(len(rows), 1, 0.0), board=board, **changes)


def _keyboards(language: str) -> dict[str, list[InlineKeyboardMarkup]]:
    """Every keyboard the bot can show, by the function that builds it."""
    t = translator(language)
    playing = _game([[2, 2, 0, 0]] + [[0] * 4] * 3)
    full = [[2, 4, 2, 4], [4, 2, 4, 2], [2, 4, 2, 4], [4, 2, 4, 2]]
    snapshot = engine.game.Snapshot((0,) * 16, 0, 0, None, False)
    won = _game([[2048, 2, 0, 0]] + [[0] * 4] * 3, win=engine.Win(900, 1.0), ever_won=True)
    boards = [
        render.board_keyboard(t, 1, playing),
        render.board_keyboard(t, 1, playing, hints_on=False),
        render.board_keyboard(t, 1, playing, view="numbers"),
        render.board_keyboard(t, 1, playing, ended=True, share=True),
        *(render.board_keyboard(t, 1, playing, hint=d) for d in render.ARROWS),
        render.board_keyboard(t, 1, won),
        render.board_keyboard(t, 1, _game(full, history=(snapshot,), moves=1, undos_left=1)),
        render.board_keyboard(t, 1, _game(full, undos_left=0)),
        render.board_keyboard(t, 1, won, share=True),
        render.board_keyboard(t, 1, _game(full, undos_left=0), share=True),
        render.board_keyboard(t, 1, playing, webapp="https://example.org/app/"),
        render.board_keyboard(t, 1, won, share=True, webapp="https://example.org/app/"),
        render.board_keyboard(
            t, 1, _game(full, history=(snapshot,), moves=1, undos_left=1), offer_daily=True
        ),
        render.board_keyboard(t, 1, playing, ended=True, share=True, offer_daily=True),
    ]
    return {
        "board_keyboard": boards,
        "size_menu": [render.size_menu(t)],
        "language_menu": [render.language_menu()],
        "current_board_keyboard": [render.current_board_keyboard(t)],
        "daily_keyboard": [render.daily_keyboard(t)],
        "daily_link_keyboard": [daily.daily_link_keyboard(t, "https://t.me/bot?start=x")],
        "reminder_keyboard": [reminders.reminder_keyboard(t)],
        "challenge_keyboard": [leaderboards.challenge_keyboard(t, "https://t.me/bot?start=x")],
        "card_keyboard": [
            captions.card_keyboard(t, "https://t.me/bot?start=d1_2_abcdefgh", shared=1),
            captions.card_keyboard(t, None, shared=1),
        ],
    }


def test_every_keyboard_builder_is_measured():
    builders = {
        name
        for module in (render, leaderboards, captions, daily, reminders)
        for name, function in inspect.getmembers(module, inspect.isfunction)
        if function.__module__ == module.__name__
        and inspect.signature(function).return_annotation.startswith("InlineKeyboardMarkup")
    }
    assert builders == set(_keyboards("en"))


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_button_fits_a_phone_three_to_a_row(language):
    too_wide = [
        f"{button.text!r} is {width(button.text)} wide, {len(row)} to a row"
        for keyboards in _keyboards(language).values()
        for keyboard in keyboards
        for row in keyboard.inline_keyboard
        for button in row
        if width(button.text) > ROW_WIDTH // len(row)
    ]
    assert too_wide == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_three_tools_fit_thirteen_characters_each(language):
    playing = _game([[2, 2, 0, 0]] + [[0] * 4] * 3)
    tools = render.board_keyboard(translator(language), 1, playing).inline_keyboard[-1]
    assert len(tools) == 3 and all(width(button.text) <= 13 for button in tools)


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_mini_apps_review_buttons_fit_three_to_a_row(language):
    """The page's Back, Next and Close share one row under the board, as the chat's tools do,
    and its 🔎 Review sits among the sizes on the game-over banner."""
    texts = miniapp.page_texts(translator(language))
    labels = [texts[name] for name in ("review", "back", "next", "close")]
    assert all(width(label) <= ROW_WIDTH // 3 for label in labels), labels


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_button_reads_as_back(language):
    labels = [
        button.text
        for keyboards in _keyboards(language).values()
        for keyboard in keyboards
        for row in keyboard.inline_keyboard
        for button in row
    ]
    first_words = [re.findall(r"\w+", label)[:1] for label in labels]
    assert [BACK[language]] not in [[word.lower() for word in words] for words in first_words]


@pytest.mark.parametrize(("label", "seen"), [("↩️ Undo", 6), ("👨‍👩‍👧", 3), ("⬅️ 💡", 3)])
def test_width_counts_what_a_reader_sees(label, seen):
    assert width(label) == seen
