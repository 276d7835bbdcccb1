"""/stats as players read it, in every language: figures in the locale's numbers, real
plurals, one Telegram message; the group's one line; the streak; and the chart, decoded."""

from __future__ import annotations

import itertools
from dataclasses import replace

import pytest

import engine
from bot.models import Daily, DailyPlace, PlayedScore, PlayTotals, Record, StoredGame
from bot.outcomes import PlayerStats, Streaks
from bot.presentation import charts, stats
from bot.presentation.daily import finished, streak_line
from bot.presentation.i18n import translator
from tests.support.pictures import decode_png, expected_colour, rgb

NBSP = "\u00a0"

TELEGRAM_LIMIT = 4096


def _stats(**changes) -> PlayerStats:
    values = {
        "records": {
            4: Record(4, 20_480, 12, 3, 2048, 950, 1234.0, 2),
            6: Record(6, 1_234_567, 1, 0, 65_536),
        },
        "totals": PlayTotals(12_345, 3725.0),
        "streaks": Streaks(3, 7),
        "best_daily": DailyPlace("2026-12-01", 4, 1_234, 5_678),
        "last_daily": DailyPlace("2026-12-02", 5, 1, 1),
        "recent": [PlayedScore(4, 20_480, 2048), PlayedScore(6, 1_234_567, 65_536)],
    }
    return PlayerStats(**(values | changes))


EXPECTED = {
    "en": [
        "📊 <b>Your statistics</b>",
        "<b>Classic 4×4</b>\nBest score: 20,480\n12 games played · 3 won · win rate 25%",
        "Highest tile: 65,536",
        "Fewest moves to 2048: 950",
        "Fastest 2048: 20 min 34 sec",
        "<b>Huge 6×6</b>\nBest score: 1,234,567\n1 game played · 0 won · win rate 0%",
        f"12,345 moves, 1{NBSP}hour, 2{NBSP}minutes, and 5{NBSP}seconds of play in total",
        "🔥 Daily streak: 3 days in a row. Longest: 7 days.",
        "Best daily rank: #1,234 of 5,678 players (Classic 4×4, Dec 1)",
        "Last daily: #1 of 1 player (Large 5×5, Dec 2)",
    ],
    "nl": [
        "📊 <b>Je statistieken</b>",
        "<b>Klassiek 4×4</b>\nBeste score: 20.480\n12 spellen gespeeld · 3 gewonnen · "
        "winstpercentage 25%",
        "Hoogste tegel: 65.536",
        "1 spel gespeeld",
        f"12.345 zetten in totaal, 1{NBSP}uur, 2{NBSP}minuten en 5{NBSP}seconden gespeeld",
        "🔥 Dagpuzzelreeks: 3 dagen op rij. Langste reeks: 7 dagen.",
        "Beste dagpuzzel: 1.234e van 5.678 spelers (Klassiek 4×4, 1 dec)",
        "Laatste dagpuzzel: 1e van 1 speler (Groot 5×5, 2 dec)",
    ],
    "de": [
        "📊 <b>Deine Statistik</b>",
        "<b>Klassisch 4×4</b>\nHighscore: 20.480\n12 Spiele gespielt · 3 gewonnen · "
        "Siegquote 25\u00a0%",
        "Höchste Kachel: 65.536",
        "1 Spiel gespielt",
        f"12.345 Züge insgesamt · Spielzeit: 1{NBSP}Stunde, 2{NBSP}Minuten und 5{NBSP}Sekunden",
        "🔥 Tagesrätsel-Serie: 3 Tage in Folge. Längste Serie: 7 Tage.",
        "Beste Platzierung im Tagesrätsel: Platz 1.234 von 5.678 Spielern (Klassisch 4×4, 1. Dez.)",
        "Letztes Tagesrätsel: Platz 1 von 1 Spieler (Groß 5×5, 2. Dez.)",
    ],
}


@pytest.mark.parametrize("language", sorted(EXPECTED))
def test_stats_read_in_the_language_with_its_numbers_and_plurals(language):
    text = stats.stats_text(translator(language), _stats())
    for expected in EXPECTED[language]:
        assert expected in text
    assert text.index("4×4") < text.index("6×6")  # the sizes in their order
    assert "5×5</b>" not in text  # a size never played has no block


