"""Decoding Bot API parameters the way Telegram does, whatever the transport.

python-telegram-bot posts ``application/x-www-form-urlencoded`` (or ``multipart/form-data``
when uploading) where every value is a string: strings go raw, everything else is
``json.dumps``-ed, so ``chat_id`` arrives as ``"5"``, ``show_alert`` as ``"true"`` and
``reply_markup`` as a JSON document. Other clients send ``application/json`` with real
types, or use the query string. :func:`normalize` folds all of these into one typed dict
so method handlers and test assertions never care how a request was encoded.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from .errors import ApiError, bad_request

# Parameters whose value is a JSON object/array (sent as a JSON string in form data).
JSON_FIELDS = frozenset(
    {
        "reply_markup",
        "entities",
        "caption_entities",
        "allowed_updates",
        "commands",
        "scope",
        "menu_button",
        "link_preview_options",
        "reply_parameters",
        "results",
        "result",
        "button",
    }
)
INT_FIELDS = frozenset(
    {
        "message_id",
        "offset",
        "limit",
        "timeout",
        "user_id",
        "cache_time",
        "message_thread_id",
        "reply_to_message_id",
        "max_connections",
    }
)
CHAT_ID_FIELDS = frozenset({"chat_id"})
BOOL_FIELDS = frozenset(
    {
        "show_alert",
        "disable_notification",
        "protect_content",
        "drop_pending_updates",
        "allow_sending_without_reply",
        "allow_paid_broadcast",
        "is_personal",
        "allow_user_chats",
        "allow_bot_chats",
        "allow_group_chats",
        "allow_channel_chats",
    }
)
_INT_RE = re.compile(r"^-?[0-9]+$")


def _decode_json(name: str, value: Any) -> Any:
    if not isinstance(value, str):
        return value
    if value == "":
        return None
    try:
        return json.loads(value)
    except ValueError:
        if name == "reply_markup":
            raise bad_request("can't parse reply keyboard markup JSON object") from None
        raise bad_request(f"can't parse {name} JSON object") from None


def _decode_int(name: str, value: Any) -> Any:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    text = str(value).strip()
    if _INT_RE.match(text):
        return int(text)
    raise bad_request(f"invalid {name} specified")


def _decode_chat_id(value: Any) -> Any:
    """Chat ids are integers or ``@channelusername`` strings."""
    if isinstance(value, bool):
        raise bad_request("chat not found")
    if isinstance(value, int):
        return value
    text = str(value).strip()
    return int(text) if _INT_RE.match(text) else text


def _decode_bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return value != 0
    return str(value).strip().lower() in ("true", "1", "yes")


def normalize(raw: Mapping[str, Any]) -> dict[str, Any]:
    """Typed copy of the raw parameters; unknown names are kept as received."""
    params: dict[str, Any] = {}
    for name, value in raw.items():
        if name in JSON_FIELDS:
            decoded = _decode_json(name, value)
            if decoded is not None:
                params[name] = decoded
        elif name in INT_FIELDS:
            params[name] = _decode_int(name, value)
        elif name in CHAT_ID_FIELDS:
            params[name] = _decode_chat_id(value)
        elif name in BOOL_FIELDS:
            params[name] = _decode_bool(value)
        else:
            params[name] = value
    return params


def require(params: Mapping[str, Any], name: str, description: str | None = None) -> Any:
    """A mandatory parameter, or Telegram's ``... is empty`` style error."""
    value = params.get(name)
    if value is None or value == "":
        raise bad_request(description or f"{name} is empty")
    return value


def text_param(params: Mapping[str, Any], name: str) -> str | None:
    """A string parameter; JSON clients may send numbers, Telegram stringifies them."""
    value = params.get(name)
    if value is None:
        return None
    if isinstance(value, dict | list):
        raise ApiError(400, f'Bad Request: field "{name}" must be of type String')
    return str(value)
