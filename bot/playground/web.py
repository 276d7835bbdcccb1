"""The playground's web side: the page, its JSON API and a live event stream.

Mounted on the emulator's own aiohttp app, so one port serves the Bot API (for the bot)
and the page (for people). The page is a Telegram client in miniature: it acts through the
emulator's driver methods (``send_text``, ``tap``) exactly as the end-to-end tests do, and
reads back Telegram ``Message`` objects in wire format (text plus entities).

API (JSON in and out; writes must be ``Content-Type: application/json``)::

    GET  /api/state                                   bot, players and each player's chats
    PUT  /api/players/{user_id}                       {"first_name", "language_code"}
    GET  /api/chats/{chat_id}/messages?user_id=N      {"messages": [Message, ...]}
    POST /api/chats/{chat_id}/messages                {"user_id", "text"} -> {"message"}
    POST /api/chats/{chat_id}/messages/{id}/tap       {"user_id", "data"} -> {"query_id", "answer"}
    GET  /api/chats/{chat_id}/commands?user_id=N      {"commands": [{"command", "description"}]}
    POST /api/chats/{chat_id}/inline                  {"user_id", "query"} -> {"query_id", "answer"}
    POST /api/inline/{query_id}/choose                {"user_id", "result_id"} -> {"message"}
    GET  /api/files/{file_id}                         a photo or animation the bot sent
    GET  /api/events                                  server-sent events: message, edit,
                                                      delete, answer, action, player
    GET  /api/webapp?user_id=N&url=U&theme=T          {"url"}: the Mini App page U as a
                                                      Telegram client opens it for N
                                                      (launch parameters, signed initData)

A Swipe button opens the bot's Mini App (served on this port too) in a phone-sized frame; a
service worker (static/telegram-sw.js, at /telegram-sw.js) answers its request for
Telegram's script with the emulator's stand-in (at /telegram-web-app.js).
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from aiohttp import web

from bot.emulator import FakeBotApi
from bot.emulator.html import utf16_len
from bot.emulator.webapp import DARK_THEME, LIGHT_THEME, STAND_IN, launch_url

STATIC = Path(__file__).parent / "static"
# Only these files are served: no directory listing, no path tricks. The page's script is
# app.js and the ES modules it imports, one role each.
_MODULES = (
    "actions",
    "app",
    "chats",
    "dom",
    "entities",
    "events",
    "inline",
    "links",
    "menu",
    "messages",
    "miniapp",
    "server",
    "state",
)
_FILES = {
    "index.html": "text/html",
    "style.css": "text/css",
    "telegram-sw.js": "text/javascript",
    **{f"{name}.js": "text/javascript" for name in _MODULES},
}
MAX_TEXT = 4096
MAX_NAME = 64
# How long a tap waits for answerCallbackQuery; Telegram clients give up after about 15 s.
ANSWER_TIMEOUT = 15.0
KEEPALIVE_SECONDS = 15.0
_LANGUAGE = re.compile(r"[a-z]{2,3}(-[A-Za-z0-9]{1,8})*")
_CLOSE: dict[str, Any] = {"type": "_close"}
_LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1", "[::1]"})
# The page loads nothing but its own files and talks to nothing but its own server.
_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
    "img-src 'self' data:; media-src 'self'; base-uri 'none'; form-action 'none'; "
    "frame-src 'self'; worker-src 'self'; frame-ancestors 'none'"
)
THEMES = {"light": LIGHT_THEME, "dark": DARK_THEME}


class PlaygroundWeb:
    """Routes for one emulator; :meth:`setup` is what ``FakeBotApi.mount`` calls."""

    def __init__(self, api: FakeBotApi) -> None:
        missing = [name for name in _FILES if not (STATIC / name).is_file()]
        if missing:
            raise RuntimeError(f"playground files missing from {STATIC}: {', '.join(missing)}")
        self.api = api
        self._streams: set[asyncio.Queue[dict[str, Any]]] = set()

    def setup(self, app: web.Application) -> None:
        app.middlewares.append(self._loopback_names_only)
        app.router.add_get("/", self.index)
        app.router.add_get("/static/{name}", self.static)
        app.router.add_get("/api/state", self.state)
        app.router.add_put(r"/api/players/{user_id:\d+}", self.edit_player)
        chat = r"/api/chats/{chat_id:-?\d+}"
        app.router.add_get(chat + "/messages", self.messages)
        app.router.add_post(chat + "/messages", self.send)
        app.router.add_post(chat + r"/messages/{message_id:\d+}/tap", self.tap)
        app.router.add_get(chat + "/commands", self.commands)
        app.router.add_post(chat + "/inline", self.inline_query)
        app.router.add_post(r"/api/inline/{query_id:\d+}/choose", self.choose_inline)
        app.router.add_get(r"/api/files/{file_id:[A-Za-z0-9_-]{1,128}}", self.file)
        app.router.add_get("/api/events", self.events)
        app.router.add_get("/api/webapp", self.webapp)
        app.router.add_get("/telegram-sw.js", self.service_worker)
        app.router.add_get("/telegram-web-app.js", self.telegram_script)
        app.on_shutdown.append(self._close_streams)

    @web.middleware
    async def _loopback_names_only(
        self, request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        """On a loopback address, answer the page's routes only under loopback names.

        Another web site could otherwise point its own host name at 127.0.0.1 (DNS
        rebinding) and use the page's API as if it were the page. The Bot API routes are
        left alone: the bot, like Telegram's clients, may use any name.
        """
        transport = request.transport
        sockname = transport.get_extra_info("sockname") if transport is not None else None
        on_loopback = bool(sockname) and str(sockname[0]) in _LOOPBACK
        playground_route = not request.path.startswith("/bot")
        if on_loopback and playground_route and (request.url.host or "") not in _LOOPBACK:
            raise _error(403, "the playground answers on localhost and 127.0.0.1 only")
        return await handler(request)

    # ----- the page ---------------------------------------------------------------------

    async def index(self, request: web.Request) -> web.StreamResponse:
        return self._file("index.html")

    async def static(self, request: web.Request) -> web.StreamResponse:
        name = request.match_info["name"]
        if name not in _FILES or name == "index.html":
            raise web.HTTPNotFound()
        return self._file(name)

    def _file(self, name: str) -> web.Response:
        return web.Response(
            body=(STATIC / name).read_bytes(),
            content_type=_FILES[name],
            charset="utf-8",
            headers={
                "Cache-Control": "no-cache",
                "X-Content-Type-Options": "nosniff",
                "Content-Security-Policy": _CSP,
                "Referrer-Policy": "no-referrer",
            },
        )

    async def service_worker(self, request: web.Request) -> web.StreamResponse:
        response = self._file("telegram-sw.js")
        response.headers["Service-Worker-Allowed"] = "/"
        return response

    async def telegram_script(self, request: web.Request) -> web.StreamResponse:
        return web.FileResponse(STAND_IN, headers={"Content-Type": "text/javascript"})

    async def webapp(self, request: web.Request) -> web.Response:
        """The address a Telegram client opens for a web_app button, signed for the player."""
        user_id = _int_or_400(request.query.get("user_id"), "user_id")
        if user_id not in self.api.world.users:
            raise _error(404, "no such player")
        url = request.query.get("url", "")
        if not url.startswith(f"{request.scheme}://{request.host}/"):
            raise _error(400, "the playground opens Mini Apps on this server only")
        theme = THEMES.get(request.query.get("theme", "light"), LIGHT_THEME)
        user = self.api.world.users[user_id]
        return web.json_response({"url": launch_url(url, self.api.token, user, theme)})

    # ----- reading ----------------------------------------------------------------------

    def _player(self, user_id: int) -> dict[str, Any]:
        user = self.api.world.users[user_id]
        return {
            "id": user_id,
            "first_name": user["first_name"],
            "language_code": user.get("language_code"),
            "chats": self._chats_of(user_id),
        }

    def _chats_of(self, user_id: int) -> list[dict[str, Any]]:
        """The player's private chat with the bot, then the groups they are in."""
        world = self.api.world
        chats: list[dict[str, Any]] = [
            {"id": user_id, "type": "private", "title": world.bot_user()["first_name"]}
        ]
        for chat in world.chats.values():
            if chat.type != "private" and user_id in chat.members:
                chats.append(
                    {
                        "id": chat.id,
                        "type": chat.type,
                        "title": chat.title,
                        "members": len(chat.members | {world.bot_id}),
                        "admins": sorted(chat.admins - {world.bot_id}),
                    }
                )
        return chats

    async def state(self, request: web.Request) -> web.Response:
        bot = self.api.world.bot_user()
        return web.json_response(
            {
                "bot": {k: bot[k] for k in ("id", "first_name", "username")},
                "players": [self._player(uid) for uid in sorted(self.api.world.users)],
            }
        )

    def _user_in_chat(self, request: web.Request, user_id: Any) -> tuple[int, int]:
        """The (user id, chat id) of a request, if that user may see that chat."""
        chat_id = int(request.match_info["chat_id"])
        if not isinstance(user_id, int) or isinstance(user_id, bool):
            user_id = _int_or_400(user_id, "user_id")
        world = self.api.world
        if user_id not in world.users:
            raise _error(400, f"unknown player {user_id}")
        chat = world.chats.get(chat_id)
        if chat is None:
            raise _error(404, f"unknown chat {chat_id}")
        allowed = chat.user_id == user_id if chat.type == "private" else user_id in chat.members
        if not allowed:
            raise _error(403, f"player {user_id} is not in chat {chat_id}")
        return user_id, chat_id

    async def messages(self, request: web.Request) -> web.Response:
        _, chat_id = self._user_in_chat(request, request.query.get("user_id"))
        return web.json_response({"messages": self.api.messages(chat_id)})

    async def commands(self, request: web.Request) -> web.Response:
        user_id, chat_id = self._user_in_chat(request, request.query.get("user_id"))
        return web.json_response({"commands": self.api.commands_for(chat_id, user_id)})

    # ----- acting -----------------------------------------------------------------------

    async def send(self, request: web.Request) -> web.Response:
        body = await _json_body(request)
        user_id, chat_id = self._user_in_chat(request, body.get("user_id"))
        text = body.get("text")
        if not isinstance(text, str) or not text.strip():
            raise _error(400, "text must be a non-empty string")
        text = text.strip()
        if utf16_len(text) > MAX_TEXT:
            raise _error(400, f"text is longer than {MAX_TEXT} characters")
        try:
            message = self.api.send_text(user_id, chat_id, text)
        except ValueError as error:
            raise _error(400, str(error)) from None
        return web.json_response({"message": message})

    async def tap(self, request: web.Request) -> web.Response:
        """Press a callback button and wait (like a client's spinner) for the answer."""
        body = await _json_body(request)
        user_id, chat_id = self._user_in_chat(request, body.get("user_id"))
        data = body.get("data")
        if not isinstance(data, str):
            raise _error(400, "data must be a string")
        message_id = int(request.match_info["message_id"])
        try:
            query_id = self.api.tap(user_id, chat_id, message_id, data)
        except ValueError as error:
            raise _error(400, str(error)) from None
        try:
            answer = await self.api.wait_answer(query_id, timeout=ANSWER_TIMEOUT)
        except TimeoutError:
            answer = None
        return web.json_response({"query_id": query_id, "answer": answer})

    async def inline_query(self, request: web.Request) -> web.Response:
        """Type ``@bot query`` in a chat and wait (like a client's spinner) for the results."""
        body = await _json_body(request)
        user_id, chat_id = self._user_in_chat(request, body.get("user_id"))
        query = body.get("query")
        if not isinstance(query, str) or len(query) > 256:
            raise _error(400, "query must be a string of at most 256 characters")
        try:
            query_id = self.api.inline_query(user_id, chat_id, query)
        except ValueError as error:
            raise _error(400, str(error)) from None
        try:
            answer = await self.api.wait_inline_answer(query_id, timeout=ANSWER_TIMEOUT)
        except TimeoutError:
            answer = None
        return web.json_response({"query_id": query_id, "answer": answer})

    async def choose_inline(self, request: web.Request) -> web.Response:
        body = await _json_body(request)
        query = self.api.world.inline_queries.get(request.match_info["query_id"])
        if query is None or body.get("user_id") != query.user_id:
            raise _error(404, "no such inline query of this player")
        result_id = body.get("result_id")
        if not isinstance(result_id, str):
            raise _error(400, "result_id must be a string")
        try:
            message = self.api.choose_inline_result(query.id, result_id)
        except ValueError as error:
            raise _error(400, str(error)) from None
        return web.json_response({"message": message})

    async def file(self, request: web.Request) -> web.Response:
        stored = self.api.world.files.by_id.get(request.match_info["file_id"])
        if stored is None:
            raise _error(404, "no such file")
        return web.Response(
            body=stored.data,
            content_type=stored.mime_type,
            headers={"Cache-Control": "max-age=3600", "X-Content-Type-Options": "nosniff"},
        )

    async def edit_player(self, request: web.Request) -> web.Response:
        body = await _json_body(request)
        user_id = int(request.match_info["user_id"])
        world = self.api.world
        if user_id not in world.users:
            raise _error(404, f"unknown player {user_id}")
        name = body.get("first_name")
        if not isinstance(name, str) or not name.strip() or len(name.strip()) > MAX_NAME:
            raise _error(400, f"first_name must be 1 to {MAX_NAME} characters")
        language = body.get("language_code")
        if language in (None, ""):
            language = None
        elif not isinstance(language, str) or not _LANGUAGE.fullmatch(language):
            raise _error(400, "language_code must look like en, nl, de or pt-br (or be empty)")
        self.api.add_user(user_id, name.strip(), language_code=language)
        player = self._player(user_id)
        world.emit({"type": "player", "player": player})
        return web.json_response({"player": player})

    # ----- live updates -----------------------------------------------------------------

    async def events(self, request: web.Request) -> web.StreamResponse:
        """Server-sent events from ``FakeBotApi.subscribe()``, one JSON object each."""
        response = web.StreamResponse(
            headers={
                "Content-Type": "text/event-stream; charset=utf-8",
                "Cache-Control": "no-cache",
                "X-Accel-Buffering": "no",
            }
        )
        # Subscribe before the headers go out: whatever the page does once connected is seen.
        queue = self.api.subscribe()
        self._streams.add(queue)
        try:
            await response.prepare(request)
            await response.write(b"retry: 1000\n\n")
            while True:
                try:
                    event = await asyncio.wait_for(queue.get(), KEEPALIVE_SECONDS)
                except TimeoutError:
                    await response.write(b": keep-alive\n\n")
                    continue
                if event is _CLOSE:
                    break
                data = json.dumps(event, ensure_ascii=False, separators=(",", ":"))
                await response.write(f"event: {event['type']}\ndata: {data}\n\n".encode())
        except ConnectionError:
            pass  # the page went away
        finally:
            self.api.unsubscribe(queue)
            self._streams.discard(queue)
        return response

    async def _close_streams(self, app: web.Application) -> None:
        for queue in list(self._streams):
            queue.put_nowait(_CLOSE)


def _error(status: int, message: str) -> web.HTTPException:
    """An HTTP error with a JSON body ``{"error": message}``."""
    classes: dict[int, type[web.HTTPException]] = {
        400: web.HTTPBadRequest,
        403: web.HTTPForbidden,
        404: web.HTTPNotFound,
        415: web.HTTPUnsupportedMediaType,
    }
    return classes[status](
        text=json.dumps({"error": message}, ensure_ascii=False), content_type="application/json"
    )


def _int_or_400(value: Any, name: str) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        raise _error(400, f"{name} must be an integer") from None


async def _json_body(request: web.Request) -> dict[str, Any]:
    """A JSON object body. Requiring the JSON content type keeps other sites' plain form
    posts out: a cross-origin JSON request needs a CORS preflight, which is never granted.
    """
    if request.content_type != "application/json":
        raise _error(415, "send application/json")
    try:
        body = await request.json()
    except ValueError:
        raise _error(400, "the body is not valid JSON") from None
    if not isinstance(body, dict):
        raise _error(400, "the body must be a JSON object")
    return body
