"""Every route set the bot's web server serves, in one list: a new one is one line here."""

from __future__ import annotations

from telegram.ext import Application

from bot.config import Config
from bot.web.health import health_routes
from bot.web.metrics import metrics_routes
from bot.web.miniapp.api import webapp_routes
from bot.web.server import RouteSet
from bot.web.webhook import webhook_routes


def route_sets(config: Config, application: Application) -> list[RouteSet]:
    """The routes for this configuration; called once the services have started.

    A route set that needs the services reads `application.bot_data.services` when a
    request comes (they are set by then), and calls them, never a Telegram handler.
    """
    routes: list[RouteSet] = [health_routes(application)]
    if config.metrics and config.metrics_address is None:
        routes.append(metrics_routes)
    if config.webhook is not None:
        routes.append(webhook_routes(config.webhook.path, config.webhook.secret, application))
    webapp = application.bot_data.webapp
    if config.webapp_url is not None and webapp is not None:
        routes.append(webapp_routes(lambda: webapp))
    return routes
