"""The simulated Telegram: users, chats, stored messages, the update queue, queries.

This is the single source of truth both for the Bot API handlers (what the bot sees and
changes) and for the driver API (what a test or the browser playground does as a user).
It knows Telegram's object shapes, so every dict it hands out is wire format that
python-telegram-bot's ``de_json`` accepts.

Internal to the emulator: tests and the playground act through ``FakeBotApi`` (api.py),
whose methods are the documentation of what each user action does, so the methods here
that carry those actions out are not documented a second time. A few tests, benchmarks and
the playground reach into ``FakeBotApi.world`` only where ``FakeBotApi`` has no method for
what they need (users, pending queries, files, the menu button).
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .errors import CHAT_NOT_FOUND, GROUP_UPGRADED, ApiError, bad_request
from .html import utf16_len
from .ids import Ids
from .inline import InlineQuery, chosen_content
from .media import Files
from .notify import Notifier

# Updates delivered when allowed_updates is empty/unspecified (Telegram's default set).
_OPT_IN_UPDATES = frozenset({"chat_member", "message_reaction", "message_reaction_count"})
# As TDLib marks them: not glued to a word, '/', '<' or '>' (so '</b>' holds no command).
_BOT_COMMAND = re.compile(r"(?<![\w/@<>])/[A-Za-z0-9_]{1,64}(?:@[A-Za-z0-9_]{3,32})?(?![\w/@<>])")

# Rights of a simulated administrator: every field ChatMemberAdministrator requires.
ADMIN_RIGHTS: dict[str, bool] = {
    "can_be_edited": False,
    "is_anonymous": False,
    "can_manage_chat": True,
    "can_delete_messages": True,
    "can_manage_video_chats": True,
    "can_restrict_members": True,
    "can_promote_members": False,
    "can_change_info": True,
    "can_invite_users": True,
    "can_post_stories": True,
    "can_edit_stories": True,
    "can_delete_stories": True,
    "can_pin_messages": True,
    "can_manage_topics": False,
}


@dataclass(frozen=True)
class PreparedMessage:
    """A message a Mini App's user may send into a chat they pick (savePreparedInlineMessage)."""

    id: str
    user_id: int
    result: dict[str, Any]
    expiration_date: int
    allowed: frozenset[str]


@dataclass
class Chat:
    """A private chat (id == user id) or a group/supergroup (negative id)."""

    id: int
    type: str
    title: str | None = None
    user_id: int | None = None
    admins: set[int] = field(default_factory=set)
    creator: int | None = None
    members: set[int] = field(default_factory=set)
    started: bool = False
    blocked: bool = False
    menu_button: dict[str, Any] | None = None
    next_message_id: int = 1
    # A basic group upgraded to a supergroup: the supergroup's id. The old chat keeps its
    # messages, but every Bot API call naming it fails with the new id attached.
    migrated_to: int | None = None


# Telegram's stand-in sender for messages an anonymous admin writes as the group.
ANONYMOUS_ADMIN = 1087968824


@dataclass
class StoredMessage:
    """A message as the simulated server keeps it: plain text, source HTML, entities."""

    chat_id: int
    message_id: int
    sender_id: int
    date: int
    text: str
    html: str | None
    entities: list[dict[str, Any]]
    reply_markup: dict[str, Any] | None = None
    edit_date: int | None = None
    reply_to: int | None = None
    # Sent on behalf of a chat: an anonymous admin writing as the group.
    sender_chat_id: int | None = None
    # A photo or an animation, as the message's wire fields ("photo": [...] or
    # "animation": {...}); `text` and `entities` are then its caption.
    media: dict[str, Any] | None = None
    # Posted by a user through the bot's inline mode ("via @bot").
    via_bot: bool = False
    # A service message's fields (migrate_to_chat_id, ...); such a message has no text.
    service: dict[str, Any] | None = None


@dataclass
class CallbackQuery:
    """A button tap waiting for (or already given) its answerCallbackQuery."""

    id: str
    user_id: int
    chat_id: int
    message_id: int
    data: str
    created: float
    answer: dict[str, Any] | None = None


