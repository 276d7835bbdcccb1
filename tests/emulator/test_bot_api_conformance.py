"""The Bot API as data (tests/data/bot-api.json): the check every `api` fixture runs on the
calls it took finds each kind of departure, and the limits the bot and the emulator keep are
the ones Telegram states."""

from __future__ import annotations

import re
from typing import Any

import pytest

from bot.emulator import validation
from bot.emulator.log import RecordedRequest
from bot.emulator.methods import BOT_TEXT_LIMITS
from bot.presentation.limits import MESSAGE_LIMIT
from bot.presentation.toasts import TOAST_LIMIT
from tests.support.bot_api_spec import check_calls, spec, violations

CHAT = {"id": 101, "type": "private", "first_name": "Anna"}
MESSAGE = {"message_id": 7, "date": 1_780_000_000, "chat": CHAT, "text": "2048"}


def call(method: str, params: dict[str, Any], result: Any = True) -> RecordedRequest:
    return RecordedRequest(
        index=0,
        method=method,
        params=params,
        ok=True,
        result=result,
        error_code=None,
        description=None,
        time=0.0,
    )


def test_calls_as_python_telegram_bot_posts_them_keep_to_the_bot_api():
    keyboard = {"inline_keyboard": [[{"text": "⬅️", "callback_data": "m:l"}]]}
    check_calls(
        [
            call(
                "sendMessage",
                {"chat_id": 101, "text": "<b>2048</b>", "parse_mode": "HTML",
                 "reply_markup": keyboard, "disable_notification": "true"},
                {**MESSAGE, "reply_markup": keyboard},
            ),
            call("answerCallbackQuery", {"callback_query_id": "5", "text": "Undone"}),
            # A form's values are strings: an integer, and a JSON document for an object.
            call("editMessageReplyMarkup", {"chat_id": "101", "message_id": "7",
                                            "reply_markup": '{"inline_keyboard": []}'}, MESSAGE),
            call("setChatMenuButton", {"menu_button": {"type": "commands"}}),
        ]
    )  # fmt: skip


@pytest.mark.parametrize(
    ("request_", "expected"),
    [
        (call("sendMessages", {"chat_id": 101}), "sendMessages: Telegram has no such method"),
        (call("sendMessage", {"text": "hi"}, MESSAGE), "sendMessage(chat_id): required"),
        (
            call("sendMessage", {"chat_id": 101, "text": "hi", "colour": "red"}, MESSAGE),
            "sendMessage(colour): not a parameter of this method",
        ),
        (
            call("sendMessage", {"chat_id": 101, "message_thread_id": "five"}, MESSAGE),
            "sendMessage(message_thread_id): 'five' is not Integer",
        ),
        (
            call("sendMessage", {"chat_id": 101, "text": "hi", "reply_markup": {
                "inline_keyboard": [[{"text": "⬅️", "callbak_data": "m:l"}]]}}, MESSAGE),
            "reply_markup).inline_keyboard[0][0].callbak_data: not a field of InlineKeyboardButton",
        ),
        (
            call("sendMessage", {"chat_id": 101, "text": "hi"}, {**MESSAGE, "mood": "fine"}),
            "sendMessage -> .mood: not a field of Message",
        ),
        (
            call("sendMessage", {"chat_id": 101, "text": "hi"},
                 {key: value for key, value in MESSAGE.items() if key != "date"}),
            "sendMessage -> .date: required in Message, and missing",
        ),
        (
            call("sendMessage", {"chat_id": 101, "text": "hi"},
                 {**MESSAGE, "chat": {**CHAT, "id": "101"}}),
            "sendMessage -> .chat.id: '101' is not Integer",
        ),
        (
            call("answerCallbackQuery", {"callback_query_id": "5"}, {"ok": True}),
            "answerCallbackQuery -> : {'ok': True} is not Boolean",
        ),
        (
            # An abstract type: held against the kind of menu button it comes closest to.
            call("setChatMenuButton", {"menu_button": {"type": "web_app", "text": "Play"}}),
            "setChatMenuButton(menu_button).web_app: required in MenuButtonWebApp, and missing",
        ),
    ],
    ids=[
        "unknown method", "missing parameter", "unknown parameter", "parameter type",
        "nested unknown field", "answer's unknown field", "answer's missing field",
        "answer's nested type", "answer's kind", "closest subtype",
    ],
)  # fmt: skip
def test_each_kind_of_departure_is_found(request_, expected):
    found = violations(request_)
    assert any(line.startswith(expected) or expected in line for line in found), found
    with pytest.raises(AssertionError, match=re.escape(expected)):
        check_calls([request_])


def _limit(owner: dict[str, Any], field: str) -> int:
    """The upper bound a field's description states: "1-4096 characters", "At most 100"."""
    stated = next(f["limit"] for f in owner["fields"] if f["name"] == field)
    return int(re.findall(r"\d+", stated)[-1])


def test_the_limits_kept_are_the_ones_telegram_states():
    methods, types = spec()["methods"], spec()["types"]
    kept = {
        "the bot's message": (MESSAGE_LIMIT, _limit(methods["sendMessage"], "text")),
        "the bot's toast": (TOAST_LIMIT, _limit(methods["answerCallbackQuery"], "text")),
        "a text": (validation.MAX_TEXT_LENGTH, _limit(methods["sendMessage"], "text")),
        "a caption": (validation.MAX_CAPTION_LENGTH, _limit(methods["sendPhoto"], "caption")),
        "a button's data": (
            validation.MAX_CALLBACK_DATA_BYTES,
            _limit(types["InlineKeyboardButton"], "callback_data"),
        ),
        "a toast": (
            validation.MAX_ANSWER_TEXT_LENGTH,
            _limit(methods["answerCallbackQuery"], "text"),
        ),
        "the commands": (validation.MAX_COMMANDS, _limit(methods["setMyCommands"], "commands")),
        "a command": (validation.MAX_COMMAND_LENGTH, _limit(types["BotCommand"], "command")),
        "a command's description": (
            validation.MAX_COMMAND_DESCRIPTION_LENGTH,
            _limit(types["BotCommand"], "description"),
        ),
        "the description": (
            BOT_TEXT_LIMITS["description"],
            _limit(methods["setMyDescription"], "description"),
        ),
        "the short description": (
            BOT_TEXT_LIMITS["short_description"],
            _limit(methods["setMyShortDescription"], "short_description"),
        ),
    }
    assert {name: ours for name, (ours, _) in kept.items()} == {
        name: telegrams for name, (_, telegrams) in kept.items()
    }
