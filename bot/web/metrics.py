"""GET /metrics: the bot's Prometheus metrics (bot/metrics.py) and the process's own.

They say how busy the bot is and what it runs on, which is nobody's business outside: with a
public address (a webhook or a Mini App) they are served by default to this machine alone,
a peer on a loopback address whose request no proxy forwarded (docs/operating.md says how
to expose them).
"""

from __future__ import annotations

import ipaddress

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from bot.web.server import RouteSet, refusal

METRICS_PATH = "/metrics"
# Headers a proxy adds to a request it passes on: the request came from elsewhere.
_FORWARDED = ("Forwarded", "X-Forwarded-For", "X-Real-IP")


async def _metrics(_: web.Request) -> web.Response:
    response = web.Response(body=generate_latest())
    response.headers["Content-Type"] = CONTENT_TYPE_LATEST
    return response


def _from_this_machine(request: web.Request) -> bool:
    try:
        loopback = ipaddress.ip_address(request.remote or "").is_loopback
    except ValueError:
        return False
    return loopback and not any(header in request.headers for header in _FORWARDED)


async def _local_metrics(request: web.Request) -> web.Response:
    if not _from_this_machine(request):
        return refusal(403, "/metrics is served to this machine only (METRICS)")
    return await _metrics(request)


def metrics_routes(*, local_only: bool = False) -> RouteSet:
    """GET /metrics, to anyone or (`local_only`) to this machine's own peers alone."""

    def register(app: web.Application) -> None:
        app.router.add_get(METRICS_PATH, _local_metrics if local_only else _metrics)

    return register
