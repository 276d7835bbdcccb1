"""Content rules Telegram enforces on messages, keyboards and command lists.

Kept apart from the method handlers so each rule (and its exact error wording) lives in
one place and can be unit-tested without a server.
"""

from __future__ import annotations

import re
from typing import Any

from .errors import ApiError, bad_request
from .html import HtmlParseError, ParsedText, finish, parse_html, utf16_len

MAX_TEXT_LENGTH = 4096
MAX_CAPTION_LENGTH = 1024
MAX_CALLBACK_DATA_BYTES = 64
MAX_ANSWER_TEXT_LENGTH = 200
MAX_COMMANDS = 100
MAX_COMMAND_LENGTH = 32
MAX_COMMAND_DESCRIPTION_LENGTH = 256
_COMMAND_RE = re.compile(rf"^[a-z0-9_]{{1,{MAX_COMMAND_LENGTH}}}$")
_LANGUAGE_RE = re.compile(r"^[a-z]{2}$")

# Inline button kinds: a button must carry exactly one of these besides "text".
INLINE_BUTTON_KINDS = (
    "callback_data",
    "url",
    "web_app",
    "login_url",
    "switch_inline_query",
    "switch_inline_query_current_chat",
    "switch_inline_query_chosen_chat",
    "copy_text",
    "callback_game",
    "pay",
)
_BUTTON_URL_SCHEMES = ("http://", "https://", "tg://")

COMMAND_SCOPES = frozenset(
    {
        "default",
        "all_private_chats",
        "all_group_chats",
        "all_chat_administrators",
        "chat",
        "chat_administrators",
        "chat_member",
    }
)
MENU_BUTTON_TYPES = ("default", "commands", "web_app")
CHAT_ACTIONS = frozenset(
    {
        "typing",
        "upload_photo",
        "record_video",
        "upload_video",
        "record_voice",
        "upload_voice",
        "upload_document",
        "choose_sticker",
        "find_location",
        "record_video_note",
        "upload_video_note",
    }
)


def _check_entities(entities: Any, text: str) -> list[dict[str, Any]]:
    """Explicit ``entities`` (no parse_mode): accept well-formed ones within the text."""
    if not isinstance(entities, list):
        raise bad_request("can't parse entities JSON object")
    size = utf16_len(text)
    checked = []
    for entity in entities:
        if not isinstance(entity, dict) or not isinstance(entity.get("type"), str):
            raise bad_request('can\'t parse MessageEntity: Field "type" must be of type String')
        offset, length = entity.get("offset"), entity.get("length")
        if not isinstance(offset, int) or not isinstance(length, int) or length <= 0:
            continue
        if offset < 0 or offset + length > size:
            continue
        checked.append(dict(entity))
    return checked


def message_text(text: str | None, parse_mode: str | None, entities: Any) -> ParsedText:
    """Apply parse_mode and Telegram's length rules; returns the stored text + entities."""
    if text is None:
        raise bad_request("message text is empty")
    mode = (parse_mode or "").strip()
    if mode == "":
        parsed = finish(ParsedText(text, _check_entities(entities, text) if entities else []))
    elif mode.lower() == "html":
        try:
            parsed = parse_html(text)
        except HtmlParseError as exc:
            raise bad_request(f"can't parse entities: {exc}") from None
    elif mode.lower() in ("markdown", "markdownv2"):
        raise bad_request("can't parse entities: the emulator implements only the HTML parse mode")
    else:
        raise bad_request("unsupported parse_mode")
    if not parsed.text:
        raise bad_request("message text is empty")
    if utf16_len(parsed.text) > MAX_TEXT_LENGTH:
        raise bad_request("message is too long")
    return parsed


def caption(text: str | None, parse_mode: str | None, entities: Any) -> ParsedText:
    """A media caption: optional, else parsed like a text, and at most 1,024 characters."""
    if not text:
        return ParsedText("")
    parsed = message_text(text, parse_mode, entities)
    if utf16_len(parsed.text) > MAX_CAPTION_LENGTH:
        raise bad_request("message caption is too long")
    return parsed


def _button_error(text: str) -> ApiError:
    return bad_request(f"can't parse inline keyboard button: {text}")


def _inline_button(button: Any) -> dict[str, Any]:
    if not isinstance(button, dict):
        raise bad_request(
            "can't parse inline keyboard button: InlineKeyboardButton must be an Object"
        )
    text = button.get("text")
    if not isinstance(text, str):
        raise _button_error('Field "text" must be of type String')
    kinds = [kind for kind in INLINE_BUTTON_KINDS if kind in button]
    if not kinds:
        raise _button_error("Text buttons are unallowed in the inline keyboard")
    if len(kinds) > 1:
        raise _button_error(
            f"exactly one of the optional fields must be used, got {', '.join(kinds)}"
        )
    kind = kinds[0]
    value = button[kind]
    if kind == "callback_data":
        if not isinstance(value, str):
            raise _button_error('Field "callback_data" must be of type String')
        if not 1 <= len(value.encode("utf-8")) <= MAX_CALLBACK_DATA_BYTES:
            raise bad_request("BUTTON_DATA_INVALID")
    elif kind == "url":
        if not isinstance(value, str):
            raise _button_error('Field "url" must be of type String')
        if not value.lower().startswith(_BUTTON_URL_SCHEMES):
            raise bad_request("BUTTON_URL_INVALID")
    elif kind == "web_app":
        if not isinstance(value, dict):
            raise _button_error('Field "web_app" must be an Object')
        if not isinstance(value.get("url"), str):
            raise _button_error('Can\'t find field "url"')
    return {"text": text, kind: value}


