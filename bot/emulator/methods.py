"""Bot API method handlers: decoded params in, Telegram result (or ApiError) out.

The methods are those the bot and python-telegram-bot call, plus getWebhookInfo, through
which tests watch the webhook's delivery; any other name gets Telegram's 404 "Not Found".
Each handler follows the real API's checks in the order a bot developer notices them
(chat lookup, content validation, message lookup, "not modified"), using Telegram's
error wording so exception-handling code in the bot is exercised for real.
"""

from __future__ import annotations

import re
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import Any

from . import validation
from .errors import NOT_MODIFIED, QUERY_TOO_OLD, ApiError, bad_request, forbidden
from .inline import check_results
from .media import message_media
from .params import require, text_param
from .world import ADMIN_RIGHTS, Chat, PreparedMessage, StoredMessage, World

# Telegram's limits for setMyDescription and setMyShortDescription, in characters.
BOT_TEXT_LIMITS = {"description": 512, "short_description": 120}

Handler = Callable[[dict[str, Any]], Awaitable[Any]]

_CONFLICT_OTHER_POLL = (
    "Conflict: terminated by other getUpdates request; make sure that only one bot "
    "instance is running"
)
_CONFLICT_WEBHOOK = (
    "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook "
    "to delete the webhook first"
)

# setWebhook's secret_token: 1-256 characters A-Z, a-z, 0-9, _ and -.
_SECRET_TOKEN = re.compile(r"[A-Za-z0-9_-]{1,256}")


# Seconds a prepared message stays usable.
PREPARED_LIFETIME = 24 * 3600


class _Superseded:
    """Sentinel: a newer getUpdates call took over this long poll."""


