"""The HTTP face of the emulator: Telegram's ``/bot<token>/<method>`` routes on aiohttp.

It reproduces the transport details clients depend on: any HTTP verb, parameters from
the query string, urlencoded/multipart forms or JSON bodies, case-insensitive method
names, 401 for a wrong token, 404 for unknown methods, and the HTTP status equal to
``error_code`` so python-telegram-bot raises the same exception classes as in production.
"""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import Callable, Mapping
from typing import Any

from aiohttp import web

from .errors import ApiError, bad_request
from .faults import Faults
from .flood import FloodControl
from .log import RequestLog
from .media import Upload
from .methods import BotApiMethods
from .params import normalize

_FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")


async def read_params(request: web.Request) -> dict[str, Any]:
    """Collect parameters from the query string and whatever body encoding was used."""
    params: dict[str, Any] = dict(request.query)
    if not request.can_read_body:
        return params
    content_type = request.content_type
    if content_type == "application/json":
        raw = await request.text()
        if raw.strip():
            try:
                body = await request.json()
            except ValueError:
                raise bad_request("can't parse JSON encoded request parameters") from None
            if not isinstance(body, dict):
                raise bad_request("JSON request body must be an object")
            params.update(body)
    elif content_type in _FORM_TYPES:
        form = await request.post()
        for key, value in form.items():
            if isinstance(value, web.FileField):
                params[key] = Upload(value.filename, value.content_type, value.file.read())
            else:
                params[key] = value
    return params


def _delay_for(delays: Mapping[str, float], method: str) -> float:
    lowered = method.lower()
    return sum(seconds for name, seconds in delays.items() if name.lower() == lowered)


class BotApiServer:
    """aiohttp application serving one bot token."""

    def __init__(
        self,
        token: str,
        methods: BotApiMethods,
        log: RequestLog,
        faults: Faults,
        flood: FloodControl,
        delays: dict[str, float],
    ) -> None:
        self.token = token
        self.methods = methods
        self.log = log
        self.faults = faults
        self.flood = flood
        self.delays = delays
        # Extra route set-ups (the browser playground's page and JSON API), applied by make_app.
        self.app_setups: list[Callable[[web.Application], None]] = []
        self._runner: web.AppRunner | None = None
        self.host = ""
        self.port = 0

    def make_app(self) -> web.Application:
        """The routes: Bot API calls, and any mounted extras."""
        app = web.Application()
        app.router.add_route("*", "/bot{token}/{method}", self.handle_method)
        for setup in self.app_setups:
            setup(app)
        return app

    async def start(self, host: str, port: int, sock: socket.socket | None = None) -> None:
        """Bind and serve, or serve on ``sock`` if given (bound already); ``port=0`` picks a
        free port (read it from ``self.port``)."""
        runner = web.AppRunner(
            self.make_app(), access_log=None, handle_signals=False, shutdown_timeout=1.0
        )
        await runner.setup()
        site = web.TCPSite(runner, host, port) if sock is None else web.SockSite(runner, sock)
        await site.start()
        self._runner = runner
        self.host = host
        self.port = int(runner.addresses[0][1])

    async def stop(self) -> None:
        """Release long polls, then close the listener and open connections."""
        self.methods.stop_polls()
        await asyncio.sleep(0)
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def handle_method(self, request: web.Request) -> web.Response:
        """Decode, authorize, delay/fault, flood control, dispatch, record, answer."""
        requested = request.match_info["method"]
        method = self.methods.canonical(requested) or requested
        params: dict[str, Any] = {}
        try:
            try:
                raw = await read_params(request)
            except ConnectionResetError:
                # The caller went away mid-request (a killed bot): as at Telegram, the call is
                # dropped unanswered, and nothing is wrong on this side.
                raise web.HTTPBadRequest(text="connection lost") from None
            params = raw
            if request.match_info["token"] != self.token:
                raise ApiError(401, "Unauthorized")
            if self.methods.canonical(requested) is None:
                raise ApiError(404, "Not Found")
            params = normalize(raw)
            delay = _delay_for(self.delays, method)
            if delay > 0:
                await asyncio.sleep(delay)
            held = self.faults.take_hold(method)
            if held is not None:
                await held.wait()
            fault = self.faults.take(method)
            if fault is not None:
                raise fault
            self.flood.admit(method, params)
            result = await self.methods.call(method, params)
        except ApiError as error:
            self.log.record(
                method,
                params,
                ok=False,
                result=None,
                error_code=error.error_code,
                description=error.description,
                time=time.time(),
            )
            return web.json_response(error.to_json(), status=error.error_code)
        self.log.record(
            method,
            params,
            ok=True,
            result=result,
            error_code=None,
            description=None,
            time=time.time(),
        )
        return web.json_response({"ok": True, "result": result})
