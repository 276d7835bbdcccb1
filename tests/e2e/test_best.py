""" "Best" means one thing: a game's score is what its board holds now, so the points an undo
took back count nowhere: not on /best, the board, a challenge card, the inline best card or
a replay."""

from __future__ import annotations

import engine
from bot.emulator import Upload
from bot.presentation import images
from bot.presentation.i18n import translator
from tests.support.boards import button_data, moving_code, replay
from tests.support.databases import put_board, stored_game
from tests.support.harness import User
from tests.support.pictures import decode_video, psnr

ARROW = {"l": "⬅️", "r": "➡️", "u": "⬆️", "d": "⬇️"}
TWO_MERGES = [[2, 2, 0, 0], [4, 4, 0, 0], [0] * 4, [0] * 4]


async def test_an_undo_takes_its_points_back_from_best_and_the_board(api, bot):
    lena = User(api, 303, "Lena")
    board = await lena.open_board()
    await put_board(bot.database, 303, 303, TWO_MERGES, score=184)
    _, board = await lena.tap(board, "⬅️")  # 4 + 8 points
    assert "Score: 196 · Best: 196" in board.text
    _, board = await lena.tap(board, "↩️ Undo")
    assert "Score: 184 · Best: 184" in board.text
    (records,) = await lena.send("/best")
    assert "Best score: 184" in records

    # A new game's undo does not lower the best that the older game holds.
    board = await lena.open_board("/new 4", replies=1)
    game = await stored_game(bot.database, 303, 303)
    await lena.tap(board, ARROW[moving_code(game)])
    _, board = await lena.tap(board, "↩️ Undo")
    assert "Best: 184" in board.text


async def test_asking_for_a_hint_again_on_the_same_position_counts_once(api, bot):
    lena = User(api, 303, "Lena")
    board = await lena.open_board()
    hint = button_data(board, "💡")
    for _ in range(3):
        query = api.tap(303, 303, board.message_id, hint)
        answer = await api.wait_answer(query, timeout=15)
        assert answer["text"].startswith("💡 Try")
    (records,) = await lena.send("/best")
    assert "1 hint used" in records and "hints used" not in records


async def test_the_replay_shows_the_best_as_of_each_frame(api, bot):
    anna = User(api, 101, "Anna")
    board = await anna.open_board()
    game = await stored_game(bot.database, 101, 101)
    while game.score == 0:  # until a merge has scored
        code = moving_code(game)
        await anna.tap(board, ARROW[code])
        game = replay(game, code)
    api.send_text(101, 101, "/replay")
    sent = await api.wait_request("sendAnimation", chat_id=101, timeout=30)
    assert isinstance(sent.params["animation"], Upload)
    frames, _ = decode_video(sent.params["animation"].data)
    t = translator("en")
    opening = engine.new_game(game.size, game.seed, 0.0)
    boxes = (images.WIDTH // 2, 20, images.WIDTH, 95)  # the SCORE and BEST boxes
    as_it_stood = images.card_image(t, images.card_figures(opening, 0, "Anna")).crop(boxes)
    spoiled = images.card_image(t, images.card_figures(opening, game.score, "Anna")).crop(boxes)
    first = frames[0].crop(boxes)
    assert psnr(first, as_it_stood) > psnr(first, spoiled)
    assert psnr(first, as_it_stood) > 30
