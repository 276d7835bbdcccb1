"""The review's texts in each language: totals with real plurals, costs in the locale's numbers."""

from __future__ import annotations

import pytest

from bot.presentation import reviews
from bot.presentation.i18n import translator
from engine.solver import GameReview, MoveCost

BOARD = (2, 4, 8, 16) + (0,) * 12
NBSP = "\u00a0"


def review(moves: int, matched: int, *numbers: int) -> GameReview:
    costs = tuple(MoveCost(n, BOARD, "down", "left", 1000.0 - i) for i, n in enumerate(numbers))
    return GameReview(4, moves, matched, costs)


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        (
            "en",
            "87% of your 412 moves matched the solver. The costliest moves came after move 300.",
        ),
        (
            "nl",
            "Van je 412 zetten was 87% ook de keuze van de computer. "
            "De duurste zetten kwamen na zet 300.",
        ),
        (
            "de",
            f"Von deinen 412 Zügen waren 87{NBSP}% auch die Wahl des Computers. "
            "Die teuersten Züge kamen nach Zug 300.",
        ),
    ],
)
def test_the_totals_say_the_share_matched_and_where_the_costliest_began(language, expected):
    # 359 of 412 is 87.1 %; the earliest costly move is move 399, so they came after 300.
    assert reviews.totals(translator(language), review(412, 359, 455, 399, 530)) == expected


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("en", "0% of your 1 move matched the solver. The costly move came right at the start."),
        (
            "nl",
            "Van je 1 zet was 0% ook de keuze van de computer. "
            "De dure zet kwam meteen aan het begin.",
        ),
        (
            "de",
            f"Von deinem 1 Zug waren 0{NBSP}% auch die Wahl des Computers. "
            "Der teure Zug kam gleich am Anfang.",
        ),
    ],
)
def test_one_move_and_one_costly_move_are_singular(language, expected):
    assert reviews.totals(translator(language), review(1, 0, 1)) == expected


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        (
            "en",
            "99% of your 1,234 moves matched the solver. "
            "The costliest moves came after move 1,100.",
        ),
        (
            "nl",
            "Van je 1.234 zetten was 99% ook de keuze van de computer. "
            "De duurste zetten kwamen na zet 1.100.",
        ),
        (
            "de",
            f"Von deinen 1.234 Zügen waren 99{NBSP}% auch die Wahl des Computers. "
            "Die teuersten Züge kamen nach Zug 1.100.",
        ),
    ],
)
def test_long_games_use_the_locale_grouping_and_never_round_up_to_all(language, expected):
    # 1,233 of 1,234 is 99.9 %: said as 99 %, since 100 % would mean every move.
    assert reviews.totals(translator(language), review(1234, 1233, 1150, 1187)) == expected


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("en", "100% of your 30 moves matched the solver."),
        ("nl", "Van je 30 zetten was 100% ook de keuze van de computer."),
        ("de", f"Von deinen 30 Zügen waren 100{NBSP}% auch die Wahl des Computers."),
    ],
)
def test_a_game_of_the_solvers_moves_has_no_costly_sentence(language, expected):
    assert reviews.totals(translator(language), review(30, 30)) == expected


@pytest.mark.parametrize(
    ("language", "many", "one"),
    [
        ("en", "−2,340 expected points", "−1 expected point"),
        ("nl", "−2.340 verwachte punten", "−1 verwacht punt"),
        ("de", "−2.340 erwartete Punkte", "−1 erwarteter Punkt"),
    ],
)
def test_a_cost_is_rounded_up_in_expected_points(language, many, one):
    t = translator(language)
    assert reviews.cost(t, 2339.2) == many
    assert reviews.cost(t, 0.4) == one


@pytest.mark.parametrize(
    ("language", "title", "yours", "better"),
    [
        ("en", "Move 1,024", "Your move: down", "Better: left"),
        ("nl", "Zet 1.024", "Jouw zet: omlaag", "Beter: links"),
        ("de", "Zug 1.024", "Dein Zug: nach unten", "Besser: nach links"),
    ],
)
def test_the_pictures_labels(language, title, yours, better):
    t = translator(language)
    assert reviews.move_title(t, 1024) == title
    assert reviews.your_move(t, "down") == yours
    assert reviews.better_move(t, "left") == better