@pytest.mark.parametrize(
    ("language", "tiles"),
    [("en", ["2048", "65,536", "131,072"]), ("de", ["2048", "65.536", "131.072"])],
)
def test_a_tile_is_grouped_like_a_number_only_from_five_digits(language, tiles):
    """ "a 2048 tile" is the game's name; 131072 is unreadable next to a grouped score."""
    t = translator(language)
    assert [t.tile(value) for value in (2048, 65_536, 131_072)] == tiles


@pytest.mark.parametrize("language", sorted(EXPECTED))
def test_the_largest_statistics_fit_one_message(language):
    huge = 10**15
    record = Record(6, huge, huge, huge, 2**40, huge, 10.0**12, huge)
    figures = _stats(
        records={size: record for size in (4, 5, 6)},
        totals=PlayTotals(huge, 10.0**12),
        streaks=Streaks(huge, huge),
        best_daily=DailyPlace("2026-12-01", 6, huge, huge),
        last_daily=DailyPlace("2026-12-02", 6, huge, huge),
    )
    assert len(stats.stats_text(translator(language), figures)) <= TELEGRAM_LIMIT


@pytest.mark.parametrize(
    ("language", "expected"),
    [("en", "/new"), ("nl", "Nog geen statistieken"), ("de", "Noch keine Statistik")],
)
def test_no_games_yet_says_how_to_get_statistics(language, expected):
    empty = _stats(records={}, totals=PlayTotals(0, 0.0), streaks=Streaks(), recent=[])
    text = stats.stats_text(translator(language), empty)
    assert expected in text and "/daily" in text


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("en", "Anna: 13 games played · best score 1,234,567 · 🔥 daily streak of 3 days"),
        ("nl", "Anna: 13 spellen gespeeld, beste score 1.234.567 · 🔥 dagpuzzelreeks van 3 dagen"),
        ("de", "Anna: 13 Spiele gespielt, Highscore 1.234.567 · 🔥 Tagesrätsel-Serie von 3 Tagen"),
    ],
)
def test_a_groups_line_is_the_players_own_one_line(language, expected):
    t = translator(language)
    assert stats.group_line(t, "Anna", _stats()) == expected
    broken = stats.group_line(t, "Anna", _stats(streaks=Streaks(0, 7)))
    assert broken == expected.split(" · 🔥")[0] and "\n" not in broken


@pytest.mark.parametrize(
    ("language", "none", "broken", "one"),
    [
        (
            "en",
            "No daily streak yet. /daily starts today’s.",
            "No daily streak running. Today’s daily starts a new one. Longest: 1 day.",
            "🔥 Daily streak: 1 day in a row. Longest: 4 days.",
        ),
        (
            "nl",
            "Nog geen dagpuzzelreeks: begin er vandaag een met /daily.",
            "Je hebt nu geen dagpuzzelreeks: met de dagpuzzel van vandaag begin je een nieuwe. "
            "Langste reeks: 1 dag.",
            "🔥 Dagpuzzelreeks: 1 dag op rij. Langste reeks: 4 dagen.",
        ),
        (
            "de",
            "Noch keine Tagesrätsel-Serie: Mit /daily startest du sie heute.",
            "Gerade läuft keine Serie: Mit dem heutigen Tagesrätsel beginnst du eine neue. "
            "Längste Serie: 1 Tag.",
            "🔥 Tagesrätsel-Serie: 1 Tag in Folge. Längste Serie: 4 Tage.",
        ),
    ],
)
def test_the_streak_line_says_where_the_run_stands(language, none, broken, one):
    t = translator(language)
    assert streak_line(t, Streaks(0, 0)) == none
    assert streak_line(t, Streaks(0, 1)) == broken
    assert streak_line(t, Streaks(1, 4)) == one


