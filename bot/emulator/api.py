"""``FakeBotApi``: the emulator's one public object, a server plus a test driver.

The bot under test talks to it over real HTTP (``base_url``), exactly as to Telegram.
Tests and the browser playground act as users through the driver methods
(``send_text``, ``tap``) and observe the bot through the request log and the stored
chat state. Waiting is event-driven, so tests are fast and not timing-fragile.

Cursor semantics of ``wait_request``/``wait_for``: with ``after=None`` they search from
an implicit cursor that ``send_text``/``tap`` move to "now" and that each successful
wait moves past the request it returned. So consecutive waits after one user action
return consecutive matching requests, never the same one twice. Pass ``after=mark()``
(or any index) to search from an explicit point instead; that does not move the cursor.
"""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import Callable, Collection, Iterable
from types import TracebackType
from typing import Any

from aiohttp import web

from .faults import Faults, Hold, make_fault
from .flood import TELEGRAM_LIMITS, FloodControl, FloodLimits
from .ids import Ids
from .log import RecordedRequest, RequestLog, request_matcher
from .methods import BotApiMethods
from .server import BotApiServer
from .webhook import Delivery, WebhookDelivery
from .world import StoredMessage, World

DEFAULT_TOKEN = "123456:TEST-TOKEN-abcdefghijklmnopqrstuvwxyz"
# How long a driver waits for the bot by default. Waits end as soon as what they wait for
# happens, so this is only reached when it never does: generous, for a machine busy with
# other work, where a reply can take seconds.
WAIT_TIMEOUT = 30.0


