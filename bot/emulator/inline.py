"""Inline mode: a user types ``@bot query`` in a chat, the bot answers, the user picks one.

Telegram only sends inline queries to bots whose inline mode was switched on at @BotFather
(``supports_inline_queries`` in getMe); the emulator refuses to fake one otherwise. The
results a bot answers with are checked as Telegram checks them, and a chosen result becomes
a message "via @bot" in the chat the query was typed in, sent by the user.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import validation
from .errors import bad_request
from .html import utf16_len
from .media import Files, message_media
from .params import text_param

MAX_RESULTS = 50
# Result types the emulator knows, and the fields each needs (one of each tuple).
_CONTENT = {
    "article": (("input_message_content",), ("title",)),
    "photo": (("photo_file_id", "photo_url"),),
    "mpeg4_gif": (("mpeg4_file_id", "mpeg4_url"),),
}
_CACHED = {"photo": ("photo_file_id", "photo"), "mpeg4_gif": ("mpeg4_file_id", "animation")}


@dataclass
class InlineQuery:
    """A query a user typed, and the bot's answer once given."""

    id: str
    user_id: int
    chat_id: int
    query: str
    chat_type: str
    answer: dict[str, Any] | None = None


def check_results(results: Any, files: Files) -> list[dict[str, Any]]:
    """answerInlineQuery's results, refused with Telegram's wording where Telegram would."""
    if not isinstance(results, list):
        raise bad_request("can't parse inline query results JSON object")
    if len(results) > MAX_RESULTS:
        raise bad_request("RESULTS_TOO_MUCH")
    seen: set[str] = set()
    checked = []
    for result in results:
        if not isinstance(result, dict) or result.get("type") not in _CONTENT:
            raise bad_request("RESULT_TYPE_INVALID")
        result_id = result.get("id")
        if not isinstance(result_id, str) or not 1 <= len(result_id.encode()) <= 64:
            raise bad_request("RESULT_ID_INVALID")
        if result_id in seen:
            raise bad_request("RESULT_ID_DUPLICATE")
        seen.add(result_id)
        for needed in _CONTENT[result["type"]]:
            if not any(result.get(field) for field in needed):
                raise bad_request(f"can't parse inline query result: {needed[0]} is missing")
        cached = _CACHED.get(result["type"])
        if cached is not None and result.get(cached[0]):
            known = files.by_id.get(result[cached[0]])
            if known is None or known.kind != cached[1]:
                raise bad_request("wrong file identifier/HTTP URL specified")
        caption = text_param(result, "caption")
        if caption is not None and utf16_len(caption) > validation.MAX_CAPTION_LENGTH:
            raise bad_request("MEDIA_CAPTION_TOO_LONG")
        markup = validation.reply_markup(result.get("reply_markup"), inline_only=True)
        validation.web_app_buttons(markup, private=False)
        checked.append({**result, **({"reply_markup": markup} if markup else {})})
    return checked


@dataclass(frozen=True, slots=True)
class Content:
    """What a chosen result posts: text (or a caption), its source HTML, entities, media."""

    text: str
    html: str | None
    entities: list[dict[str, Any]]
    media: dict[str, Any] | None
    reply_markup: dict[str, Any] | None


def chosen_content(result: dict[str, Any], files: Files) -> Content:
    """The message a result becomes when chosen (its own text if it has one, else its media)."""
    markup = result.get("reply_markup")
    message = result.get("input_message_content")
    if isinstance(message, dict):
        source = text_param(message, "message_text")
        parse_mode = message.get("parse_mode")
        parsed = validation.message_text(source, parse_mode, message.get("entities"))
        return Content(parsed.text, source if parse_mode else None, parsed.entities, None, markup)
    field, kind = _CACHED[result["type"]]
    if not result.get(field):
        raise bad_request("the emulator can post cached (file id) media results only")
    stored = files.resolve(result, field, kind)
    media = message_media(kind, stored)
    caption = text_param(result, "caption")
    parse_mode = result.get("parse_mode")
    parsed = validation.caption(caption, parse_mode, result.get("caption_entities"))
    html = caption if caption and parse_mode else None
    return Content(parsed.text, html, parsed.entities, media, markup)
