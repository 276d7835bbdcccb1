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
            "87% of your 412 moves were the best available. "
            "Your costliest moves all came from move 399 onward.",
        ),
        (
            "nl",
            "In 87% van je 412 zetten koos je de best mogelijke zet. "
            "Je grootste fouten maakte je vanaf zet 399.",
        ),
        (
            "de",
            f"Bei 87{NBSP}% deiner 412 Züge hast du den besten Zug gespielt. "
            "Deine größten Fehler passierten alle ab Zug 399.",
        ),
    ],
)
def test_the_totals_say_the_share_matched_and_where_the_costliest_began(language, expected):
    # 359 of 412 is 87.1 %; the earliest costly move is 399, named as the picture shows it.
    assert reviews.totals(translator(language), review(412, 359, 455, 399, 530)) == expected


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        (
            "en",
            "0% of your 1 move was the best available. "
            "Your costliest move came right at the start.",
        ),
        (
            "nl",
            "In 0% van je 1 zet koos je de best mogelijke zet. "
            "Je grootste fout maakte je meteen aan het begin.",
        ),
        (
            "de",
            f"Bei 0{NBSP}% deiner Züge hast du den besten Zug gespielt (insgesamt 1 Zug). "
            "Deinen größten Fehler hast du gleich am Anfang gemacht.",
        ),
    ],
)
def test_one_move_and_one_costly_move_are_singular(language, expected):
    assert reviews.totals(translator(language), review(1, 0, 1)) == expected


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("en", "Your costliest moves began right at the start."),
        ("nl", "Je grootste fouten maakte je vanaf de eerste zet."),
        ("de", "Deine größten Fehler begannen gleich mit dem ersten Zug."),
    ],
)
def test_costly_moves_from_the_first_on_say_they_began_there_not_that_all_were_there(
    language, expected
):
    # The first costly move is move 1, the others come later: the picture shows all three.
    assert reviews.totals(translator(language), review(90, 60, 1, 40, 75)).endswith(expected)


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        (
            "en",
            "99% of your 1,234 moves were the best available. "
            "Your costliest moves all came from move 1,150 onward.",
        ),
        (
            "nl",
            "In 99% van je 1.234 zetten koos je de best mogelijke zet. "
            "Je grootste fouten maakte je vanaf zet 1.150.",
        ),
        (
            "de",
            f"Bei 99{NBSP}% deiner 1.234 Züge hast du den besten Zug gespielt. "
            "Deine größten Fehler passierten alle ab Zug 1.150.",
        ),
    ],
)
def test_long_games_use_the_locale_grouping_and_never_round_up_to_all(language, expected):
    # 1,233 of 1,234 is 99.9 %: said as 99 %, since 100 % would mean every move.
    assert reviews.totals(translator(language), review(1234, 1233, 1150, 1187)) == expected


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("en", "100% of your 30 moves were the best available."),
        ("nl", "In 100% van je 30 zetten koos je de best mogelijke zet."),
        ("de", f"Bei 100{NBSP}% deiner 30 Züge hast du den besten Zug gespielt."),
    ],
)
def test_a_game_of_the_solvers_moves_has_no_costly_sentence(language, expected):
    assert reviews.totals(translator(language), review(30, 30)) == expected


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("en", ["Small slip", "Mistake", "Big mistake", "Could cost you the game"]),
        ("nl", ["Kleine misser", "Duidelijke fout", "Grote fout", "Brengt je spel in gevaar"]),
        ("de", ["Kleiner Patzer", "Klarer Fehler", "Schwerer Fehler", "Kann dein Spiel beenden"]),
    ],
)
def test_a_cost_is_said_in_words_never_as_a_number_beside_the_games_points(language, words):
    t = translator(language)
    slip, mistake, big, risky = words
    # On 4×4 an empty cell rates 540 and a lost position costs a whole line's 200,000.
    assert reviews.cost(t, 4, 0.4) == slip
    assert reviews.cost(t, 4, 999.0) == slip  # under two empty cells
    assert reviews.cost(t, 4, 2_340.0) == mistake  # about four empty cells
    assert reviews.cost(t, 4, 170_980.0) == big  # a 1,648-point game's worst move, seen
    # Over a million, as a 1,000-point game's worst move on 4×4 can cost: a real chance of
    # losing the game.
    assert reviews.cost(t, 4, 1_179_782.0) == risky
    # On 6×6 a live position rates sixteen times as high, so the same loss is no such risk.
    assert reviews.cost(t, 6, 1_179_782.0) == big


@pytest.mark.parametrize(
    ("language", "title", "yours", "better"),
    [
        ("en", "Move 1,024", "Your move: down", "Better: left"),
        ("nl", "Zet 1.024", "Jouw zet: omlaag", "Beter: naar links"),
        ("de", "Zug 1.024", "Dein Zug: nach unten", "Besser: nach links"),
    ],
)
def test_the_pictures_labels(language, title, yours, better):
    t = translator(language)
    assert reviews.move_title(t, 1024) == title
    assert reviews.your_move(t, "down") == yours
    assert reviews.better_move(t, "left") == better