@pytest.mark.parametrize("language", sorted(EXPECTED))
def test_a_finished_daily_shows_the_streak(language):
    t = translator(language)
    daily = Daily(1, "2026-12-02", 4, 5, "ab" * 16, "cd" * 32, 0.0)
    game = engine.new_game(4, 5, 0.0)
    entry = StoredGame(1, 101, 101, game, True, None, True, daily_id=1)
    text = finished(t, daily, entry, 3600.0, (2, 9), Streaks(5, 5))
    assert text.splitlines()[-2] == streak_line(t, Streaks(5, 5))  # above the commitment


@pytest.mark.parametrize(
    ("language", "undos", "told"),
    [
        ("en", 5, "No tile can move in your daily. Undo a move to play on, or wait for the next"),
        ("en", 0, "You’ve played today’s daily (one attempt a day). The next one opens at"),
        ("nl", 5, "In je dagpuzzel kan geen tegel meer schuiven. Neem een zet terug om verder"),
        ("nl", 0, "Je hebt je poging voor vandaag gehad. De volgende dagpuzzel staat om"),
        ("de", 5, "In deinem Tagesrätsel lässt sich keine Kachel mehr bewegen. Nimm einen Zug"),
        ("de", 0, "Du hast das heutige Tagesrätsel schon gespielt: ein Versuch pro Tag."),
    ],
)
def test_a_stuck_daily_with_undos_left_says_it_can_go_on(language, undos, told):
    """The ↩️ under a stuck board still works in the daily: only with no undo left is the
    day's attempt over."""
    daily = Daily(1, "2026-12-02", 4, 5, "ab" * 16, "cd" * 32, 0.0)
    game = replace(engine.new_game(4, 5, 0.0), undos_left=undos)
    entry = StoredGame(1, 101, 101, game, True, None, True, daily_id=1)
    text = finished(translator(language), daily, entry, 3600.0, None, Streaks(1, 1))
    assert text.splitlines()[1].startswith(told)


def _figures(scores: list[tuple[int, int]]) -> charts.ChartFigures:
    return charts.ChartFigures("Anna", tuple(scores), 1_234, 56_789)


@pytest.mark.parametrize("language", sorted(EXPECTED))
def test_the_chart_draws_each_game_as_a_bar_in_its_highest_tiles_colour(language):
    scores = [(score * 97 % 30_000, 2 ** (1 + index % 16)) for index, score in enumerate(range(30))]
    figures = _figures(scores)
    image = decode_png(charts.chart_png(translator(language), figures))
    assert image.size == (charts.WIDTH, charts.HEIGHT)
    boxes = charts.bar_boxes(figures.scores)
    assert len(boxes) == 30 and all(a[2] < b[0] for a, b in itertools.pairwise(boxes))
    for (left, top, right, bottom), (_, highest) in zip(boxes, scores, strict=True):
        middle = ((left + right) // 2, (top + bottom) // 2)
        assert image.getpixel(middle) == expected_colour(highest)
    heights = [bottom - top for _, top, _, bottom in boxes]
    tallest = max(range(30), key=lambda i: scores[i][0])
    assert heights[tallest] == max(heights)
    assert all(
        (heights[i] < heights[j]) == (scores[i][0] < scores[j][0])
        for i in range(30)
        for j in range(30)
        if scores[i][0] != scores[j][0] and min(heights[i], heights[j]) > charts.STUB
    )


def test_a_few_games_leave_the_rest_of_the_chart_empty():
    figures = _figures([(120, 16), (0, 2), (2_000, 256)])
    image = decode_png(charts.chart_png(translator("en"), figures))
    boxes = charts.bar_boxes(figures.scores)
    assert boxes[1][3] - boxes[1][1] == charts.STUB  # a game without points still shows
    right_of_bars = (boxes[-1][2] + 40, (boxes[-1][1] + boxes[-1][3]) // 2)
    assert image.getpixel(right_of_bars) == rgb("#bbada0")  # the chart's own colour


def test_equal_figures_give_equal_keys_and_any_change_another():
    t = translator("en")
    figures = _figures([(120, 16)])
    assert charts.chart_key(t, figures) == charts.chart_key(t, _figures([(120, 16)]))
    assert charts.chart_key(t, figures) != charts.chart_key(t, _figures([(124, 16)]))
    assert charts.chart_key(t, figures) != charts.chart_key(translator("de"), figures)
