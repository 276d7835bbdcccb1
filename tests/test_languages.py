"""Your language everywhere: what the bot sends outside an update is in the reader's language
too, by the same rule as its replies, and one moment reads the same on every clock line."""

from __future__ import annotations

import re

import pytest

from bot.models import Player
from bot.presentation.i18n import translator
from bot.presentation.sharing import duel_result
from bot.services.sharing import duel_payload
from bot.storage import open_storage
from tests.support.boards import buttons, moving_code
from tests.support.databases import put_board, stored_game
from tests.support.harness import User

pytestmark = pytest.mark.usefixtures("no_errors_logged")

ARROW = {"l": "⬅️", "r": "➡️", "u": "⬆️", "d": "⬇️"}
GROUP = -100500600


async def test_a_duel_result_reaches_each_player_in_their_telegram_language(api, bot):
    """Neither player ever chose a language: each reads their Telegram app's, as in replies."""
    anna = User(api, 101, "Anna", "de")
    daan = User(api, 202, "Daan", "nl-BE")
    board = await anna.open_board()
    for _ in range(3):
        code = moving_code(await stored_game(bot.database, 101, 101))
        _, board = await anna.tap(board, ARROW[code])
    store = await open_storage(bot.database)
    try:
        annas = await store.active_game(101, 101)
    finally:
        await store.close()
    assert annas is not None

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
    assert to_daan.params["text"] == duel_result(translator("nl"), d, daans.score, a, score, size)
    assert to_anna.params["text"] == duel_result(translator("de"), a, score, d, daans.score, size)


def _zone(text: str) -> str:
    match = re.search(r"\d\d:\d\d (?:Uhr )?(\S+?)[.)]?(?:\s|$)", text)
    assert match is not None, text
    return match.group(1)


async def test_a_challenge_end_names_its_zone_alike_on_the_card_and_in_a_join(api, bot):
    daan = User(api, 202, "Daan", "nl")
    anna = User(api, 101, "Anna", "en")
    api.add_group(GROUP, "Klub", admins={daan.id}, members={anna.id})
    api.send_text(daan.id, GROUP, "/challenge")
    sent = await api.wait_request("sendMessage", chat_id=GROUP)
    card = api.stored_message(GROUP, sent.result["message_id"])
    link = next(url for url in buttons(card).values() if "start=" in url)
    joined, _ = await anna.send(f"/start {link.split('start=')[1]}", replies=2)
    assert _zone(card.text) in ("CET", "CEST")
    assert _zone(joined) == _zone(card.text)
