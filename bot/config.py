"""Configuration from the environment, checked before anything starts."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

TOKEN_PATTERN = re.compile(r"\d{1,20}:[A-Za-z0-9_-]{30,100}")
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


class ConfigError(Exception):
    """A setting is missing or malformed; the message is meant for the operator."""


@dataclass(frozen=True, slots=True)
class Config:
    token: str
    base_url: str | None = None
    database: Path = Path("bot2048.sqlite3")
    log_level: str = "INFO"
    # Seconds between two edits of one challenge card (tests shorten it; not an env setting).
    card_interval: float = 20.0
    # Seconds between two board edits in one chat; moves in between coalesce into one edit.
    edit_interval: float = 0.5
    # The hint's hard time cap per search, in milliseconds.
    hint_budget_ms: float = 50.0


def load_log_level(env: Mapping[str, str]) -> str:
    log_level = env.get("LOG_LEVEL", "INFO").strip().upper() or "INFO"
    if log_level not in LOG_LEVELS:
        raise ConfigError(f"LOG_LEVEL must be one of {', '.join(LOG_LEVELS)}.")
    return log_level


def load_config(env: Mapping[str, str]) -> Config:
    token = env.get("TELEGRAM_BOT_TOKEN", "").strip()
    if not token:
        raise ConfigError("TELEGRAM_BOT_TOKEN is not set: get a token from @BotFather.")
    if not TOKEN_PATTERN.fullmatch(token):
        raise ConfigError(
            "TELEGRAM_BOT_TOKEN does not look like a bot token (expected 123456789:AbC...)."
        )
    base_url = env.get("TELEGRAM_BASE_URL", "").strip() or None
    if base_url is not None and not re.match(r"https?://", base_url):
        raise ConfigError("TELEGRAM_BASE_URL must start with http:// or https://.")
    log_level = load_log_level(env)
    database = Path(env.get("BOT_DATABASE", "").strip() or "bot2048.sqlite3")
    return Config(token=token, base_url=base_url, database=database, log_level=log_level)
