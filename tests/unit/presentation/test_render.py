"""What a player sees on the board message, independent of Telegram."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

import engine
from bot.models import Challenge, Player, View
from bot.presentation import captions, render
from bot.presentation.i18n import group_zone, translator
from bot.presentation.leaderboards import challenge_card, end_time
from bot.presentation.names import group_name, player_name, safe_name
from tests.support.boards import shown_board
from tests.support.processes import ROOT

NBSP = "\u00a0"

EN = translator("en")


def _game(rows: list[list[int]], **changes) -> engine.Game:
    board = tuple(value for row in rows for value in row)
    return replace(engine.new_game(len(rows), 1, 0.0), board=board, **changes)


def test_every_tile_up_to_the_largest_possible_has_its_own_emoji():
    values = [1 << e for e in range(1, 38)]  # 2 … 2^37, the most a 6×6 board can hold
    emojis = [render.tile_emoji(v) for v in values]
    assert len(set(emojis)) == len(emojis)
    assert render.EMPTY not in emojis
    assert render.tile_emoji(131072) != render.tile_emoji(262144)


def test_a_challenge_board_counts_against_the_challenges_top_not_the_players_best():
    challenge = Challenge(
        -100, "Club", "en", 7, 4, 1, "abcdefgh", WINTER, id=1, message_id=None, finished=False
    )
    game = replace(_game([[2, 4, 0, 0]] + [[0] * 4] * 3), score=56)
    text = render.board_text(EN, game, best=912, challenge=challenge, top=412)
    assert "Score: <b>56</b> · Challenge best: 412" in text and "912" not in text
    leading = render.board_text(EN, game, best=912, challenge=challenge, top=40)
    assert "Challenge best: 56" in leading  # the player's own score leads


def test_a_daily_board_shows_its_score_without_the_players_best():
    # One attempt a day: beside it, "Best" would read as the daily's best score.
    game = replace(_game([[2, 4, 0, 0]] + [[0] * 4] * 3), score=56)
    text = render.board_text(EN, game, best=912, daily=("Dec 2", None))
    assert "\nScore: <b>56</b>\n" in text and "912" not in text


@pytest.mark.parametrize(
    ("view", "notice"),
    [
        (View.NUMBERS, "Number view is on. /view switches back to emoji."),
        (View.EMOJI, "Emoji view is on. /view switches back to numbers."),
    ],
)
def test_the_view_notice_names_the_view_it_goes_back_to(view, notice):
    assert render.view_notice(EN, view) + " " + render.view_way_back(EN, view) == notice


def test_each_grid_line_is_exactly_one_emoji_per_cell():
    game = _game([[2, 4, 8, 0, 0, 0], [131072, 0, 0, 0, 0, 0]] + [[0] * 6] * 4)
    text = render.board_text(EN, game, best=0)
    lines = text.split("\n")
    grid = lines[1:7]
    assert all(len(line) == 6 for line in grid)  # one code point per cell, nothing else
    assert grid[1][0] == render.tile_emoji(131072)


def test_legend_names_exactly_the_values_on_the_board():
    game = _game([[2, 0, 0, 0], [0, 2048, 0, 0], [0, 0, 16, 0], [0, 0, 0, 0]])
    legend = render.legend(game)
    assert legend == "🟦 2  🟧 16  ⭐ 2048"


@pytest.mark.parametrize(
    ("value", "label"),
    [
        (2, "2"),
        (2048, "2048"),
        (65536, "65536"),
        (131072, "128k"),
        (1 << 20, "1M"),
        (1 << 37, "128G"),
    ],
)
def test_compact_tile_labels(value, label):
    assert render.tile_label(value) == label


def test_numbers_view_columns_line_up_on_a_six_by_six_board():
    game = _game(
        [[65536, 2, 0, 0, 0, 0], [131072, 16384, 4, 0, 0, 0]]
        + [[0] * 6] * 3
        + [[2, 4, 8, 16, 32, 64]]
    )
    text = render.board_text(EN, game, best=0, view="numbers")
    grid = text.split("<pre>")[1].split("</pre>")[0].split("\n")
    assert len(grid) == 6
    assert len({len(line) for line in grid}) == 1
    assert "65536" in grid[0] and "128k" in grid[1]


def test_scores_are_formatted_per_language():
    game = _game([[2, 2, 0, 0]] + [[0] * 4] * 3, score=20480)
    assert "20,480" in render.board_text(EN, game, best=0)
    assert "20.480" in render.board_text(translator("de"), game, best=0)


def test_win_banner_and_choice_keyboard():
    game = _game(
        [[2048, 2, 0, 0]] + [[0] * 4] * 3, win=engine.Win(900, 1234.0), ever_won=True, moves=900
    )
    text = render.board_text(EN, game, best=0)
    assert f"You made it in 900 moves, with 20{NBSP}minutes and 34{NBSP}seconds of play." in text
    assert _button_texts(game) == ["▶️ Keep going", "🆕 New game"]


def _button_texts(game: engine.Game) -> list[str]:
    return [b.text for row in render.board_keyboard(EN, 1, game).inline_keyboard for b in row]


def test_game_over_keyboard_offers_undo_only_when_one_is_left():
    full = [[2, 4, 2, 4], [4, 2, 4, 2], [2, 4, 2, 4], [4, 2, 4, 2]]
    snapshot = engine.game.Snapshot((0,) * 16, 0, 0, None, False)
    with_undo = _game(full, history=(snapshot,), moves=1, undos_left=2)
    without = _game(full, undos_left=0)
    assert _button_texts(with_undo) == ["↩️ Undo", "🆕 New game"]
    assert _button_texts(without) == ["🆕 New game"]
    assert "Game over" in render.board_text(EN, without, best=0)


def test_playing_keyboard_is_a_dpad_with_undo_and_new_game():
    game = _game([[2, 2, 0, 0]] + [[0] * 4] * 3)
    rows = [[b.text for b in row] for row in render.board_keyboard(EN, 1, game).inline_keyboard]
    assert rows == [["⬆️"], ["⬅️", "🔢", "➡️"], ["⬇️"], ["↩️ Undo", "💡 Hint", "🆕 New game"]]
    data = [
        b.callback_data for row in render.board_keyboard(EN, 1, game).inline_keyboard for b in row
    ]
    assert all(len(d.encode()) <= 64 for d in data)


@pytest.mark.parametrize(
    ("language", "five", "one", "none"),
    [
        ("en", "5 undos left", "1 undo left", "no undos left"),
        ("nl", "nog 5× terugnemen", "nog 1× terugnemen", "terugnemen kan niet meer"),
        ("de", "noch 5 Zugrücknahmen", "noch 1 Zugrücknahme", "keine Zugrücknahme mehr"),
    ],
)
def test_the_caption_counts_undos_and_says_when_none_are_left(language, five, one, none):
    t = translator(language)
    rows = [[2, 2, 0, 0]] + [[0] * 4] * 3
    captions = [
        render.board_text(t, _game(rows, undos_left=left), best=0).split("\n")[-1]
        for left in (5, 1, 0)
    ]
    assert [caption.split(" · ")[1] for caption in captions] == [five, one, none]


@pytest.mark.parametrize(
    ("language", "seconds", "shown"),
    [
        ("en", 754, "12 min 34 sec"),
        ("en", 3725, "1 hr 2 min 5 sec"),
        ("nl", 3600, "1 uur"),
        ("nl", 42, "42 sec"),
        ("de", 3725, "1 Std. 2 Min. 5 Sek."),
    ],
)
def test_play_times_read_as_durations_not_clock_times(language, seconds, shown):
    assert translator(language).duration(seconds) == shown


@pytest.mark.parametrize(
    ("language", "seconds", "shown"),
    [
        ("en", 39303, f"10{NBSP}hours and 56{NBSP}minutes"),  # 10:55:03 left: rounded up
        ("en", 3600, f"1{NBSP}hour"),
        ("en", 61, f"2{NBSP}minutes"),
        ("en", 6.2, f"7{NBSP}seconds"),
        ("nl", 39303, f"10{NBSP}uur en 56{NBSP}minuten"),
        ("nl", 60, f"1{NBSP}minuut"),
        ("de", 39303, f"10{NBSP}Stunden und 56{NBSP}Minuten"),
        ("de", 7, f"7{NBSP}Sekunden"),
    ],
)
def test_countdowns_leave_out_seconds_past_a_minute_and_write_their_units_out(
    language, seconds, shown
):
    # A countdown is never updated, so its seconds would be stale when read; and German's
    # short units end in a dot, which before a full stop would read "7 Sek..". A no-break
    # space holds each number to its unit.
    assert translator(language).countdown(seconds) == shown


@pytest.mark.parametrize(
    ("language", "seconds", "shown"),
    [
        ("en", 1234, f"20{NBSP}minutes and 34{NBSP}seconds"),
        ("en", 3725, f"1{NBSP}hour, 2{NBSP}minutes, and 5{NBSP}seconds"),
        ("nl", 7, f"7{NBSP}seconden"),
        ("de", 3600, f"1{NBSP}Stunde"),
        ("de", 0, f"0{NBSP}Sekunden"),
    ],
)
def test_play_times_in_running_text_write_their_units_out(language, seconds, shown):
    assert translator(language).play_time(seconds) == shown


WINTER = datetime(2026, 11, 30, 0, 53, tzinfo=UTC).timestamp()
SUMMER = datetime(2026, 7, 1, 12, 0, tzinfo=UTC).timestamp()


@pytest.mark.parametrize(
    ("reader", "group", "moment", "shown"),
    [
        ("en", "en", WINTER, "Nov 30 at 12:53\u202fAM UTC"),
        ("nl", "nl", WINTER, "30 nov om 01:53 CET"),
        ("de", "de", WINTER, "30. Nov. um 01:53 Uhr MEZ"),
        ("nl", "nl", SUMMER, "1 jul om 14:00 CEST"),
        ("de", "de", SUMMER, "1. Juli um 14:00 Uhr MESZ"),
        # A reader from another language sees the group's clock, in their own words.
        ("en", "de", WINTER, "Nov 30 at 1:53\u202fAM CET"),
        ("en", "nl", SUMMER, "Jul 1 at 2:00\u202fPM CEST"),
        ("de", "en", WINTER, "30. Nov. um 00:53 Uhr UTC"),
    ],
)
def test_a_challenge_end_is_on_the_groups_clock_with_its_zone_named(reader, group, moment, shown):
    assert end_time(translator(reader), moment, group_zone(group)) == shown


def test_a_group_that_chose_no_language_keeps_utc_whoever_reads():
    assert group_zone(None) == group_zone("en") == ZoneInfo("UTC")


@pytest.mark.parametrize(
    ("language", "line"),
    [
        ("en", "Ends Nov 30 at 12:53\u202fAM UTC."),
        ("nl", "Loopt tot 30 nov om 01:53 CET."),
        ("de", "Endet am 30. Nov. um 01:53 Uhr MEZ."),
    ],
)
def test_a_challenge_card_says_when_it_ends(language, line):
    challenge = Challenge(
        -100, "Club", language, 7, 4, 1, "abcdefgh", WINTER, id=1, message_id=None, finished=False
    )
    card = challenge_card(translator(language), challenge, [], 0, 10, group_zone(language))
    assert card.split("\n")[1] == line


def test_the_readme_board_example_is_what_the_bot_shows():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    example = re.search(r"```\n(2048 · .*?)```", readme, re.DOTALL).group(1)
    text, keyboard = re.split(r"\n\n *\[", example, maxsplit=1)
    board = shown_board(text)
    game = replace(engine.new_game(4, 1, 0.0), board=board, score=1116, moves=115)
    shown = re.sub(r"</?b>", "", render.board_text(EN, game, best=3012))
    assert text == shown
    labels = re.findall(r"\[ (.+?) \]", "[" + keyboard)
    rows = render.board_keyboard(EN, 1, game).inline_keyboard
    assert labels == [button.text for row in rows for button in row]


def test_names_are_isolated_capped_escaped_and_never_blank():
    assert safe_name("A" * 60, "?") == "\u2068" + "A" * 31 + "…\u2069"
    assert safe_name("  Tom \n & <Jerry> ", "?") == "\u2068Tom &amp; &lt;Jerry&gt;\u2069"
    assert safe_name("Tom & Jerry", "?", html=False) == "\u2068Tom & Jerry\u2069"
    # Direction controls and control characters go; a family emoji keeps its joiners.
    assert safe_name("\u202eevil\u202c\u2066 x\x07", "?") == "\u2068evil x\u2069"
    assert safe_name("👨\u200d👩\u200d👧", "?") == "\u2068👨\u200d👩\u200d👧\u2069"
    for blank in (" \t ", "\u200b\u200b", "\u3164", "\u2800\u202e", "\u0301", ""):
        assert safe_name(blank, "Player 42") == "Player 42", repr(blank)
    assert player_name(translator("de"), "\u3164", 123456789) == "Spieler 6789"
    assert group_name(translator("nl"), "\u200e", -100200300) == "Groep 0300"


@pytest.mark.parametrize(
    ("language", "moves", "said"),
    [
        ("de", 54, "gegen den Spielstand zum Zeitpunkt des Teilens (nach 54 Zügen)."),
        ("de", 1, "gegen den Spielstand zum Zeitpunkt des Teilens (nach 1 Zug)."),
        ("nl", 1, "na 1 zet:"),
    ],
)
def test_a_duels_intro_counts_the_shared_moves_in_the_languages_own_case(language, moves, said):
    rival = replace(engine.new_game(4, 1, 0.0), moves=moves, score=412)
    intro = captions.duel_started(translator(language), Player(7, "Anna"), rival)
    assert said in intro
