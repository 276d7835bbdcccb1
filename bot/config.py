"""Configuration from the environment, checked before anything starts."""

from __future__ import annotations

import re
import textwrap
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

# The languages the bot speaks; the default one also answers everyone else.
LANGUAGES = ("en", "nl", "de")
DEFAULT_LANGUAGE = "en"
# initData older than this is refused unless the operator sets another age (WEBAPP_MAX_AGE).
DEFAULT_INITDATA_MAX_AGE = 24 * 3600.0
# Where the Mini App's page is, under the bot's web server (and so under WEBAPP_URL).
MINIAPP_PATH = "/app"
TOKEN_PATTERN = re.compile(r"\d{1,20}:[A-Za-z0-9_-]{30,100}")
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
# Telegram's rule for setWebhook's secret_token.
SECRET_PATTERN = re.compile(r"[A-Za-z0-9_-]{1,256}")


@dataclass(frozen=True, slots=True)
class Pace:
    """A chat's budget: `burst` at once, then `private_per_second` or `group_per_minute`.

    After a 429 the chat goes at half its pace (at most `slowest` of it after repeated ones)
    with no burst; each `recovery` seconds without another 429 doubles it back.
    """

    burst: float = 5.0
    private_per_second: float = 1.0
    group_per_minute: float = 20.0
    recovery: float = 300.0
    slowest: float = 1 / 8

    def per_second(self, chat_id: int) -> float:
        """Private chats (positive ids) have their own pace; groups and channels share one."""
        return self.private_per_second if chat_id > 0 else self.group_per_minute / 60


TELEGRAM_PACE = Pace()


@dataclass(frozen=True, slots=True)
class Setting:
    """One environment variable: its default as an operator would write it ("" for unset),
    what it does, in a line, and a value an operator might give it; a `required` one has no
    default and the bot does not start without it. `bot2048 --help` and docs/operating.md
    list them, by the part of the bot they set (`group`)."""

    group: str
    name: str
    default: str
    meaning: str
    example: str
    required: bool = False


TELEGRAM, STORAGE, WEB, LOGGING = "Telegram", "storage", "web server and Mini App", "logging"
# Every setting the bot reads, in the order `--help` lists them, group by group; the loaders
# below take each default from here.
SETTINGS = (
    Setting(
        TELEGRAM,
        "TELEGRAM_BOT_TOKEN",
        "",
        "the bot's token from @BotFather",
        "123456789:AAH-your-token-from-BotFather",
        required=True,
    ),
    Setting(
        TELEGRAM,
        "TELEGRAM_BASE_URL",
        "https://api.telegram.org/bot",
        "the Bot API endpoint, for a Bot API server of your own",
        "http://127.0.0.1:8081/bot",
    ),
    Setting(
        TELEGRAM,
        "TELEGRAM_RETRY_MAX_SECONDS",
        "30",
        "longest pause between attempts to reach Telegram at start (1-3600)",
        "300",
    ),
    Setting(
        TELEGRAM,
        "WEBHOOK_URL",
        "",
        "the public https:// URL Telegram posts updates to; setting it switches from polling"
        " to webhook mode",
        "https://2048.example.com/telegram",
    ),
    Setting(
        TELEGRAM,
        "WEBHOOK_SECRET",
        "",
        "required in webhook mode: the secret Telegram sends with every update (1-256"
        " characters of A-Z, a-z, 0-9, _ and -)",
        "$(openssl rand -hex 32)",
    ),
    Setting(
        TELEGRAM,
        "WEBHOOK_MAX_CONNECTIONS",
        "40",
        "how many updates Telegram may send at once in webhook mode (1-100)",
        "100",
    ),
    Setting(
        STORAGE,
        "BOT_DATABASE",
        "bot2048.sqlite3",
        "the SQLite file, used when DATABASE_URL is unset (the playground's default is"
        " playground.sqlite3)",
        "/var/lib/bot2048/bot2048.sqlite3",
    ),
    Setting(
        STORAGE,
        "DATABASE_URL",
        "",
        "store everything in PostgreSQL instead of the SQLite file",
        "postgresql://bot2048:secret@db.internal:5432/bot2048",
    ),
    Setting(
        WEB,
        "PORT",
        "",
        "the web server's port (webhook, /healthz, /metrics, Mini App). When it is unset,"
        " webhook mode listens on 8443 and polling runs no web server",
        "8443",
    ),
    Setting(WEB, "LISTEN", "0.0.0.0", "the address the web server listens on", "127.0.0.1"),
    Setting(
        WEB,
        "WEBAPP_URL",
        "",
        "the Mini App's public https:// address; boards get a Swipe button that opens it"
        " (needs PORT when polling)",
        "https://2048.example.com",
    ),
    Setting(
        WEB,
        "WEBAPP_MAX_AGE",
        "86400",
        "seconds a Mini App's sign-in (initData) stays valid (60-604800)",
        "3600",
    ),
    Setting(
        WEB,
        "METRICS",
        "",
        "Prometheus /metrics: on (on the web server), local (there, to this machine only),"
        " off, or a host:port to serve it on alone. When it is unset: local if WEBHOOK_URL or"
        " WEBAPP_URL is set, else on",
        "127.0.0.1:9108",
    ),
    Setting(
        LOGGING,
        "LOG_LEVEL",
        "INFO",
        "how much the bot logs: DEBUG, INFO, WARNING, ERROR or CRITICAL",
        "WARNING",
    ),
)
DEFAULTS = {setting.name: setting.default for setting in SETTINGS}