class World:
    """All simulated state, plus event fan-out to subscribers (the browser playground)."""

    def __init__(
        self,
        bot_id: int,
        bot_username: str,
        *,
        privacy_mode: bool = True,
        ids: Ids | None = None,
        inline_mode: bool = False,
    ) -> None:
        self.bot_id = bot_id
        self.bot_username = bot_username
        self.privacy_mode = privacy_mode
        # Inline mode is off until the bot's owner switches it on at @BotFather.
        self.inline_mode = inline_mode
        self.files = Files()
        self.inline_queries: dict[str, InlineQuery] = {}
        # savePreparedInlineMessage's messages by id, for a Mini App's shareMessage.
        self.prepared_messages: dict[str, PreparedMessage] = {}
        # Where each kind of id starts. A world that outlives a restart of the emulator
        # (the playground keeps its database) starts later, so ids never repeat.
        self.ids = Ids() if ids is None else ids
        self.notifier = Notifier()
        self.users: dict[int, dict[str, Any]] = {}
        self.chats: dict[int, Chat] = {}
        self.messages: dict[int, dict[int, StoredMessage]] = {}
        self.updates: list[dict[str, Any]] = []
        # Bumped whenever updates leave the queue other than one by one through the webhook.
        self.updates_generation = 0
        self.next_update_id = self.ids.first("update")
        self.allowed_updates: list[str] = []
        self.queries: dict[str, CallbackQuery] = {}
        self.next_query_id = self.ids.first("query")
        self.commands: dict[tuple[tuple[str, int | str | None, int | None], str], list[Any]] = {}
        self.webhook_url = ""
        self.webhook_secret = ""
        self.webhook_max_connections = 40
        self.webhook_last_error_date: int | None = None
        self.webhook_last_error_message = ""
        self.default_menu_button: dict[str, Any] | None = None
        self.bot_texts: dict[str, str] = {}
        self.closing = False
        self._subscribers: list[asyncio.Queue[dict[str, Any]]] = []

    # ----- objects in wire format -------------------------------------------------------

    def bot_user(self) -> dict[str, Any]:
        """The getMe answer; also the ``from`` of every bot message."""
        return {
            "id": self.bot_id,
            "is_bot": True,
            "first_name": "2048",
            "username": self.bot_username,
            "can_join_groups": True,
            "can_read_all_group_messages": not self.privacy_mode,
            "supports_inline_queries": self.inline_mode,
            "can_connect_to_business": False,
            "has_main_web_app": False,
        }

    def user_dict(self, user_id: int) -> dict[str, Any]:
        """A ``User`` object for a simulated user, the bot, or Telegram's anonymous admin."""
        if user_id == self.bot_id:
            bot = self.bot_user()
            return {key: bot[key] for key in ("id", "is_bot", "first_name", "username")}
        if user_id == ANONYMOUS_ADMIN:
            return {
                "id": ANONYMOUS_ADMIN,
                "is_bot": True,
                "first_name": "Group",
                "username": "GroupAnonymousBot",
            }
        return dict(self.users[user_id])

    def chat_dict(self, chat: Chat) -> dict[str, Any]:
        """The short ``Chat`` object embedded in messages."""
        data: dict[str, Any] = {"id": chat.id, "type": chat.type}
        if chat.type == "private" and chat.user_id is not None:
            user = self.users[chat.user_id]
            for key in ("first_name", "last_name", "username"):
                if key in user:
                    data[key] = user[key]
        else:
            data["title"] = chat.title
        return data

    def message_dict(self, msg: StoredMessage, *, with_reply: bool = True) -> dict[str, Any]:
        """The ``Message`` object as Telegram returns it (and as updates carry it)."""
        chat = self.chats[msg.chat_id]
        data: dict[str, Any] = {
            "message_id": msg.message_id,
            "from": self.user_dict(msg.sender_id),
            "chat": self.chat_dict(chat),
            "date": msg.date,
        }
        if msg.sender_chat_id is not None:
            data["sender_chat"] = self.chat_dict(self.chats[msg.sender_chat_id])
        if msg.via_bot:
            data["via_bot"] = self.user_dict(self.bot_id)
        entities = [dict(entity) for entity in msg.entities]
        if msg.service is not None:
            data.update(msg.service)
        elif msg.media is None:
            data["text"] = msg.text
            if entities:
                data["entities"] = entities
        else:
            data.update(msg.media)
            if msg.text:
                data["caption"] = msg.text
            if entities:
                data["caption_entities"] = entities
        if msg.reply_markup is not None:
            data["reply_markup"] = msg.reply_markup
        if msg.edit_date is not None:
            data["edit_date"] = msg.edit_date
        if with_reply and msg.reply_to is not None:
            replied = self.messages[msg.chat_id].get(msg.reply_to)
            if replied is not None:
                data["reply_to_message"] = self.message_dict(replied, with_reply=False)
        return data

    # ----- setup (documented at FakeBotApi) --------------------------------------------

    def add_user(
        self,
        user_id: int,
        first_name: str,
        last_name: str | None = None,
        username: str | None = None,
        language_code: str | None = "en",
    ) -> dict[str, Any]:
        if user_id <= 0:
            raise ValueError("user ids are positive")
        user: dict[str, Any] = {"id": user_id, "is_bot": False, "first_name": first_name}
        if last_name is not None:
            user["last_name"] = last_name
        if username is not None:
            user["username"] = username
        if language_code is not None:
            user["language_code"] = language_code
        self.users[user_id] = user
        if user_id not in self.chats:
            self.chats[user_id] = Chat(
                id=user_id,
                type="private",
                user_id=user_id,
                next_message_id=self.ids.first("message"),
            )
            self.messages[user_id] = {}
        return dict(user)

    def add_group(
        self,
        chat_id: int,
        title: str,
        admins: set[int],
        creator: int | None = None,
        members: Iterable[int] = (),
    ) -> dict[str, Any]:
        if chat_id >= 0:
            raise ValueError("group chat ids are negative")
        kind = "supergroup" if chat_id <= -1_000_000_000_000 else "group"
        admin_ids = set(admins)
        if creator is not None:
            admin_ids.add(creator)
        chat = Chat(
            id=chat_id,
            type=kind,
            title=title,
            admins=admin_ids,
            creator=creator,
            members=(set(admin_ids) | set(members)) - {self.bot_id},
            next_message_id=self.ids.first("message"),
        )
        self.chats[chat_id] = chat
        self.messages[chat_id] = {}
        return self.chat_dict(chat)

    # ----- lookups ----------------------------------------------------------------------

    def chat(self, chat_id: Any) -> Chat:
        """The chat for a ``chat_id`` parameter, or Telegram's ``chat not found``.

        A group upgraded to a supergroup answers with Telegram's error naming the new id.
        """
        if not isinstance(chat_id, int) or chat_id not in self.chats:
            raise bad_request(CHAT_NOT_FOUND)
        chat = self.chats[chat_id]
        if chat.migrated_to is not None:
            raise ApiError(400, GROUP_UPGRADED, migrate_to_chat_id=chat.migrated_to)
        return chat

    def message(self, chat_id: int, message_id: int) -> StoredMessage | None:
        """A stored, not deleted message."""
        return self.messages.get(chat_id, {}).get(message_id)

    def chat_messages(self, chat_id: int) -> list[StoredMessage]:
        """A chat's stored messages, in id order."""
        return sorted(self.messages.get(chat_id, {}).values(), key=lambda m: m.message_id)

    def is_admin(self, chat: Chat, user_id: int) -> bool:
        """Creator or administrator of a group (nobody is admin of a private chat)."""
        return chat.type != "private" and user_id in chat.admins

    # ----- mutations ----------------------------------------------------------------------

    def store_message(
        self,
        chat: Chat,
        sender_id: int,
        text: str,
        *,
        html: str | None = None,
        entities: list[dict[str, Any]] | None = None,
        reply_markup: dict[str, Any] | None = None,
        reply_to: int | None = None,
        sender_chat_id: int | None = None,
        media: dict[str, Any] | None = None,
        via_bot: bool = False,
        service: dict[str, Any] | None = None,
    ) -> StoredMessage:
        """Append a message to a chat and broadcast a ``message`` event."""
        msg = StoredMessage(
            chat_id=chat.id,
            message_id=chat.next_message_id,
            sender_id=sender_id,
            date=int(time.time()),
            text=text,
            html=html,
            entities=list(entities or []),
            reply_markup=reply_markup,
            reply_to=reply_to,
            sender_chat_id=sender_chat_id,
            media=media,
            via_bot=via_bot,
            service=service,
        )
        self.ids.handed_out("message", msg.message_id)
        chat.next_message_id += 1
        self.messages[chat.id][msg.message_id] = msg
        self.emit({"type": "message", "chat_id": chat.id, "message": self.message_dict(msg)})
        return msg

    def edit_message(
        self,
        msg: StoredMessage,
        *,
        text: str,
        html: str | None,
        entities: list[dict[str, Any]],
        reply_markup: dict[str, Any] | None,
    ) -> None:
        """Apply an edit in place and broadcast an ``edit`` event."""
        msg.text, msg.html, msg.entities = text, html, list(entities)
        msg.reply_markup = reply_markup
        msg.edit_date = int(time.time())
        self.emit({"type": "edit", "chat_id": msg.chat_id, "message": self.message_dict(msg)})

    def delete_message(self, msg: StoredMessage) -> None:
        """Remove a message and broadcast a ``delete`` event."""
        del self.messages[msg.chat_id][msg.message_id]
        self.emit({"type": "delete", "chat_id": msg.chat_id, "message_id": msg.message_id})

    # ----- updates ----------------------------------------------------------------------

    def _next_query_id(self) -> str:
        """A callback or inline query's id: one count for both, as Telegram's."""
        query_id = self.next_query_id
        self.ids.handed_out("query", query_id)
        self.next_query_id += 1
        return str(query_id)

    def enqueue_update(self, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
        """Queue ``{"update_id": n, kind: payload}`` for getUpdates; ids only increase."""
        update = {"update_id": self.next_update_id, kind: payload}
        self.ids.handed_out("update", self.next_update_id)
        self.next_update_id += 1
        self.updates.append(update)
        self.notifier.notify()
        return update

    def confirm_updates(self, offset: int | None) -> None:
        """Forget updates the way getUpdates' ``offset`` does (negative: keep the tail)."""
        if offset is None or offset == 0:
            return
        self.updates_generation += 1
        if offset < 0:
            self.updates = self.updates[offset:]
        else:
            self.updates = [u for u in self.updates if u["update_id"] >= offset]

    def drop_updates(self) -> None:
        """``drop_pending_updates``: forget every pending update."""
        self.updates_generation += 1
        self.updates.clear()

    def confirm_update(self, update_id: int) -> None:
        """Forget one update, delivered to the webhook (which confirms each one on its own)."""
        for index, update in enumerate(self.updates):  # oldest first: usually found early
            if update["update_id"] == update_id:
                del self.updates[index]
                return

    def allowed(self, update: dict[str, Any]) -> bool:
        """Whether the bot asked for this kind of update (allowed_updates)."""
        kind = next(key for key in update if key != "update_id")
        if self.allowed_updates:
            return kind in self.allowed_updates
        return kind not in _OPT_IN_UPDATES

    def deliverable_updates(self, limit: int) -> list[dict[str, Any]]:
        """Pending updates the bot asked for; disallowed kinds are dropped for good."""
        kept = [u for u in self.updates if self.allowed(u)]
        if len(kept) != len(self.updates):
            self.updates_generation += 1
            self.updates = kept
        return self.updates[:limit]

    # ----- user actions (documented at FakeBotApi) -------------------------------------

    def bot_commands_in(self, text: str) -> list[dict[str, Any]]:
        """``bot_command`` entities as Telegram's client-side parser marks them."""
        return [
            {
                "type": "bot_command",
                "offset": utf16_len(text[: match.start()]),
                "length": utf16_len(match.group()),
            }
            for match in _BOT_COMMAND.finditer(text)
        ]

    def _visible_to_bot(self, chat: Chat, msg: StoredMessage) -> bool:
        """Privacy mode: in groups the bot sees commands for it and replies to it only."""
        if chat.type == "private" or not self.privacy_mode:
            return True
        if msg.reply_to is not None:
            replied = self.message(chat.id, msg.reply_to)
            if replied is not None and replied.sender_id == self.bot_id:
                return True
        if msg.text.startswith("/") and msg.entities and msg.entities[0]["offset"] == 0:
            token = msg.text[1 : msg.entities[0]["length"]]
            _, _, target = token.partition("@")
            return target == "" or target.lower() == self.bot_username.lower()
        return False

    def user_sends_text(
        self,
        user_id: int,
        chat_id: int,
        text: str,
        reply_to_message_id: int | None = None,
        *,
        as_group: bool = False,
    ) -> dict[str, Any]:
        if user_id not in self.users:
            raise ValueError(f"unknown user {user_id}; call add_user first")
        if chat_id not in self.chats:
            raise ValueError(f"unknown chat {chat_id}")
        chat = self.chats[chat_id]
        if chat.migrated_to is not None:
            raise ValueError(f"chat {chat_id} is now supergroup {chat.migrated_to}")
        if chat.type == "private":
            if chat.user_id != user_id:
                raise ValueError(f"user {user_id} cannot write in private chat {chat_id}")
            chat.started = True
            chat.blocked = False
        else:
            chat.members.add(user_id)
        if not text:
            raise ValueError("Telegram clients cannot send empty messages")
        if reply_to_message_id is not None and self.message(chat_id, reply_to_message_id) is None:
            raise ValueError(f"message {reply_to_message_id} not found in chat {chat_id}")
        if as_group and not self.is_admin(chat, user_id):
            raise ValueError(f"only an admin of chat {chat_id} can write as the group")
        msg = self.store_message(
            chat,
            ANONYMOUS_ADMIN if as_group else user_id,
            text,
            entities=self.bot_commands_in(text),
            reply_to=reply_to_message_id,
            sender_chat_id=chat_id if as_group else None,
        )
        wire = self.message_dict(msg)
        if self._visible_to_bot(chat, msg):
            self.enqueue_update("message", wire)
        return wire

    def user_edits_text(
        self, user_id: int, chat_id: int, message_id: int, text: str
    ) -> dict[str, Any]:
        msg = self.message(chat_id, message_id)
        if msg is None:
            raise ValueError(f"message {message_id} not found in chat {chat_id}")
        if msg.sender_id != user_id:
            raise ValueError(f"user {user_id} cannot edit message {message_id} of another")
        if not text:
            raise ValueError("Telegram clients cannot send empty messages")
        self.edit_message(
            msg, text=text, html=None, entities=self.bot_commands_in(text), reply_markup=None
        )
        wire = self.message_dict(msg)
        if self._visible_to_bot(self.chats[chat_id], msg):
            self.enqueue_update("edited_message", wire)
        return wire

    def user_taps(
        self, user_id: int, chat_id: int, message_id: int, callback_data: str, *, strict: bool
    ) -> str:
        if user_id not in self.users:
            raise ValueError(f"unknown user {user_id}; call add_user first")
        msg = self.message(chat_id, message_id)
        if msg is None:
            raise ValueError(f"message {message_id} not found in chat {chat_id}")
        if self.chats[chat_id].migrated_to is not None:
            raise ValueError(f"chat {chat_id} is now supergroup {self.chats[chat_id].migrated_to}")
        if strict:
            buttons = [
                button.get("callback_data")
                for row in (msg.reply_markup or {}).get("inline_keyboard", [])
                for button in row
            ]
            if callback_data not in buttons:
                raise ValueError(
                    f"message {message_id} has no button with callback_data {callback_data!r} "
                    f"(buttons: {buttons}); pass strict=False to forge one"
                )
        query_id = self._next_query_id()
        self.queries[query_id] = CallbackQuery(
            query_id, user_id, chat_id, message_id, callback_data, time.monotonic()
        )
        self.enqueue_update(
            "callback_query",
            {
                "id": query_id,
                "from": self.user_dict(user_id),
                "message": self.message_dict(msg),
                "chat_instance": str(8_000_000_000_000_000_000 + chat_id),
                "data": callback_data,
            },
        )
        return query_id

    def user_inline_query(self, user_id: int, chat_id: int, query: str) -> str:
        if user_id not in self.users:
            raise ValueError(f"unknown user {user_id}; call add_user first")
        if not self.inline_mode:
            raise ValueError(
                "inline mode is off for this bot (@BotFather /setinline): Telegram sends no query"
            )
        chat = self.chats.get(chat_id)
        if chat is None:
            raise ValueError(f"unknown chat {chat_id}")
        if chat.type == "private":
            if chat.user_id != user_id:
                raise ValueError(f"user {user_id} cannot write in private chat {chat_id}")
            chat_type = "sender"
        else:
            if user_id not in chat.members:
                raise ValueError(f"user {user_id} is not in chat {chat_id}")
            chat_type = chat.type
        query_id = self._next_query_id()
        self.inline_queries[query_id] = InlineQuery(query_id, user_id, chat_id, query, chat_type)
        self.enqueue_update(
            "inline_query",
            {
                "id": query_id,
                "from": self.user_dict(user_id),
                "query": query,
                "offset": "",
                "chat_type": chat_type,
            },
        )
        return query_id

    def user_switches_inline(
        self, user_id: int, chat_id: int, message_id: int, target_chat_id: int
    ) -> str:
        msg = self.message(chat_id, message_id)
        if msg is None:
            raise ValueError(f"message {message_id} not found in chat {chat_id}")
        queries = [
            button["switch_inline_query"]
            for row in (msg.reply_markup or {}).get("inline_keyboard", [])
            for button in row
            if "switch_inline_query" in button
        ]
        if len(queries) != 1:
            raise ValueError(f"message {message_id} has {len(queries)} switch_inline_query buttons")
        return self.user_inline_query(user_id, target_chat_id, queries[0])

    def user_chooses_inline_result(self, query_id: str, result_id: str) -> dict[str, Any]:
        query = self.inline_queries.get(query_id)
        if query is None or query.answer is None:
            raise ValueError(f"inline query {query_id} has no answer to choose from")
        result = next((r for r in query.answer["results"] if r["id"] == result_id), None)
        if result is None:
            ids = [r["id"] for r in query.answer["results"]]
            raise ValueError(f"no result {result_id!r} in the answer (results: {ids})")
        content = chosen_content(result, self.files)
        chat = self.chats[query.chat_id]
        msg = self.store_message(
            chat,
            query.user_id,
            content.text,
            html=content.html,
            entities=content.entities,
            reply_markup=content.reply_markup,
            media=content.media,
            via_bot=True,
        )
        wire = self.message_dict(msg)
        if self._visible_to_bot(chat, msg):
            self.enqueue_update("message", wire)
        return wire

    def upgrade_group(self, chat_id: int, new_chat_id: int, user_id: int) -> None:
        old = self.chats.get(chat_id)
        if old is None or old.type != "group" or old.migrated_to is not None:
            raise ValueError(f"chat {chat_id} is not a basic group")
        if new_chat_id in self.chats or new_chat_id > -1_000_000_000_000:
            raise ValueError(f"{new_chat_id} is not a free supergroup id (-100...)")
        if not self.is_admin(old, user_id):
            raise ValueError(f"only an admin of chat {chat_id} can upgrade it")
        self.add_group(new_chat_id, old.title or "", old.admins, old.creator, old.members)
        new = self.chats[new_chat_id]
        for chat, service in (
            (old, {"migrate_to_chat_id": new_chat_id}),
            (new, {"migrate_from_chat_id": chat_id}),
        ):
            msg = self.store_message(chat, user_id, "", service=service)
            self.enqueue_update("message", self.message_dict(msg))
        old.migrated_to = new_chat_id

    # ----- commands (documented at FakeBotApi.commands_for) ----------------------------

    def visible_commands(self, chat_id: int, user_id: int) -> list[dict[str, str]]:
        chat = self.chats[chat_id]
        language = str(self.users.get(user_id, {}).get("language_code", ""))[:2]
        if chat.type == "private":
            scopes: list[tuple[str, int | str | None, int | None]] = [
                ("chat", chat_id, None),
                ("all_private_chats", None, None),
                ("default", None, None),
            ]
        else:
            admin = self.is_admin(chat, user_id)
            scopes = [("chat_member", chat_id, user_id)]
            if admin:
                scopes.append(("chat_administrators", chat_id, None))
            scopes.append(("chat", chat_id, None))
            if admin:
                scopes.append(("all_chat_administrators", None, None))
            scopes += [("all_group_chats", None, None), ("default", None, None)]
        for scope in scopes:
            for lang in (language, ""):
                found = self.commands.get((scope, lang))
                if found:
                    return [dict(command) for command in found]
        return []

    # ----- events (subscribing is documented at FakeBotApi) ----------------------------

    def subscribe(self) -> asyncio.Queue[dict[str, Any]]:
        queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self._subscribers.append(queue)
        return queue

    def unsubscribe(self, queue: asyncio.Queue[dict[str, Any]]) -> None:
        if queue in self._subscribers:
            self._subscribers.remove(queue)

    def emit(self, event: dict[str, Any]) -> None:
        """Fan an event out to subscribers and wake waiters."""
        for queue in self._subscribers:
            queue.put_nowait(event)
        self.notifier.notify()