def reply_markup(markup: Any, *, inline_only: bool) -> dict[str, Any] | None:
    """Validate ``reply_markup``; returns the inline keyboard to store (None otherwise).

    Telegram echoes only inline keyboards in the returned Message; reply keyboards,
    ``remove_keyboard`` and ``force_reply`` affect the client but not the message.
    """
    if markup is None:
        return None
    if not isinstance(markup, dict):
        raise bad_request("can't parse reply keyboard markup JSON object")
    if "inline_keyboard" in markup:
        rows = markup["inline_keyboard"]
        if not isinstance(rows, list) or not all(isinstance(row, list) for row in rows):
            raise bad_request(
                'can\'t parse inline keyboard markup: Field "inline_keyboard" must be '
                "an Array of Arrays"
            )
        keyboard = [[_inline_button(button) for button in row] for row in rows]
        return {"inline_keyboard": keyboard}
    if inline_only:
        raise bad_request("inline keyboard expected")
    if "keyboard" in markup:
        rows = markup["keyboard"]
        if not isinstance(rows, list) or not all(isinstance(row, list) for row in rows):
            raise bad_request('can\'t parse keyboard markup: Field "keyboard" must be an Array')
        for row in rows:
            for button in row:
                if not isinstance(button, str) and not (
                    isinstance(button, dict) and isinstance(button.get("text"), str)
                ):
                    raise bad_request(
                        'can\'t parse keyboard button: Field "text" must be of type String'
                    )
        return None
    if markup.get("remove_keyboard") is True or markup.get("force_reply") is True:
        return None
    raise bad_request("can't find reply keyboard in the markup")


def web_app_buttons(markup: dict[str, Any] | None, *, private: bool) -> None:
    """A Web App button opens only in a private chat with the bot: anywhere else (a group,
    a message posted through inline mode) Telegram refuses the whole keyboard."""
    if private or markup is None:
        return
    if any("web_app" in button for row in markup["inline_keyboard"] for button in row):
        raise bad_request("BUTTON_TYPE_INVALID")


def menu_button(button: Any) -> dict[str, Any]:
    """setChatMenuButton's button: the default one, the command list, or a labelled Web App."""
    if not isinstance(button, dict) or button.get("type") not in MENU_BUTTON_TYPES:
        raise bad_request("can't parse menu button: unsupported type")
    if button["type"] == "web_app":
        web_app = button.get("web_app")
        if not isinstance(button.get("text"), str):
            raise bad_request("can't parse menu button: Can't find field \"text\"")
        if not isinstance(web_app, dict):
            raise bad_request("can't parse menu button: Can't find field \"web_app\"")
        if not isinstance(web_app.get("url"), str):
            raise bad_request("can't parse menu button: Can't find field \"url\"")
    return button


def answer_text(text: str | None) -> str | None:
    """answerCallbackQuery text: 0-200 characters."""
    if text is not None and utf16_len(text) > MAX_ANSWER_TEXT_LENGTH:
        raise bad_request("MESSAGE_TOO_LONG")
    return text


def commands(value: Any) -> list[dict[str, str]]:
    """setMyCommands list: 1-32 lowercase a-z0-9_ names, 1-256 character descriptions."""
    if not isinstance(value, list):
        raise bad_request("can't parse commands JSON object")
    if len(value) > MAX_COMMANDS:
        raise bad_request("BOT_COMMANDS_TOO_MUCH")
    result = []
    for item in value:
        if not isinstance(item, dict):
            raise bad_request("can't parse BotCommand: BotCommand must be an Object")
        if "command" not in item:
            raise bad_request("can't parse BotCommand: Can't find field \"command\"")
        if "description" not in item:
            raise bad_request("can't parse BotCommand: Can't find field \"description\"")
        name, description = item["command"], item["description"]
        if not isinstance(name, str) or not _COMMAND_RE.match(name):
            raise bad_request("BOT_COMMAND_INVALID")
        if not isinstance(description, str) or not description.strip():
            raise bad_request("command description must be non-empty")
        description = description.strip()
        if len(description) > MAX_COMMAND_DESCRIPTION_LENGTH:
            raise bad_request("BOT_COMMAND_DESCRIPTION_INVALID")
        result.append({"command": name, "description": description})
    return result


def language_code(value: Any) -> str:
    """Command-list language: empty (all languages) or a two-letter ISO 639-1 code."""
    if value is None or value == "":
        return ""
    if not isinstance(value, str) or not _LANGUAGE_RE.match(value):
        raise bad_request("invalid language code specified")
    return value


def command_scope(scope: Any) -> tuple[str, int | str | None, int | None]:
    """Normalize a BotCommandScope to a hashable key ``(type, chat_id, user_id)``."""
    if scope is None:
        return ("default", None, None)
    if not isinstance(scope, dict) or scope.get("type") not in COMMAND_SCOPES:
        raise bad_request("can't parse BotCommandScope: unsupported scope type")
    kind = scope["type"]
    chat_id = (
        scope.get("chat_id") if kind in ("chat", "chat_administrators", "chat_member") else None
    )
    user_id = scope.get("user_id") if kind == "chat_member" else None
    if kind in ("chat", "chat_administrators", "chat_member") and chat_id is None:
        raise bad_request("can't parse BotCommandScope: Can't find field \"chat_id\"")
    if kind == "chat_member" and not isinstance(user_id, int):
        raise bad_request("can't parse BotCommandScope: Can't find field \"user_id\"")
    return (kind, chat_id, user_id)
