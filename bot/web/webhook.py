"""Telegram's webhook as a route: the secret first, then a small body, then the update.

The secret header is checked before a byte of the body is read, so a peer without it costs
a header parse and nothing else; with it, the connection is Telegram's, the last the server
closes to make room (bot/web/server.py). Telegram's updates are small: a body beyond
`MAX_UPDATE_BYTES`, or one that trickles in slower than `BODY_TIMEOUT`, is refused.

The request is answered only once its update has been handled: the Application's update
queue (bot/transport/webhook.py) returns from `put` then. Telegram sends a chat's next update
only after that answer, which keeps each chat's order across several processes.
"""

from __future__ import annotations

import hmac
import json
import logging

from aiohttp import web
from telegram import Update
from telegram.ext import Application

from bot.web.server import BodyRefused, RouteSet, read_body, refusal, verified

log = logging.getLogger(__name__)
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
# The largest update (a long message quoting another, with its entities) is a few tens of KB.
MAX_UPDATE_BYTES = 256 * 1024
# Seconds the whole body may take to arrive once its headers have.
BODY_TIMEOUT = 10.0


def webhook_routes(path: str, secret: str, application: Application) -> RouteSet:
    """POST /`path`: the updates Telegram sends, checked against `secret`."""
    expected = secret.encode()

    async def receive(request: web.Request) -> web.Response:
        given = request.headers.get(SECRET_HEADER, "").encode()
        if not hmac.compare_digest(given, expected):
            log.warning("refused a webhook request without the right secret")
            return refusal(403, "forbidden")
        verified(request)
        try:
            body = await read_body(request, MAX_UPDATE_BYTES, BODY_TIMEOUT)
        except BodyRefused as refused:
            log.warning("refused a webhook request: %s", refused)
            return refused.response
        try:
            update = Update.de_json(json.loads(body), application.bot)
        except (ValueError, TypeError, KeyError, AttributeError) as error:
            log.warning("refused a webhook request that is no update: %s", error)
            return refusal(400, "not an update")
        await application.update_queue.put(update)  # returns once the update is handled
        return web.Response()

    def register(app: web.Application) -> None:
        app.router.add_post("/" + path.strip("/"), receive)

    return register
