"""Every route set the bot's web server serves, in one list: a new one is one line here."""

from __future__ import annotations

from telegram.ext import Application

from bot.config import Config
from bot.web.health import Health, health_routes, serving_gate
from bot.web.metrics import metrics_routes
from bot.web.miniapp.api import MiniApp, miniapp_routes
from bot.web.server import RouteSet
from bot.web.webhook import webhook_routes


def opening_routes(config: Config, health: Health) -> list[RouteSet]:
    """What the web server serves while the process opens its database, before anything
    else exists: /healthz and /metrics (if served here), every other path 503."""
    routes: list[RouteSet] = [serving_gate(health), health_routes(health)]
    if config.metrics and config.metrics_address is None:
        routes.append(metrics_routes(local_only=config.metrics_local))
    return routes


def route_sets(
    config: Config, application: Application, miniapp: MiniApp, health: Health
) -> list[RouteSet]:
    """The routes for this configuration, each calling the runtime's services when a request
    comes, never a Telegram handler."""
    routes = opening_routes(config, health)
    if config.webhook is not None:
        routes.append(webhook_routes(config.webhook.path, config.webhook.secret, application))
    if config.webapp_url is not None:
        routes.append(miniapp_routes(miniapp))
    return routes
