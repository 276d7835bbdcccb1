"""Duels, end to end: the friend knows what they race, and both get the result in their own
language (sent outside any update of theirs)."""

from __future__ import annotations

from bot.codecs import duel_payload
from bot.models import Player, StoredGame
from bot.presentation.captions import duel_result
from bot.presentation.i18n import translator
from bot.storage import open_storage
from tests.support.boards import isolated, moving_code
from tests.support.databases import Database, put_board, stored_game
from tests.support.harness import User

ARROW = {"l": "⬅️", "r": "➡️", "u": "⬆️", "d": "⬇️"}


async def _shared_game(database: Database, anna: User, moves: int) -> StoredGame:
    """Anna plays `moves` moves; her game as it stands is what a duel link shares."""
    board = await anna.open_board()
    for _ in range(moves):
        code = moving_code(await stored_game(database, anna.id, anna.id))
        _, board = await anna.tap(board, ARROW[code])
    store = await open_storage(database)
    try:
        stored = await store.active_game(anna.id, anna.id)
    finally:
        await store.close()
    assert stored is not None
    return stored


async def test_the_friends_board_names_the_rival_and_the_score_to_beat(api, bot):
    anna = User(api, 101, "Anna")
    ben = User(api, 202, "Ben")
    annas = await _shared_game(bot.database, anna, 3)
    intro, _ = await ben.send(f"/start {duel_payload(annas)}", replies=2)
    assert "as it was when they shared it, after 3 moves. Anything they played" in intro
    board = ben.board()
    title = board.text.split("\n")[0]
    assert f"vs \u2068Anna\u2069 · {annas.game.score} to beat" in title
    assert "Best:" not in board.text  # Ben's own best is no part of this race
    # Anna plays on: Ben still races her game as it was shared.
    await _shared_game(bot.database, anna, 1)
    code = moving_code(await stored_game(bot.database, 202, 202))
    _, board = await ben.tap(board, ARROW[code])
    assert f"{annas.game.score} to beat" in board.text.split("\n")[0]


async def test_a_duel_result_reaches_each_player_in_their_telegram_language(api, bot):
    """Neither player ever chose a language: each reads their Telegram app's, as in replies."""
    anna = User(api, 101, "Anna", "de")
    daan = User(api, 202, "Daan", "nl-BE")
    annas = await _shared_game(bot.database, anna, 3)
    await daan.send(f"/start {duel_payload(annas)}", replies=2)
    # After ⬅️ the one empty cell is boxed in by 16 and 32: over whether a 2 or a 4 comes.
    lost = [[2, 4, 2, 4], [4, 2, 4, 2], [2, 4, 2, 32], [4, 2, 8, 8]]
    await put_board(bot.database, 202, 202, lost, score=16)
    before = api.mark()
    await daan.tap(daan.board(), "⬅️")
    to_daan = await api.wait_request("sendMessage", chat_id=202, after=before, timeout=10)
    to_anna = await api.wait_request("sendMessage", chat_id=101, after=before, timeout=10)
    daans = await stored_game(bot.database, 202, 202)
    a, d = Player(101, "Anna"), Player(202, "Daan")
    score, size = annas.game.score, annas.game.size
    to_daan_text = duel_result(translator("nl"), daans.score, a, score, size, sharer=False)
    to_anna_text = duel_result(translator("de"), score, d, daans.score, size, sharer=True)
    assert to_daan.params["text"] == to_daan_text
    assert to_anna.params["text"] == to_anna_text
    # Anna shared days ago, maybe: her line says who took on which of her games.
    assert to_anna_text.startswith(f"⚔️ {isolated('Daan')} hat sich deinem Spiel gestellt")
    assert to_daan_text.startswith(f"⚔️ Je nam het op tegen het spel van {isolated('Anna')}")