def setting(env: Mapping[str, str], name: str) -> str:
    """The setting's value in `env`, or its default when unset or blank."""
    return env.get(name, "").strip() or DEFAULTS[name]


# `bot2048 --help` fits an 80-column terminal: longer meanings wrap under their setting.
HELP_WIDTH = 80


def settings_help() -> str:
    """The settings, group by group, with their defaults, meanings and an example each, as
    `bot2048 --help` ends. Telegram's pace has no setting: its limits are Telegram's."""
    lines = ["settings are environment variables; unset or blank means the default."]
    group = ""
    for s in SETTINGS:
        if s.group != group:
            group = s.group
            lines.append(f"\n{group} settings:")
        default = "required" if s.required else f"default: {s.default or 'unset'}"
        lines.append(f"  {s.name}  {default}")
        indent = " " * 6
        lines.extend(
            textwrap.wrap(
                s.meaning,
                HELP_WIDTH,
                initial_indent=indent,
                subsequent_indent=indent,
                break_long_words=False,  # an address or a range stays whole: 1-256, https://
                break_on_hyphens=False,
            )
        )
        lines.append(f"      example: {s.name}={s.example}")
    return "\n".join(lines)


# Where webhook mode listens unless PORT says otherwise.
DEFAULT_WEBHOOK_PORT = 8443
# Telegram's own default for setWebhook's max_connections: updates it sends at once.
DEFAULT_WEBHOOK_CONNECTIONS = int(DEFAULTS["WEBHOOK_MAX_CONNECTIONS"])
# PostgreSQL connections per process when polling (updates are short; they queue for one).
POLLING_POOL_SIZE = 10
# Connections beyond one per concurrent update: redraws and challenge jobs run beside them.
POOL_SPARE = 5
# Where Telegram's Bot API is unless TELEGRAM_BASE_URL says otherwise.
DEFAULT_BASE_URL = DEFAULTS["TELEGRAM_BASE_URL"]
# At start, the longest pause between two attempts to reach Telegram (doubling from 1 s).
DEFAULT_TELEGRAM_RETRY_MAX = float(DEFAULTS["TELEGRAM_RETRY_MAX_SECONDS"])
# Secrets shorter than this are not masked in logs: masking "bot" would mangle every line.
_MASKED_SECRET_MIN = 8


class ConfigError(Exception):
    """A setting is missing or malformed; the message is meant for the operator."""


@dataclass(frozen=True, slots=True)
class Webhook:
    """Webhook mode: Telegram posts updates to `url`; the bot listens on `listen`:`port`."""

    url: str  # the public HTTPS URL registered with Telegram (WEBHOOK_URL)
    secret: str  # sent back by Telegram in X-Telegram-Bot-Api-Secret-Token (WEBHOOK_SECRET)
    port: int = DEFAULT_WEBHOOK_PORT  # PORT
    listen: str = DEFAULTS["LISTEN"]  # LISTEN
    # Updates Telegram sends at once (WEBHOOK_MAX_CONNECTIONS), each handled concurrently.
    max_connections: int = DEFAULT_WEBHOOK_CONNECTIONS

    @property
    def path(self) -> str:
        """The path the local server answers on: the public URL's path."""
        return urllib.parse.urlsplit(self.url).path.strip("/")