class FakeBotApi:
    """An in-process fake of the Telegram Bot API with a driver API for tests.

    ``inline_mode`` is the switch at @BotFather (off by default, as for a new bot): only with
    it on do users' ``@bot`` queries reach the bot. ``ids`` is where update, message and query ids
    start (bot/emulator/ids.py); a world that comes back on each run next to a kept database
    (the playground) starts above the last run's, so that an id the bot stored never names a
    different message or tap, just as on Telegram.

    ``flood`` are the flood limits Telegram enforces per chat, on unless a test needs none
    (None); ``clock`` is the flood model's time in seconds, which a test may advance by hand.
    At run time, :attr:`flood` switches them on and off and forces a flood wait on one chat.
    """

    def __init__(
        self,
        token: str = DEFAULT_TOKEN,
        bot_username: str = "play2048_bot",
        *,
        privacy_mode: bool = True,
        ids: Ids | None = None,
        inline_mode: bool = False,
        flood: FloodLimits | None = TELEGRAM_LIMITS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        bot_id, _, secret = token.partition(":")
        if not bot_id.isdigit() or not secret:
            raise ValueError("token must look like '<bot id>:<secret>'")
        self.token = token
        self.world = World(
            int(bot_id),
            bot_username,
            privacy_mode=privacy_mode,
            ids=ids,
            inline_mode=inline_mode,
        )
        self.log = RequestLog(self.world.notifier)
        self.methods = BotApiMethods(self.world)
        self.faults = Faults()
        self.flood = FloodControl(self.world, flood, clock)
        # Artificial latency per method name (case-insensitive), in seconds.
        self.delay: dict[str, float] = {}
        self._server = BotApiServer(
            token, self.methods, self.log, self.faults, self.flood, self.delay
        )
        self.webhook = WebhookDelivery(self.world)
        self._cursor = 0

    # ----- lifecycle ----------------------------------------------------------------------

    async def start(
        self, host: str = "127.0.0.1", port: int = 0, sock: socket.socket | None = None
    ) -> None:
        """Start serving; ``port=0`` binds a free port (see :attr:`port`), and ``sock``, a
        socket bound already, serves there: its address is known before the server starts."""
        self.world.closing = False
        await self._server.start(host, port, sock)
        self.webhook.start()

    async def stop(self) -> None:
        """Answer pending long polls with ``[]``, stop webhook delivery, shut the server down."""
        await self.webhook.stop()
        await self._server.stop()

    def mount(self, setup: Callable[[web.Application], None]) -> None:
        """Add routes to the emulator's aiohttp app (call before :meth:`start`).

        The browser playground serves its page and JSON API this way, on the same port as
        the Bot API; ``setup`` may also register ``on_shutdown`` hooks.
        """
        if self._server.port:
            raise RuntimeError("mount() must be called before start()")
        self._server.app_setups.append(setup)

    def revoke_token(self) -> None:
        """@BotFather's /revoke: from now on every request with the old token gets 401."""
        self._server.token = f"{self.world.bot_id}:revoked"

    async def __aenter__(self) -> FakeBotApi:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.stop()

    @property
    def port(self) -> int:
        """The bound TCP port (after :meth:`start`)."""
        if not self._server.port:
            raise RuntimeError("FakeBotApi is not started")
        return self._server.port

    @property
    def base_url(self) -> str:
        """For ``Bot(base_url=...)``: PTB appends ``<token>/<method>``."""
        return f"http://{self._server.host}:{self.port}/bot"

    @property
    def bot_id(self) -> int:
        """The bot's user id (the token's numeric prefix)."""
        return self.world.bot_id

    @property
    def bot_username(self) -> str:
        """The bot's username, without ``@``."""
        return self.world.bot_username

    # ----- the simulated world ------------------------------------------------------------

    def add_user(
        self,
        user_id: int,
        first_name: str,
        last_name: str | None = None,
        username: str | None = None,
        language_code: str | None = "en",
    ) -> dict[str, Any]:
        """Create a user (and their private chat, whose id is the user id)."""
        return self.world.add_user(user_id, first_name, last_name, username, language_code)

    def add_group(
        self,
        chat_id: int,
        title: str,
        admins: set[int],
        creator: int | None = None,
        members: Iterable[int] = (),
    ) -> dict[str, Any]:
        """Create a group (negative id; <= -10**12 means supergroup) with its admins.

        Include :attr:`bot_id` in ``admins`` to make the bot an administrator. ``members``
        are further (non-admin) members; users also join a group by writing in it.
        """
        return self.world.add_group(chat_id, title, admins, creator, members)

    def upgrade_group(self, chat_id: int, new_chat_id: int, user_id: int) -> None:
        """Admin ``user_id`` upgrades basic group ``chat_id`` to supergroup ``new_chat_id``.

        As on Telegram, the supergroup has the group's title, admins and members. Both chats
        get a service message for the bot, whatever the privacy mode (``migrate_to_chat_id``
        in the old one, ``migrate_from_chat_id`` in the new one); calls naming the old chat
        then fail with 400 "group chat was upgraded to a supergroup chat" and the new id in
        ``parameters``.
        """
        self._cursor = len(self.log)
        self.world.upgrade_group(chat_id, new_chat_id, user_id)

    def block_bot(self, user_id: int, blocked: bool = True) -> None:
        """The user blocks (or unblocks) the bot: sends then fail with 403."""
        self.world.chat(user_id).blocked = blocked

    # ----- acting as users ----------------------------------------------------------------

    def send_text(
        self,
        user_id: int,
        chat_id: int,
        text: str,
        *,
        reply_to_message_id: int | None = None,
        as_group: bool = False,
    ) -> dict[str, Any]:
        """The user writes ``text``; queues a ``message`` update and returns the message.

        Commands get ``bot_command`` entities. In groups with privacy mode on, the update
        is only queued for commands meant for this bot and replies to its messages. With
        ``as_group`` an admin writes anonymously, as the group: Telegram names the group as
        the message's ``sender_chat`` and its GroupAnonymousBot as ``from``.
        """
        self._cursor = len(self.log)
        return self.world.user_sends_text(
            user_id, chat_id, text, reply_to_message_id, as_group=as_group
        )

    def delete_message(self, chat_id: int, message_id: int) -> None:
        """Someone in the chat deletes a message (the bot is not told, as on Telegram)."""
        msg = self.world.message(chat_id, message_id)
        if msg is None:
            raise ValueError(f"message {message_id} not found in chat {chat_id}")
        self.world.delete_message(msg)

    def edit_text(self, user_id: int, chat_id: int, message_id: int, text: str) -> dict[str, Any]:
        """The user edits their message ``message_id`` into ``text``; queues ``edited_message``.

        Telegram sends the whole message again, with ``edit_date`` set and its new entities.
        """
        self._cursor = len(self.log)
        return self.world.user_edits_text(user_id, chat_id, message_id, text)

    def tap(
        self,
        user_id: int,
        chat_id: int,
        message_id: int,
        callback_data: str,
        *,
        strict: bool = True,
    ) -> str:
        """The user presses an inline button; queues a ``callback_query``, returns its id.

        With ``strict`` the message must currently show a button with that data
        (as in a real client); ``strict=False`` forges arbitrary data.
        """
        self._cursor = len(self.log)
        return self.world.user_taps(user_id, chat_id, message_id, callback_data, strict=strict)

    def inline_query(self, user_id: int, chat_id: int, query: str) -> str:
        """The user types ``@bot query`` in a chat; returns the inline query's id."""
        self._cursor = len(self.log)
        return self.world.user_inline_query(user_id, chat_id, query)

    def switch_inline(
        self, user_id: int, chat_id: int, message_id: int, target_chat_id: int
    ) -> str:
        """The user taps a ``switch_inline_query`` button and picks ``target_chat_id``."""
        self._cursor = len(self.log)
        return self.world.user_switches_inline(user_id, chat_id, message_id, target_chat_id)

    async def wait_inline_answer(
        self, query_id: str, timeout: float = WAIT_TIMEOUT
    ) -> dict[str, Any]:
        """The answerInlineQuery params (results, button, cache_time, ...) once given."""
        query = self.world.inline_queries.get(query_id)
        if query is None:
            raise KeyError(f"unknown inline query {query_id}")
        answer = await self.world.notifier.wait_until(lambda: query.answer, timeout)
        if answer is None:
            raise TimeoutError(f"inline query {query_id} was not answered within {timeout}s")
        return dict(answer)

    def choose_inline_result(self, query_id: str, result_id: str) -> dict[str, Any]:
        """The user picks a result: it is posted via the bot in the query's chat."""
        self._cursor = len(self.log)
        return self.world.user_chooses_inline_result(query_id, result_id)

    def file_bytes(self, file_id: str) -> bytes:
        """The bytes the bot uploaded for this file id (any size of a photo)."""
        return self.world.files.by_id[file_id].data

    async def wait_answer(self, query_id: str, timeout: float = WAIT_TIMEOUT) -> dict[str, Any]:
        """The answerCallbackQuery params (text, show_alert, url, cache_time) once given."""
        query = self.world.queries.get(query_id)
        if query is None:
            raise KeyError(f"unknown callback query {query_id}")
        answer = await self.world.notifier.wait_until(lambda: query.answer, timeout)
        if answer is None:
            raise TimeoutError(f"callback query {query_id} was not answered within {timeout}s")
        return dict(answer)

    # ----- observing the bot ------------------------------------------------------------

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every Bot API call so far (method, params, ok, result/error, time)."""
        return self.log.items

    def mark(self) -> int:
        """A position in the request log for ``after=`` (requests recorded later match)."""
        return len(self.log)

    def find_requests(
        self,
        method: str | Iterable[str] | None = None,
        *,
        after: int = 0,
        ok: bool | None = None,
        **match: Any,
    ) -> list[RecordedRequest]:
        """All recorded requests matching method/params (no waiting)."""
        matches = request_matcher(method, ok, match)
        return [req for req in self.log.items[after:] if matches(req)]

    async def wait_for(
        self,
        predicate: Callable[[RecordedRequest], bool],
        *,
        after: int | None = None,
        timeout: float = WAIT_TIMEOUT,
    ) -> RecordedRequest:
        """The first request (from ``after`` or the cursor) satisfying ``predicate``."""
        start = self._cursor if after is None else after
        found = await self.world.notifier.wait_until(
            lambda: self.log.first(predicate, start), timeout
        )
        if found is None:
            seen = [r.summary() for r in self.log.since(start, ignore=("getUpdates",))]
            raise TimeoutError(
                f"no matching Bot API request within {timeout}s; requests since #{start}: "
                + ("; ".join(seen[-10:]) or "none")
            )
        if after is None:
            self._cursor = found.index + 1
        return found

    async def wait_request(
        self,
        method: str | Iterable[str],
        *,
        after: int | None = None,
        timeout: float = WAIT_TIMEOUT,
        ok: bool | None = True,
        **match: Any,
    ) -> RecordedRequest:
        """Next request of ``method`` whose params equal ``match`` (values may be callables).

        ``method`` may be several names, e.g. ``("sendMessage", "editMessageText")``.
        By default only successful requests match; ``ok=None`` matches any outcome.
        """
        return await self.wait_for(request_matcher(method, ok, match), after=after, timeout=timeout)

    @property
    def polls(self) -> int:
        """The getUpdates calls so far, each counted as it starts (for `wait_polling`)."""
        return self.methods.polls

    async def wait_polling(self, after: int, timeout: float = WAIT_TIMEOUT) -> None:
        """Until the bot polls: a getUpdates call has started since `polls` was `after`.

        The request log has a long poll only once it is answered, which with nothing to
        deliver is its whole timeout later.
        """
        started = await self.world.notifier.wait_until(lambda: self.polls > after or None, timeout)
        if started is None:
            raise TimeoutError(f"no getUpdates call within {timeout}s")

    async def quiet(self, seconds: float = 0.3, *, ignore: Collection[str] | None = None) -> None:
        """Assert that the bot makes no calls for ``seconds`` (``get*`` reads ignored)."""
        start = len(self.log)
        await asyncio.sleep(seconds)
        made = self.log.since(start)
        if ignore is None:
            made = [req for req in made if not req.method.lower().startswith("get")]
        else:
            skip = {name.lower() for name in ignore}
            made = [req for req in made if req.method.lower() not in skip]
        if made:
            raise AssertionError(
                f"expected no Bot API calls for {seconds}s, got: "
                + "; ".join(req.summary() for req in made)
            )

    def messages(self, chat_id: int) -> list[dict[str, Any]]:
        """Current messages of a chat as Message dicts (edits applied, deletions gone)."""
        return [self.world.message_dict(msg) for msg in self.world.chat_messages(chat_id)]

    def stored_message(self, chat_id: int, message_id: int) -> StoredMessage | None:
        """The stored message, including the original HTML the bot sent."""
        return self.world.message(chat_id, message_id)

    def last_bot_message(self, chat_id: int) -> dict[str, Any] | None:
        """The newest message the bot has in this chat, or None."""
        own = [m for m in self.world.chat_messages(chat_id) if m.sender_id == self.bot_id]
        return self.world.message_dict(own[-1]) if own else None

    @property
    def pending_updates(self) -> list[dict[str, Any]]:
        """Updates queued and not yet confirmed by a getUpdates offset."""
        return list(self.world.updates)

    def commands_for(self, chat_id: int, user_id: int) -> list[dict[str, str]]:
        """The command menu this user sees in this chat (Telegram's scope resolution)."""
        return self.world.visible_commands(chat_id, user_id)

    def subscribe(self) -> asyncio.Queue[dict[str, Any]]:
        """A queue of every later event: a dict whose ``type`` is message, edit, delete,
        answer, inline_answer or action."""
        return self.world.subscribe()

    def unsubscribe(self, queue: asyncio.Queue[dict[str, Any]]) -> None:
        """Stop feeding a queue from :meth:`subscribe`."""
        self.world.unsubscribe(queue)

    # ----- webhook delivery -------------------------------------------------------------

    @property
    def webhook_targets(self) -> list[str] | None:
        """Where webhook updates really go (round-robin), instead of the registered URL."""
        return self.webhook.targets

    @webhook_targets.setter
    def webhook_targets(self, targets: list[str] | None) -> None:
        self.webhook.targets = list(targets) if targets else None
        self.world.notifier.notify()

    def lose_webhook_answers(self, count: int = 1) -> None:
        """The webhook's next ``count`` answers are lost on their way back (a connection
        dropped, a timeout): the bot handled those updates, and Telegram sends them again."""
        self.webhook.lost_answers += count

    @property
    def webhook_deliveries(self) -> list[Delivery]:
        """Every webhook POST so far: update id, target, HTTP status or error, time."""
        return list(self.webhook.deliveries)

    # ----- fault injection ----------------------------------------------------------------

    def fail_next(
        self,
        method: str,
        description: str | None = None,
        error_code: int = 400,
        retry_after: int | None = None,
        count: int = 1,
    ) -> None:
        """Make the next ``count`` calls of ``method`` fail with this error.

        ``description`` should be Telegram's full text (``"Bad Request: ..."``); when
        omitted a fitting default is used. 429 without ``retry_after`` retries after 1 s.
        """
        self.faults.add(method, make_fault(description, error_code, retry_after), count)

    def hold_next(self, method: str) -> Hold:
        """Keep the next call of ``method`` waiting until ``release()``d.

        ``await hold.arrived.wait()`` tells when it came in; meanwhile later requests, from
        this bot process or another, go ahead of it, as they can on a real network.
        """
        return self.faults.hold(method)
