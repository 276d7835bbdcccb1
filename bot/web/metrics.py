"""GET /metrics: the bot's Prometheus metrics (bot/metrics.py) and the process's own."""

from __future__ import annotations

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest


async def _metrics(_: web.Request) -> web.Response:
    response = web.Response(body=generate_latest())
    response.headers["Content-Type"] = CONTENT_TYPE_LATEST
    return response


def metrics_routes(app: web.Application) -> None:
    """A route set (bot/web/server.py's RouteSet)."""
    app.router.add_get("/metrics", _metrics)