class BotApiMethods:
    """The implemented subset of the Bot API, keyed case-insensitively like Telegram."""

    def __init__(self, world: World) -> None:
        self.world = world
        # getUpdates calls so far, each counted as it starts: the newest is the running poll.
        self.polls = 0
        handlers: list[tuple[str, Handler]] = [
            ("getMe", self.get_me),
            ("getUpdates", self.get_updates),
            ("setWebhook", self.set_webhook),
            ("deleteWebhook", self.delete_webhook),
            ("getWebhookInfo", self.get_webhook_info),
            ("setMyCommands", self.set_my_commands),
            ("sendMessage", self.send_message),
            ("sendPhoto", self._media_sender("photo")),
            ("sendAnimation", self._media_sender("animation")),
            ("sendDocument", self._media_sender("document")),
            ("answerInlineQuery", self.answer_inline_query),
            ("savePreparedInlineMessage", self.save_prepared_inline_message),
            ("editMessageText", self.edit_message_text),
            ("editMessageReplyMarkup", self.edit_message_reply_markup),
            ("deleteMessage", self.delete_message),
            ("answerCallbackQuery", self.answer_callback_query),
            ("getChatMember", self.get_chat_member),
            ("sendChatAction", self.send_chat_action),
            ("setChatMenuButton", self.set_chat_menu_button),
            ("setMyDescription", self._setter("description")),
            ("getMyDescription", self._getter("description")),
            ("setMyShortDescription", self._setter("short_description")),
            ("getMyShortDescription", self._getter("short_description")),
        ]
        self._handlers = {name.lower(): (name, handler) for name, handler in handlers}

    def canonical(self, method: str) -> str | None:
        """The official spelling of an implemented method name, or None."""
        found = self._handlers.get(method.lower())
        return found[0] if found else None

    @property
    def names(self) -> list[str]:
        """All implemented method names."""
        return [name for name, _ in self._handlers.values()]

    async def call(self, method: str, params: dict[str, Any]) -> Any:
        """Run a method by (case-insensitive) name; raises ApiError like Telegram."""
        found = self._handlers.get(method.lower())
        if found is None:
            raise ApiError(404, "Not Found")
        return await found[1](params)

    def stop_polls(self) -> None:
        """Release long polls at shutdown (they answer with an empty list)."""
        self.world.closing = True
        self.world.notifier.notify()

    # ----- bot & updates ----------------------------------------------------------------

    async def get_me(self, params: dict[str, Any]) -> Any:
        return self.world.bot_user()

    async def get_updates(self, params: dict[str, Any]) -> Any:
        """Long poll: confirm by offset, answer as soon as updates exist or at timeout."""
        world = self.world
        if world.webhook_url:
            raise ApiError(409, _CONFLICT_WEBHOOK)
        limit = min(max(int(params.get("limit", 100)), 1), 100)
        timeout = max(int(params.get("timeout", 0)), 0)
        allowed = params.get("allowed_updates")
        if isinstance(allowed, list):
            world.allowed_updates = [str(kind) for kind in allowed]
        world.confirm_updates(params.get("offset"))
        # Telegram lets only one getUpdates run; a newer one terminates the older one.
        self.polls += 1
        generation = self.polls
        world.notifier.notify()

        def ready() -> list[dict[str, Any]] | _Superseded | None:
            if generation != self.polls:
                return _Superseded()
            if world.closing:
                return []
            return world.deliverable_updates(limit) or None

        result = await world.notifier.wait_until(ready, float(timeout))
        if isinstance(result, _Superseded):
            raise ApiError(409, _CONFLICT_OTHER_POLL)
        return result or []

    async def set_webhook(self, params: dict[str, Any]) -> Any:
        world = self.world
        url = text_param(params, "url") or ""
        if url and not url.startswith("https://"):
            raise bad_request("bad webhook: An HTTPS URL must be provided for webhook")
        secret = text_param(params, "secret_token") or ""
        if secret and not _SECRET_TOKEN.fullmatch(secret):
            raise bad_request("secret token contains unallowed characters")
        max_connections = int(params.get("max_connections", 40))
        if not 1 <= max_connections <= 100:
            raise bad_request("bad webhook: max_connections must be between 1 and 100")
        allowed = params.get("allowed_updates")
        if isinstance(allowed, list):
            world.allowed_updates = [str(kind) for kind in allowed]
        if url != world.webhook_url:
            world.webhook_last_error_date = None
            world.webhook_last_error_message = ""
        world.webhook_url = url
        world.webhook_secret = secret if url else ""
        world.webhook_max_connections = max_connections
        if params.get("drop_pending_updates"):
            world.drop_updates()
        world.notifier.notify()  # the delivery starts
        return True

    async def delete_webhook(self, params: dict[str, Any]) -> Any:
        self.world.webhook_url = ""
        self.world.webhook_secret = ""
        if params.get("drop_pending_updates"):
            self.world.drop_updates()
        return True

    async def get_webhook_info(self, params: dict[str, Any]) -> Any:
        world = self.world
        info: dict[str, Any] = {
            "url": world.webhook_url,
            "has_custom_certificate": False,
            "pending_update_count": len(world.updates),
        }
        if world.webhook_url:
            info["max_connections"] = world.webhook_max_connections
        if world.webhook_last_error_date is not None:
            info["last_error_date"] = world.webhook_last_error_date
            info["last_error_message"] = world.webhook_last_error_message
        if world.allowed_updates:
            info["allowed_updates"] = list(world.allowed_updates)
        return info

    # ----- commands & profile -------------------------------------------------------------

    def _command_key(
        self, params: dict[str, Any]
    ) -> tuple[tuple[str, int | str | None, int | None], str]:
        scope = validation.command_scope(params.get("scope"))
        if scope[1] is not None:
            self.world.chat(scope[1])
        return scope, validation.language_code(params.get("language_code"))

    async def set_my_commands(self, params: dict[str, Any]) -> Any:
        commands = validation.commands(params.get("commands", []))
        key = self._command_key(params)
        if commands:
            self.world.commands[key] = commands
        else:
            self.world.commands.pop(key, None)
        return True

    def _setter(self, field: str) -> Handler:
        async def handler(params: dict[str, Any]) -> Any:
            key = (field, validation.language_code(params.get("language_code")))
            text = text_param(params, field) or ""
            if len(text) > BOT_TEXT_LIMITS[field]:
                raise bad_request(f"bot {field.replace('_', ' ')} is too long")
            self.world.bot_texts["/".join(key)] = text
            return True

        return handler

    def _getter(self, field: str) -> Handler:
        async def handler(params: dict[str, Any]) -> Any:
            key = "/".join((field, validation.language_code(params.get("language_code"))))
            return {field: self.world.bot_texts.get(key, "")}

        return handler

    # ----- messages -----------------------------------------------------------------------

    def _writable_chat(self, params: dict[str, Any]) -> Chat:
        """Bots may only write to users who started them and have not blocked them."""
        chat = self.world.chat(require(params, "chat_id"))
        if chat.type == "private":
            if chat.blocked:
                raise forbidden("bot was blocked by the user")
            if not chat.started:
                raise forbidden("bot can't initiate conversation with a user")
        return chat

    def _reply_target(self, chat: Chat, params: dict[str, Any]) -> int | None:
        reply = params.get("reply_parameters")
        if isinstance(reply, dict):
            message_id, lenient = reply.get("message_id"), reply.get("allow_sending_without_reply")
        else:
            message_id = params.get("reply_to_message_id")
            lenient = params.get("allow_sending_without_reply")
        if message_id is None:
            return None
        if self.world.message(chat.id, message_id) is None:
            if lenient:
                return None
            raise bad_request("message to be replied not found")
        return int(message_id)

    async def send_message(self, params: dict[str, Any]) -> Any:
        """Validate text and markup exactly like Telegram, store, return the Message."""
        chat = self._writable_chat(params)
        source = text_param(params, "text")
        parsed = validation.message_text(source, params.get("parse_mode"), params.get("entities"))
        markup = validation.reply_markup(params.get("reply_markup"), inline_only=False)
        validation.web_app_buttons(markup, private=chat.type == "private")
        reply_to = self._reply_target(chat, params)
        msg = self.world.store_message(
            chat,
            self.world.bot_id,
            parsed.text,
            html=source if params.get("parse_mode") else None,
            entities=parsed.entities,
            reply_markup=markup,
            reply_to=reply_to,
        )
        return self.world.message_dict(msg)

    def _media_sender(self, kind: str) -> Handler:
        """sendPhoto / sendAnimation / sendDocument: a new upload or a known file id, with a
        caption."""

        async def handler(params: dict[str, Any]) -> Any:
            chat = self._writable_chat(params)
            source = text_param(params, "caption")
            parse_mode = params.get("parse_mode")
            parsed = validation.caption(source, parse_mode, params.get("caption_entities"))
            markup = validation.reply_markup(params.get("reply_markup"), inline_only=False)
            validation.web_app_buttons(markup, private=chat.type == "private")
            reply_to = self._reply_target(chat, params)
            files = self.world.files.resolve(params, kind, kind)
            media = message_media(kind, files)
            msg = self.world.store_message(
                chat,
                self.world.bot_id,
                parsed.text,
                html=source if source and parse_mode else None,
                entities=parsed.entities,
                reply_markup=markup,
                reply_to=reply_to,
                media=media,
            )
            return self.world.message_dict(msg)

        return handler

    async def save_prepared_inline_message(self, params: dict[str, Any]) -> Any:
        """A PreparedInlineMessage: one inline result the user may send from a Mini App."""
        user_id = require(params, "user_id")
        if user_id not in self.world.users:
            raise bad_request("USER_ID_INVALID")
        (result,) = check_results([require(params, "result")], self.world.files)
        allowed = frozenset(
            kind
            for kind in ("user", "bot", "group", "channel")
            if params.get(f"allow_{kind}_chats") is True
        )
        prepared = PreparedMessage(
            id=secrets.token_urlsafe(12),
            user_id=user_id,
            result=result,
            expiration_date=int(time.time()) + PREPARED_LIFETIME,
            allowed=allowed,
        )
        self.world.prepared_messages[prepared.id] = prepared
        return {"id": prepared.id, "expiration_date": prepared.expiration_date}

    async def answer_inline_query(self, params: dict[str, Any]) -> Any:
        query_id = str(require(params, "inline_query_id", QUERY_TOO_OLD))
        query = self.world.inline_queries.get(query_id)
        if query is None or query.answer is not None:
            raise bad_request(QUERY_TOO_OLD)
        results = check_results(params.get("results", []), self.world.files)
        button = params.get("button")
        if button is not None and (
            not isinstance(button, dict) or not isinstance(button.get("text"), str)
        ):
            raise bad_request("can't parse InlineQueryResultsButton")
        query.answer = {
            "results": results,
            "cache_time": params.get("cache_time", 300),
            "is_personal": bool(params.get("is_personal", False)),
            "next_offset": text_param(params, "next_offset") or "",
            "button": button,
        }
        self.world.emit(
            {
                "type": "inline_answer",
                "query_id": query_id,
                "user_id": query.user_id,
                "chat_id": query.chat_id,
                "results": results,
                "button": button,
            }
        )
        return True

    def _message_to_edit(self, params: dict[str, Any]) -> StoredMessage:
        """The bot's own message addressed by chat_id + message_id (inline mode: none)."""
        if params.get("inline_message_id") is not None:
            raise bad_request("MESSAGE_ID_INVALID")
        chat = self.world.chat(require(params, "chat_id"))
        message_id = require(params, "message_id", "message identifier is not specified")
        msg = self.world.message(chat.id, message_id)
        if msg is None:
            raise bad_request("message to edit not found")
        if msg.sender_id != self.world.bot_id:
            raise bad_request("message can't be edited")
        return msg

    def _in_private(self, msg: StoredMessage) -> bool:
        return self.world.chats[msg.chat_id].type == "private"

    async def edit_message_text(self, params: dict[str, Any]) -> Any:
        """Omitting reply_markup removes the keyboard, as on Telegram; no-op edits fail."""
        source = text_param(params, "text")
        parsed = validation.message_text(source, params.get("parse_mode"), params.get("entities"))
        markup = validation.reply_markup(params.get("reply_markup"), inline_only=True)
        msg = self._message_to_edit(params)
        validation.web_app_buttons(markup, private=self._in_private(msg))
        if msg.media is not None:
            raise bad_request("there is no text in the message to edit")
        if (msg.text, msg.entities, msg.reply_markup) == (parsed.text, parsed.entities, markup):
            raise bad_request(NOT_MODIFIED)
        self.world.edit_message(
            msg,
            text=parsed.text,
            html=source if params.get("parse_mode") else None,
            entities=parsed.entities,
            reply_markup=markup,
        )
        return self.world.message_dict(msg)

    async def edit_message_reply_markup(self, params: dict[str, Any]) -> Any:
        """Replace (or, when omitted, remove) the inline keyboard; no-op edits fail."""
        markup = validation.reply_markup(params.get("reply_markup"), inline_only=True)
        msg = self._message_to_edit(params)
        validation.web_app_buttons(markup, private=self._in_private(msg))
        if msg.reply_markup == markup:
            raise bad_request(NOT_MODIFIED)
        self.world.edit_message(
            msg, text=msg.text, html=msg.html, entities=msg.entities, reply_markup=markup
        )
        return self.world.message_dict(msg)

    async def delete_message(self, params: dict[str, Any]) -> Any:
        chat = self.world.chat(require(params, "chat_id"))
        message_id = require(params, "message_id", "message identifier is not specified")
        msg = self.world.message(chat.id, message_id)
        if msg is None:
            raise bad_request("message to delete not found")
        own = msg.sender_id == self.world.bot_id
        if not own and chat.type != "private" and not self.world.is_admin(chat, self.world.bot_id):
            raise bad_request("message can't be deleted")
        self.world.delete_message(msg)
        return True

    async def answer_callback_query(self, params: dict[str, Any]) -> Any:
        query_id = str(require(params, "callback_query_id", QUERY_TOO_OLD))
        query = self.world.queries.get(query_id)
        if query is None or query.answer is not None:
            raise bad_request(QUERY_TOO_OLD)
        text = validation.answer_text(text_param(params, "text"))
        query.answer = {
            "text": text,
            "show_alert": bool(params.get("show_alert", False)),
            "url": text_param(params, "url"),
            "cache_time": params.get("cache_time", 0),
        }
        self.world.emit(
            {
                "type": "answer",
                "query_id": query_id,
                "user_id": query.user_id,
                "chat_id": query.chat_id,
                "message_id": query.message_id,
                **query.answer,
            }
        )
        return True

    # ----- chats --------------------------------------------------------------------------

    def _member(self, chat: Chat, user_id: int) -> dict[str, Any]:
        world = self.world
        if user_id != world.bot_id and user_id not in world.users:
            raise bad_request("user not found")
        user = world.user_dict(user_id)
        if chat.type == "private":
            if user_id not in (chat.user_id, world.bot_id):
                raise bad_request("user not found")
            return {"status": "member", "user": user}
        if user_id == chat.creator:
            return {"status": "creator", "user": user, "is_anonymous": False}
        if user_id in chat.admins:
            return {"status": "administrator", "user": user, **ADMIN_RIGHTS}
        if user_id == world.bot_id or user_id in chat.members:
            return {"status": "member", "user": user}
        return {"status": "left", "user": user}

    async def get_chat_member(self, params: dict[str, Any]) -> Any:
        chat = self.world.chat(require(params, "chat_id"))
        return self._member(chat, int(require(params, "user_id")))

    async def send_chat_action(self, params: dict[str, Any]) -> Any:
        chat = self._writable_chat(params)
        action = text_param(params, "action")
        if action not in validation.CHAT_ACTIONS:
            raise bad_request("wrong parameter action in request")
        self.world.emit({"type": "action", "chat_id": chat.id, "action": action})
        return True

    async def set_chat_menu_button(self, params: dict[str, Any]) -> Any:
        button = validation.menu_button(params.get("menu_button") or {"type": "default"})
        if params.get("chat_id") is not None:
            self.world.chat(params["chat_id"]).menu_button = button
        else:
            self.world.default_menu_button = button
        return True
