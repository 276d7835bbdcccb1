"""A webhook process whose answers are lost: Telegram posts each update again, and the second
post changes nothing (the services' side: tests/unit/services/test_redelivery.py)."""

from __future__ import annotations

import asyncio

from tests.support.boards import button_data, buttons, moving_code
from tests.support.databases import count_rows, stored_game
from tests.support.harness import User, eventually
from tests.support.processes import WebhookProcess

GROUP = -4343
ARROWS = {"l": "⬅️", "r": "➡️", "u": "⬆️", "d": "⬇️"}


async def delivered_twice(api, update_id: int) -> None:
    """Wait until the update was posted again and the bot answered that second post."""
    await eventually(
        lambda: (
            sum(1 for d in api.webhook_deliveries if d.update_id == update_id) == 2
            and api.webhook_deliveries[-1].ok
        ),
    )


async def test_updates_delivered_again_after_a_lost_answer_apply_once(api, database):
    """One webhook process; every answer below is lost once, so Telegram posts it again."""
    process = WebhookProcess(api, database)
    await process.start()
    api.webhook_targets = [process.url]
    try:
        anna, bob = User(api, 101, "Anna"), User(api, 202, "Bob")
        api.add_group(GROUP, "Club", admins={anna.id})

        api.lose_webhook_answers()
        api.send_text(anna.id, anna.id, "/new 6")
        await delivered_twice(api, api.pending_updates[-1]["update_id"])

        # Replies go out in the chat's turn, after the update is answered.
        def boards() -> list[dict]:
            return [m for m in api.messages(anna.id) if m.get("text", "").startswith("2048 ·")]

        await eventually(lambda: len(boards()) == 2)
        # The board is shown again, of the one game it started (the older board then loses
        # its buttons: one live board per game).
        assert await count_rows(database, "games", "owner_id = ?", anna.id) == 1
        board = api.stored_message(anna.id, boards()[-1]["message_id"])

        arrow = ARROWS[moving_code(await stored_game(database, anna.id, anna.id))]
        api.lose_webhook_answers()
        query = api.tap(anna.id, anna.id, board.message_id, button_data(board, arrow))
        await delivered_twice(api, api.pending_updates[-1]["update_id"])
        await api.wait_answer(query)
        assert (await stored_game(database, anna.id, anna.id)).moves == 1

        api.lose_webhook_answers()
        api.send_text(anna.id, GROUP, "/challenge 5 1h")
        await delivered_twice(api, api.pending_updates[-1]["update_id"])
        await eventually(lambda: bool(api.messages(GROUP)))
        await asyncio.sleep(0.3)  # a second card would be posted (and deleted) by now
        cards = [m for m in api.messages(GROUP) if m["from"]["id"] == api.bot_id]
        assert len(cards) == 1 and await count_rows(database, "challenges") == 1
        link = buttons(api.stored_message(GROUP, cards[0]["message_id"]))["▶️ Play"]

        api.lose_webhook_answers()
        api.send_text(bob.id, bob.id, f"/start {link.split('?start=')[1]}")
        await delivered_twice(api, api.pending_updates[-1]["update_id"])
        await eventually(  # the same answer, of the one entry
            lambda: (
                len([m for m in api.messages(bob.id) if "joined the challenge" in m["text"]]) == 2
            )
        )
        assert await count_rows(database, "games", "owner_id = ?", bob.id) == 1
    finally:
        assert await process.stop() == 0
