"""A challenge's tiles stay secret while it runs: its entries are no duel until it ends."""

from __future__ import annotations

import time

import pytest

from bot.services.sharing import duel_payload
from bot.storage import open_storage
from tests.support.boards import button_data, buttons
from tests.support.databases import execute_sql
from tests.support.harness import User

GROUP = -100400500
REFUSAL = (
    "This game is part of a running challenge, so its tiles stay secret until the challenge "
    "ends. Share it after that."
)

pytestmark = pytest.mark.usefixtures("no_errors_logged")


async def test_a_running_challenge_entry_is_no_duel_until_the_challenge_ends(api, bot):
    anna, bob, carl = User(api, 101, "Anna"), User(api, 202, "Bob"), User(api, 303, "Carl")
    api.add_group(GROUP, "2048 Club", admins={anna.id})
    api.send_text(anna.id, GROUP, "/challenge 4 2h")
    sent = await api.wait_request("sendMessage", chat_id=GROUP)
    card_id = sent.result["message_id"]
    payload = buttons(api.stored_message(GROUP, card_id))["▶️ Play"].split("?start=")[1]
    board = await bob.open_board(f"/start {payload}")
    await bob.tap(board, "⬅️", edit=False)

    # /share shows the entry's picture, but with no duel on it.
    mark = api.mark()
    api.send_text(bob.id, bob.id, "/share")
    photo = await api.wait_request("sendPhoto", after=mark, chat_id=bob.id)
    shown = api.stored_message(bob.id, photo.result["message_id"])
    assert not any(label.startswith("▶️") for label in buttons(shown))
    assert "?start=d" not in str(photo.params.get("reply_markup"))

    # A duel link on the entry, as the bot gave them before it refused: refused as well.
    store = await open_storage(bot.database)
    try:
        entry = await store.latest_game(bob.id, bob.id)
    finally:
        await store.close()
    assert entry is not None and entry.challenge_id is not None
    (refusal,) = await carl.send(f"/start {duel_payload(entry)}")
    assert refusal == REFUSAL
    assert (
        await execute_sql(bot.database, "UPDATE games SET active = active WHERE owner_id = 303")
        == 0
    )

    ends_at = time.time() + 0.5
    await execute_sql(bot.database, "UPDATE challenges SET ends_at = ?", ends_at)
    await execute_sql(
        bot.database, "UPDATE games SET closes_at = ? WHERE challenge_id IS NOT NULL", ends_at
    )
    await bot.restart()  # the end is scheduled from the database
    await api.wait_request(
        "editMessageText",
        chat_id=GROUP,
        message_id=card_id,
        text=lambda text: "Final standings" in text,
        timeout=10,
    )
    api.send_text(bob.id, bob.id, "/share")
    card = await api.wait_request("sendPhoto", chat_id=bob.id, timeout=10)
    link = button_data(api.stored_message(bob.id, card.result["message_id"]), "▶️")
    assert "?start=d" in link