@dataclass(frozen=True, slots=True)
class Config:
    token: str
    base_url: str | None = None
    database: Path = Path(DEFAULTS["BOT_DATABASE"])
    log_level: str = DEFAULTS["LOG_LEVEL"]
    # Seconds between two edits of one challenge card (tests shorten it; not an env setting).
    card_interval: float = 20.0
    # Every chat's budget for sends and edits (Telegram's flood limits, with room to spare);
    # None paces nothing, for benchmarks of the bot's own work.
    pace: Pace | None = TELEGRAM_PACE
    # The hint's hard time cap per search, in milliseconds.
    hint_budget_ms: float = 50.0
    # Start the hint's worker processes with the bot: started on the first hint instead, a
    # worker makes that hint wait for a Python start-up and its tables (~0.4 s against 20 ms).
    hint_workers_at_start: bool = True
    # With PostgreSQL, seconds between two looks for challenges other processes created.
    challenge_sync_interval: float = 60.0
    # Seconds between two looks for announcements owed and challenges overdue: how soon
    # after an outage or a restart they go out.
    outbox_interval: float = 2.0
    # PostgreSQL instead of the SQLite file `database` (DATABASE_URL).
    database_url: str | None = None
    # Receive updates by webhook instead of long polling.
    webhook: Webhook | None = None
    # At start, the longest pause in seconds between two attempts to reach Telegram.
    telegram_retry_max: float = DEFAULT_TELEGRAM_RETRY_MAX
    # With PostgreSQL, seconds any wait on the database lasts before the update gives up: for a
    # free connection, for a statement (the server cancels it), for an answer that never comes.
    database_wait: float = 5.0
    # The public https:// address the Mini App is served under (WEBAPP_URL); None shows no
    # Swipe button.
    webapp_url: str | None = None
    # Seconds a Mini App's initData is accepted after Telegram signed it (WEBAPP_MAX_AGE).
    webapp_max_age: float = DEFAULT_INITDATA_MAX_AGE
    # The web server's port when polling (PORT); None: no web server. Webhook mode always
    # has one, on the webhook's port.
    web_port: int | None = None
    web_listen: str = DEFAULTS["LISTEN"]  # LISTEN
    # /metrics (METRICS): served on the web server (on), to this machine's peers alone there
    # (local: `metrics_local`), not at all (off), or only on an address of its own, such as
    # 127.0.0.1:9108 (`metrics_address`).
    metrics: bool = True
    metrics_local: bool = False
    metrics_address: tuple[str, int] | None = None

    @property
    def web_address(self) -> tuple[str, int] | None:
        """Where the bot's web server listens (host, port); None when it has none."""
        if self.webhook is not None:
            return self.webhook.listen, self.webhook.port
        return None if self.web_port is None else (self.web_listen, self.web_port)

    @property
    def database_pool_size(self) -> int:
        """PostgreSQL connections per process: one for every update Telegram may send at once."""
        if self.webhook is None:
            return POLLING_POOL_SIZE
        return self.webhook.max_connections + POOL_SPARE

    @property
    def api_url(self) -> str:
        """The Bot API endpoint, to which the token and the method name are appended."""
        return (self.base_url or DEFAULT_BASE_URL).rstrip("/")

    @property
    def file_url(self) -> str:
        return self.api_url.removesuffix("/bot") + "/file/bot"

    @property
    def secrets(self) -> list[str]:
        """What no log line may show: the token's secret half, the webhook's secret and the
        database password (the bot's numeric id, before the token's colon, may show)."""
        found = [self.token.partition(":")[2]]
        if self.webhook is not None:
            found.append(self.webhook.secret)
        if self.database_url:
            found.append(
                urllib.parse.unquote(urllib.parse.urlsplit(self.database_url).password or "")
            )
        return [s for s in found if len(s) >= _MASKED_SECRET_MIN]


