"""load_config: what each setting becomes, and every malformed one refused with its name."""

from __future__ import annotations

import pytest

from bot.config import DEFAULT_WEBHOOK_PORT, ConfigError, load_config

TOKEN = "123456:TEST-TOKEN-abcdefghijklmnopqrstuvwxyz"
SECRET = "s3cret_-token"


def env(**values: str) -> dict[str, str]:
    return {"TELEGRAM_BOT_TOKEN": TOKEN, **values}


NO_HTTPS_WEBAPP = (
    "WEBAPP_URL is not a public https:// address without ?query or #fragment: Telegram opens "
    "Mini Apps over HTTPS only; set one, such as https://2048.example.com."
)


@pytest.mark.parametrize(
    ("env", "error"),
    [
        ({"WEBAPP_URL": "http://2048.example.org", "PORT": "8080"}, NO_HTTPS_WEBAPP),
        ({"WEBAPP_URL": "https://2048.example.org/?a=1", "PORT": "8080"}, NO_HTTPS_WEBAPP),
        (
            {"WEBAPP_URL": "https://2048.example.org"},
            "WEBAPP_URL is set but PORT is not: when polling, the bot's web server (which serves "
            "the Mini App) runs only if PORT is set; set PORT, such as PORT=8443, or unset "
            "WEBAPP_URL.",
        ),
        (
            {"WEBAPP_MAX_AGE": "ten"},
            "WEBAPP_MAX_AGE is not a number of seconds from 60 to 604800: set one, or unset it "
            "for 86400.",
        ),
    ],
)
def test_webapp_settings_are_checked(env, error):
    with pytest.raises(ConfigError) as refused:
        load_config({"TELEGRAM_BOT_TOKEN": "123456:" + "A" * 35, **env})
    assert str(refused.value) == error


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


HOOK = {"WEBHOOK_URL": "https://bot.example/hook", "WEBHOOK_SECRET": "a"}
BAD_SECRET = (
    "WEBHOOK_SECRET is not 1-256 characters of A-Z, a-z, 0-9, _ and -, the only ones Telegram "
    "takes: set one, such as the output of openssl rand -hex 32."
)


# Each refusal is the one line the operator reads: what is wrong, and what to do about it.
@pytest.mark.parametrize(
    ("settings", "webhook", "message"),
    [
        (
            {"TELEGRAM_BOT_TOKEN": ""},
            False,
            "TELEGRAM_BOT_TOKEN is not set: get a token from @BotFather and set it (or try "
            "bot2048 --playground, which needs none).",
        ),
        (
            {"TELEGRAM_BOT_TOKEN": "123456:short"},
            False,
            "TELEGRAM_BOT_TOKEN does not look like a bot token (123456789:AbC...): copy it "
            "again, whole, from @BotFather.",
        ),
        (
            {"TELEGRAM_BASE_URL": "api.example/bot"},
            False,
            "TELEGRAM_BASE_URL does not start with http:// or https://: set your Bot API "
            "server's address, such as http://127.0.0.1:8081/bot, or unset it for Telegram's.",
        ),
        (
            {"TELEGRAM_RETRY_MAX_SECONDS": "soon"},
            False,
            "TELEGRAM_RETRY_MAX_SECONDS is not a number of seconds from 1 to 3600: set one, or "
            "unset it for 30.",
        ),
        (
            {},
            True,
            "WEBHOOK_URL is not set: webhook mode needs the public https:// URL Telegram posts "
            "updates to; set it, or leave out --webhook to poll.",
        ),
        (
            {**HOOK, "WEBHOOK_URL": "http://bot.example/hook"},
            False,
            "WEBHOOK_URL is not a public https:// URL: Telegram posts updates over HTTPS only; "
            "set one, such as https://2048.example.com/telegram.",
        ),
        (
            {"WEBHOOK_URL": "https://bot.example/hook"},
            False,
            "WEBHOOK_SECRET is not set: webhook mode needs one; set it to 1-256 characters of "
            "A-Z, a-z, 0-9, _ and -, such as the output of openssl rand -hex 32.",
        ),
        ({**HOOK, "WEBHOOK_SECRET": "no spaces"}, False, BAD_SECRET),
        ({**HOOK, "WEBHOOK_SECRET": "a" * 257}, False, BAD_SECRET),
        (
            {**HOOK, "WEBHOOK_MAX_CONNECTIONS": "0"},
            False,
            "WEBHOOK_MAX_CONNECTIONS is not a number from 1 to 100: set one, or unset it for 40.",
        ),
        (
            {**HOOK, "PORT": "99999"},
            False,
            "PORT is not a port number from 1 to 65535: set one, or unset it.",
        ),
        (
            {"DATABASE_URL": "mysql://db/bot"},
            False,
            "DATABASE_URL is not a PostgreSQL URL: write it as "
            "postgresql://user:password@host:5432/db, or unset it to use the SQLite file in "
            "BOT_DATABASE.",
        ),
        (
            {"DATABASE_URL": "postgresql://bot@db:port/bot"},
            False,
            "DATABASE_URL has a port that is not a number from 1 to 65535 ('port'): fix the "
            "port after the host.",
        ),
        (
            {"DATABASE_URL": "postgresql://db:5432,db2:x/b"},
            False,
            "DATABASE_URL has a port that is not a number from 1 to 65535 ('x'): fix the port "
            "after the host.",
        ),
        (
            {"METRICS": "loud"},
            False,
            "METRICS is not on, local, off or a host:port: set one of them, such as "
            "METRICS=127.0.0.1:9108, or unset it.",
        ),
        (
            {"LOG_LEVEL": "LOUD"},
            False,
            "LOG_LEVEL is not DEBUG, INFO, WARNING, ERROR or CRITICAL: set one of them, or unset "
            "it for INFO.",
        ),
    ],
)
def test_malformed_settings_are_refused(settings, webhook, message):
    with pytest.raises(ConfigError) as refused:
        load_config(env(**settings), webhook=webhook)
    assert str(refused.value) == message


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
