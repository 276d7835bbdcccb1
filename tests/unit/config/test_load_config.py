"""load_config: what each setting becomes, and every malformed one refused with its name."""

from __future__ import annotations

import pytest

from bot.config import DEFAULT_WEBHOOK_PORT, ConfigError, load_config

TOKEN = "123456:TEST-TOKEN-abcdefghijklmnopqrstuvwxyz"
SECRET = "s3cret_-token"


def env(**values: str) -> dict[str, str]:
    return {"TELEGRAM_BOT_TOKEN": TOKEN, **values}


@pytest.mark.parametrize(
    ("env", "error"),
    [
        ({"WEBAPP_URL": "http://2048.example.org", "PORT": "8080"}, "https://"),
        ({"WEBAPP_URL": "https://2048.example.org/?a=1", "PORT": "8080"}, "https://"),
        ({"WEBAPP_URL": "https://2048.example.org"}, "PORT"),
        ({"WEBAPP_MAX_AGE": "ten"}, "WEBAPP_MAX_AGE"),
    ],
)
def test_webapp_settings_are_checked(env, error):
    with pytest.raises(ConfigError, match=error):
        load_config({"TELEGRAM_BOT_TOKEN": "123456:" + "A" * 35, **env})


def test_webapp_settings():
    env = {"TELEGRAM_BOT_TOKEN": "123456:" + "A" * 35}
    assert load_config(env).webapp_url is None
    config = load_config(
        {**env, "WEBAPP_URL": "https://2048.example.org/", "WEBAPP_MAX_AGE": "3600", "PORT": "80"}
    )
    assert (config.webapp_url, config.webapp_max_age) == ("https://2048.example.org", 3600.0)


def test_webhook_settings_come_from_the_environment():
    config = load_config(
        env(
            WEBHOOK_URL="https://bot.example.org/telegram/hook",
            WEBHOOK_SECRET=SECRET,
            PORT="8080",
            DATABASE_URL="postgresql://bot:pw@db.internal:5432/bot",
        )
    )
    assert config.webhook is not None
    assert (config.webhook.port, config.webhook.listen) == (8080, "0.0.0.0")
    assert config.webhook.path == "telegram/hook" and config.webhook.secret == SECRET
    assert config.database_url == "postgresql://bot:pw@db.internal:5432/bot"


def test_the_postgresql_pool_has_a_connection_for_each_update_telegram_sends_at_once():
    hook = {"WEBHOOK_URL": "https://b.example/h", "WEBHOOK_SECRET": "a"}
    config = load_config(env(**hook, WEBHOOK_MAX_CONNECTIONS="60"))
    assert config.webhook is not None and config.webhook.max_connections == 60
    assert config.database_pool_size > 60
    assert load_config(env(**hook)).webhook.max_connections == 40  # Telegram's default
    hosts = load_config(env(DATABASE_URL="postgresql://u@[::1]:5432,db2:6432/b"))
    assert hosts.database_url == "postgresql://u@[::1]:5432,db2:6432/b"  # libpq's host list


def test_without_webhook_settings_the_bot_polls_with_sqlite():
    config = load_config(env())
    assert config.webhook is None and config.database_url is None
    assert str(config.database) == "bot2048.sqlite3"
    defaults = load_config(env(WEBHOOK_URL="https://x.example/", WEBHOOK_SECRET="a"))
    assert defaults.webhook is not None and defaults.webhook.port == DEFAULT_WEBHOOK_PORT


@pytest.mark.parametrize(
    ("settings", "webhook", "message"),
    [
        ({}, True, "WEBHOOK_URL is not set"),
        ({"WEBHOOK_URL": "http://bot.example/hook", "WEBHOOK_SECRET": "a"}, False, "https://"),
        ({"WEBHOOK_URL": "https://bot.example/hook"}, False, "WEBHOOK_SECRET is not set"),
        (
            {"WEBHOOK_URL": "https://bot.example/hook", "WEBHOOK_SECRET": "no spaces"},
            False,
            "WEBHOOK_SECRET must be",
        ),
        (
            {"WEBHOOK_URL": "https://bot.example/hook", "WEBHOOK_SECRET": "a" * 257},
            False,
            "WEBHOOK_SECRET must be",
        ),
        (
            {"WEBHOOK_URL": "https://bot.example/h", "WEBHOOK_SECRET": "a", "PORT": "99999"},
            False,
            "PORT must be",
        ),
        ({"DATABASE_URL": "mysql://db/bot"}, False, "DATABASE_URL must be a PostgreSQL URL"),
        ({"DATABASE_URL": "postgresql://bot@db:port/bot"}, False, "DATABASE_URL has a port"),
        ({"DATABASE_URL": "postgresql://db:5432,db2:x/b"}, False, "DATABASE_URL has a port"),
        (
            {
                "WEBHOOK_URL": "https://b.example/h",
                "WEBHOOK_SECRET": "a",
                "WEBHOOK_MAX_CONNECTIONS": "0",
            },
            False,
            "WEBHOOK_MAX_CONNECTIONS must be",
        ),
        ({"TELEGRAM_RETRY_MAX_SECONDS": "soon"}, False, "TELEGRAM_RETRY_MAX_SECONDS must be"),
    ],
)
def test_malformed_settings_are_refused(settings, webhook, message):
    with pytest.raises(ConfigError, match=message):
        load_config(env(**settings), webhook=webhook)


@pytest.mark.parametrize(
    ("settings", "served", "local"),
    [
        ({"PORT": "8080"}, True, False),
        ({"PORT": "8080", "WEBAPP_URL": "https://2048.example.org"}, True, True),
        ({"WEBHOOK_URL": "https://bot.example/hook", "WEBHOOK_SECRET": SECRET}, True, True),
        ({"PORT": "8080", "WEBAPP_URL": "https://2048.example.org", "METRICS": "on"}, True, False),
        ({"PORT": "8080", "METRICS": "local"}, True, True),
        (
            {"WEBHOOK_URL": "https://bot.example/hook", "WEBHOOK_SECRET": SECRET, "METRICS": "off"},
            False,
            False,
        ),
    ],
)
def test_metrics_stay_on_this_machine_by_default_once_the_web_server_is_public(
    settings, served, local
):
    config = load_config(env(**settings))
    assert (config.metrics, config.metrics_local, config.metrics_address) == (served, local, None)