def load_log_level(env: Mapping[str, str]) -> str:
    log_level = setting(env, "LOG_LEVEL").upper()
    if log_level not in LOG_LEVELS:
        raise ConfigError(
            f"LOG_LEVEL is not {', '.join(LOG_LEVELS[:-1])} or {LOG_LEVELS[-1]}: set one of them, "
            f"or unset it for {DEFAULTS['LOG_LEVEL']}."
        )
    return log_level


def load_database_url(env: Mapping[str, str]) -> str | None:
    url = setting(env, "DATABASE_URL") or None
    if url is None:
        return None
    if not url.startswith(("postgresql://", "postgres://")):
        raise ConfigError(
            "DATABASE_URL is not a PostgreSQL URL: write it as "
            "postgresql://user:password@host:5432/db, or unset it to use the SQLite file in "
            "BOT_DATABASE."
        )
    hosts = urllib.parse.urlsplit(url).netloc.rpartition("@")[2]
    for host in hosts.split(","):  # libpq's list of hosts to try: host1:5432,host2:5433
        port = host.rpartition("]")[2] if host.startswith("[") else host
        _, colon, number = port.rpartition(":")
        if colon and not (number.isdigit() and 1 <= int(number) <= 65535):
            raise ConfigError(
                f"DATABASE_URL has a port that is not a number from 1 to 65535 ({number!r}): "
                "fix the port after the host."
            )
    return url


def load_retry_max(env: Mapping[str, str]) -> float:
    raw = setting(env, "TELEGRAM_RETRY_MAX_SECONDS")
    try:
        seconds = float(raw)
    except ValueError:
        seconds = 0.0
    if not 1 <= seconds <= 3600:
        raise ConfigError(
            "TELEGRAM_RETRY_MAX_SECONDS is not a number of seconds from 1 to 3600: set one, or "
            f"unset it for {DEFAULTS['TELEGRAM_RETRY_MAX_SECONDS']}."
        )
    return seconds


def load_port(env: Mapping[str, str]) -> int | None:
    """PORT: where the web server listens; None when it is not set."""
    raw_port = setting(env, "PORT")
    if not raw_port:
        return None
    if not raw_port.isdigit() or not 1 <= int(raw_port) <= 65535:
        raise ConfigError("PORT is not a port number from 1 to 65535: set one, or unset it.")
    return int(raw_port)


def load_metrics(
    env: Mapping[str, str], *, public: bool
) -> tuple[bool, bool, tuple[str, int] | None]:
    """METRICS: on, local, off, or host:port (served there alone); (served, to this machine
    only, own address). Unset, it is local when the web server has a public address
    (`public`: a webhook or a Mini App), else on."""
    raw = setting(env, "METRICS").lower() or ("local" if public else "on")
    if raw in ("on", "off", "local"):
        return raw != "off", raw == "local", None
    host, colon, port = raw.rpartition(":")
    if not (colon and host and port.isdigit() and 1 <= int(port) <= 65535):
        raise ConfigError(
            "METRICS is not on, local, off or a host:port: set one of them, such as "
            "METRICS=127.0.0.1:9108, or unset it."
        )
    return True, False, (host.strip("[]"), int(port))


def load_listen(env: Mapping[str, str]) -> str:
    return setting(env, "LISTEN")


