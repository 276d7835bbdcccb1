"""Groups as the end-to-end tests set them up: a club, a challenge, its deep link, its end."""

from __future__ import annotations

import time

from bot.emulator import StoredMessage
from bot.models import Challenge
from bot.storage import open_storage
from tests.support.boards import buttons
from tests.support.databases import Database, execute_sql
from tests.support.harness import User

GROUP = -100200300  # a supergroup
BASIC = -4500  # a basic group: Telegram gives its supergroup a new id when it is upgraded
SUPER = -1_000_000_004_500


async def open_challenges(database: Database) -> list[Challenge]:
    store = await open_storage(database)
    try:
        return await store.open_challenges()
    finally:
        await store.close()


async def end_challenge_soon(database: Database, seconds: float) -> float:
    """Move every open challenge's end close, as if it had been started long ago."""
    ends_at = time.time() + seconds
    await execute_sql(database, "UPDATE challenges SET ends_at = ? WHERE finished = 0", ends_at)
    await execute_sql(
        database, "UPDATE games SET closes_at = ? WHERE challenge_id IS NOT NULL", ends_at
    )
    return ends_at


async def join(api, user: User, link: str, replies: int = 2) -> StoredMessage:
    """Follow a Play button's deep link: Telegram opens the private chat and sends /start."""
    payload = link.split("?start=")[1]
    assert len(payload) <= 64
    return await user.open_board(f"/start {payload}", replies=replies)


async def challenge_with_bob(api, anna: User, bob: User, chat_id: int) -> StoredMessage:
    """A challenge in `chat_id` that Bob has joined and made a move in; its card."""
    api.send_text(anna.id, chat_id, "/challenge 4 1h")
    sent = await api.wait_request("sendMessage", chat_id=chat_id)
    card = api.stored_message(chat_id, sent.result["message_id"])
    (link,) = [url for label, url in buttons(card).items() if label.startswith("▶️")]
    board = await join(api, bob, link)
    for arrow in ("⬅️", "➡️"):
        answer, board = await bob.tap(board, arrow, edit=False)
        if answer["text"] is None:
            await api.wait_request("editMessageText", chat_id=bob.id)
            break
    return card
