"""The 💡 hint end to end: a real search in a worker process, shown on the board."""

from __future__ import annotations

import multiprocessing

import pytest

import engine
from bot.services.workers import pool_size
from tests.support.boards import CORNER, button_data, buttons, replay
from tests.support.databases import put_board, stored_game
from tests.support.harness import RunningBot, User, eventually
from tests.support.hint_load import taps_during_hints

GROUP = -100300400
# A position with one clearly right answer: left merges two pairs into the corner row.
OPENING = [[4, 4, 8, 8], [0, 0, 0, 2], [0, 0, 0, 0], [0, 0, 0, 0]]


def marked_arrows(board) -> list[str]:
    return [label for label in buttons(board) if label.endswith("💡")]


@pytest.mark.parametrize(
    ("language", "toast_start", "hint_label"),
    [
        ("en", "💡 Try", "💡 Hint"),
        ("nl", "💡 Probeer", "💡 Hint"),
        ("de", "💡 Schieb mal", "💡 Tipp"),
    ],
)
async def test_a_hint_names_a_valid_move_and_marks_its_arrow(
    api, bot, language, toast_start, hint_label
):
    anna = User(api, 101, "Anna", language)
    board = await anna.open_board()
    game = await put_board(bot.database, 101, 101, OPENING)
    answer, board = await anna.tap(board, hint_label)
    assert answer["text"].startswith(toast_start)
    (marked,) = marked_arrows(board)
    direction = {"⬆️": "up", "⬇️": "down", "⬅️": "left", "➡️": "right"}[marked.split()[0]]
    assert engine.play(game, direction, 0.0).outcome is not engine.Outcome.NOTHING_MOVES
    assert marked.split()[0] in answer["text"]
    _, board = await anna.tap(board, marked)  # playing the hint clears the mark
    assert not marked_arrows(board)
    (records,) = await anna.send("/best")
    assert any(word in records for word in ("1 hint used", "1 hint gebruikt", "1 Tipp genutzt"))


@pytest.mark.parametrize(
    ("language", "hint_label", "toast"),
    [
        ("en", "💡 Hint", "💡 Try ➡️ right: any other move gives up the corner."),
        ("nl", "💡 Hint", "💡 Probeer ➡️ naar rechts: met elke andere zet raak je de hoek kwijt."),
        (
            "de",
            "💡 Tipp",
            "💡 Schieb mal nach rechts ➡️ – mit jedem anderen Zug verlierst du die Ecke.",
        ),
    ],
)
async def test_a_hint_says_why_in_the_players_language(api, bot, language, hint_label, toast):
    anna = User(api, 101, "Anna", language)
    board = await anna.open_board()
    await put_board(bot.database, 101, 101, CORNER)
    answer, board = await anna.tap(board, hint_label)
    assert answer["text"] == toast
    (marked,) = marked_arrows(board)
    assert marked.startswith("➡️")
    # Asked again on the same position: the same hint, the same why (and no second edit).
    game_id = button_data(board, "⬅️").split(":")[1]
    again = api.tap(101, 101, board.message_id, f"g:{game_id}:h", strict=False)
    assert (await api.wait_answer(again))["text"] == toast


async def test_no_hints_in_challenges(api, bot):
    anna = User(api, 101, "Anna")
    bob = User(api, 202, "Bob")
    api.add_group(GROUP, "Hint Club", admins={anna.id})
    api.send_text(anna.id, GROUP, "/challenge")
    sent = await api.wait_request("sendMessage", chat_id=GROUP)
    link = buttons(api.stored_message(GROUP, sent.result["message_id"]))["▶️ Play"]
    board = await bob.open_board(f"/start {link.split('start=')[1]}")
    assert not any("💡" in label for label in buttons(board))
    game_id = button_data(board, "⬅️").split(":")[1]
    answer, _ = await bob.tap_data(board, f"g:{game_id}:h", strict=False)
    assert answer["text"] == "Hints are off in challenges to keep things fair."


async def test_hints_are_throttled_but_moves_never_are(api, bot):
    anna = User(api, 101, "Anna")
    board = await anna.open_board()
    game_id = button_data(board, "⬅️").split(":")[1]
    start = await stored_game(bot.database, 101, 101)
    codes = "lurdlu"
    answers = []
    for code in codes:
        query = api.tap(101, 101, board.message_id, f"g:{game_id}:h", strict=False)
        answers.append(await api.wait_answer(query))
        move = api.tap(101, 101, board.message_id, f"g:{game_id}:{code}", strict=False)
        await api.wait_answer(move)
    throttled = [a for a in answers if a["text"].startswith("Easy on the hints")]
    assert 1 <= len(throttled) <= 3
    played = await stored_game(bot.database, 101, 101)
    expected = replay(start, codes)
    assert (played.board, played.moves) == (expected.board, expected.moves)


async def test_the_hint_workers_start_with_the_bot_not_on_the_first_hint(api, tmp_path):
    before = set(multiprocessing.active_children())
    bot = RunningBot(api, tmp_path / "hints.sqlite3", hint_workers_at_start=True)
    await bot.start()
    try:
        await eventually(
            lambda: len(set(multiprocessing.active_children()) - before) == pool_size(), 30
        )
        anna = User(api, 101, "Anna")
        board = await anna.open_board()
        answer, _ = await anna.tap(board, "💡 Hint")
        assert answer["text"].startswith("💡 Try")
        assert len(set(multiprocessing.active_children()) - before) == pool_size()
    finally:
        await bot.stop()


async def test_other_players_taps_are_answered_during_a_burst_of_hints(api, tmp_path):
    """The search runs in worker processes: taps keep being answered and applied meanwhile.

    How long they take meanwhile is a figure, not a test: `python -m benchmarks.hint_load`.
    """
    bot = RunningBot(api, tmp_path / "hints.sqlite3", hint_budget_ms=400)
    await bot.start()
    try:
        figures = await taps_during_hints(api, bot.database, taps=30)
    finally:
        await bot.stop()
    assert figures.hints_given == figures.hints_asked == 6  # every search ran
    assert len(figures.busy) == 30  # and every tap made meanwhile was answered