def load_webhook(env: Mapping[str, str], *, required: bool) -> Webhook | None:
    """Webhook settings when WEBHOOK_URL is set (or `required`, for --webhook), else None."""
    url = setting(env, "WEBHOOK_URL")
    if not url:
        if required:
            raise ConfigError(
                "WEBHOOK_URL is not set: webhook mode needs the public https:// URL Telegram "
                "posts updates to; set it, or leave out --webhook to poll."
            )
        return None
    parts = urllib.parse.urlsplit(url)
    if parts.scheme != "https" or not parts.hostname:
        raise ConfigError(
            "WEBHOOK_URL is not a public https:// URL: Telegram posts updates over HTTPS only; "
            "set one, such as https://2048.example.com/telegram."
        )
    secret = setting(env, "WEBHOOK_SECRET")
    if not secret:
        raise ConfigError(
            "WEBHOOK_SECRET is not set: webhook mode needs one; set it to 1-256 characters of "
            "A-Z, a-z, 0-9, _ and -, such as the output of openssl rand -hex 32."
        )
    if not SECRET_PATTERN.fullmatch(secret):
        raise ConfigError(
            "WEBHOOK_SECRET is not 1-256 characters of A-Z, a-z, 0-9, _ and -, the only ones "
            "Telegram takes: set one, such as the output of openssl rand -hex 32."
        )
    port = load_port(env) or DEFAULT_WEBHOOK_PORT
    connections = setting(env, "WEBHOOK_MAX_CONNECTIONS")
    if not connections.isdigit() or not 1 <= int(connections) <= 100:
        raise ConfigError(
            "WEBHOOK_MAX_CONNECTIONS is not a number from 1 to 100: set one, or unset it for "
            f"{DEFAULTS['WEBHOOK_MAX_CONNECTIONS']}."
        )
    return Webhook(
        url=url,
        secret=secret,
        port=port,
        listen=load_listen(env),
        max_connections=int(connections),
    )


def load_webapp(env: Mapping[str, str]) -> tuple[str | None, float]:
    """The Mini App's public address and how long its initData stays valid."""
    url = setting(env, "WEBAPP_URL").rstrip("/") or None
    if url is not None:
        parts = urllib.parse.urlsplit(url)
        if parts.scheme != "https" or not parts.hostname or parts.query or parts.fragment:
            raise ConfigError(
                "WEBAPP_URL is not a public https:// address without ?query or #fragment: "
                "Telegram opens Mini Apps over HTTPS only; set one, such as "
                "https://2048.example.com."
            )
    raw = setting(env, "WEBAPP_MAX_AGE")
    if not raw.isdigit() or not 60 <= int(raw) <= 7 * 24 * 3600:
        raise ConfigError(
            "WEBAPP_MAX_AGE is not a number of seconds from 60 to 604800: set one, or unset it "
            f"for {DEFAULTS['WEBAPP_MAX_AGE']}."
        )
    return url, float(raw)


def load_config(env: Mapping[str, str], *, webhook: bool = False) -> Config:
    """The bot's configuration; `webhook` (the --webhook flag) makes WEBHOOK_URL required."""
    token = setting(env, "TELEGRAM_BOT_TOKEN")
    if not token:
        raise ConfigError(
            "TELEGRAM_BOT_TOKEN is not set: get a token from @BotFather and set it (or try "
            "bot2048 --playground, which needs none)."
        )
    if not TOKEN_PATTERN.fullmatch(token):
        raise ConfigError(
            "TELEGRAM_BOT_TOKEN does not look like a bot token (123456789:AbC...): copy it "
            "again, whole, from @BotFather."
        )
    base_url = env.get("TELEGRAM_BASE_URL", "").strip() or None  # None: Telegram's own
    if base_url is not None and not re.match(r"https?://", base_url):
        raise ConfigError(
            "TELEGRAM_BASE_URL does not start with http:// or https://: set your Bot API "
            "server's address, such as http://127.0.0.1:8081/bot, or unset it for Telegram's."
        )
    log_level = load_log_level(env)
    database = Path(setting(env, "BOT_DATABASE"))
    webapp_url, webapp_max_age = load_webapp(env)
    hook = load_webhook(env, required=webhook)
    if webapp_url is not None and hook is None and not setting(env, "PORT"):
        raise ConfigError(
            "WEBAPP_URL is set but PORT is not: when polling, the bot's web server (which "
            "serves the Mini App) runs only if PORT is set; set PORT, such as PORT=8443, or "
            "unset WEBAPP_URL."
        )
    metrics, metrics_local, metrics_address = load_metrics(
        env, public=hook is not None or webapp_url is not None
    )
    return Config(
        token=token,
        base_url=base_url,
        database=database,
        log_level=log_level,
        database_url=load_database_url(env),
        webhook=hook,
        telegram_retry_max=load_retry_max(env),
        webapp_url=webapp_url,
        webapp_max_age=webapp_max_age,
        web_port=load_port(env),
        web_listen=load_listen(env),
        metrics=metrics,
        metrics_local=metrics_local,
        metrics_address=metrics_address,
    )
