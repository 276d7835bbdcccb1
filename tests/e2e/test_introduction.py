"""A new user's empty chat says what the bot is: its description and short description."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize(
    ("language", "description", "short"),
    [
        ("", "2048 right in your Telegram chat.", "2048 in your chat: slide the tiles"),
        ("nl", "2048 gewoon in je Telegram-chat.", "2048 in je chat: schuif de tegels"),
        ("de", "2048 direkt in deinem Telegram-Chat.", "2048 im Chat: Kacheln schieben"),
    ],
)
async def test_the_bot_introduces_itself_in_each_language(api, bot, language, description, short):
    shown = await api.methods.call("getMyDescription", {"language_code": language})
    assert shown["description"].startswith(description) and "/challenge" in shown["description"]
    shown = await api.methods.call("getMyShortDescription", {"language_code": language})
    assert shown["short_description"].startswith(short)


async def test_a_restart_leaves_the_descriptions_as_they_are(api, bot):
    mark = api.mark()
    await bot.restart()
    assert api.find_requests("getMyDescription", after=mark)
    assert not api.find_requests(("setMyDescription", "setMyShortDescription"), after=mark)
