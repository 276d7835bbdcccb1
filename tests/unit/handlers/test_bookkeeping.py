"""An update's key: what Telegram sends again is known as the same update, an edit as a new one."""

from __future__ import annotations

from telegram import Update

from bot.chat.posts import update_key

GROUP = -4343


def test_a_delivery_is_known_by_its_query_or_message_and_an_edit_is_a_new_one():
    anna = {"id": 101, "is_bot": False, "first_name": "Anna"}
    command = {
        "message_id": 7,
        "date": 0,
        "chat": {"id": GROUP, "type": "group", "title": "Club"},
        "from": anna,
        "text": "/new 4",
    }
    first = Update.de_json({"update_id": 1, "message": command}, None)
    again = Update.de_json({"update_id": 1, "message": command}, None)
    assert update_key(first) == update_key(again) == f"m{GROUP}:7"
    # Changing "/new 4" into "/new 5" is a new command: it starts another game.
    edit = {**command, "text": "/new 5", "edit_date": 60}
    edited = Update.de_json({"update_id": 2, "edited_message": edit}, None)
    assert update_key(edited) == f"m{GROUP}:7:60"
    query = {"id": "99", "from": anna, "chat_instance": "1", "data": "g:1:l", "message": command}
    assert update_key(Update.de_json({"update_id": 3, "callback_query": query}, None)) == "q99"
