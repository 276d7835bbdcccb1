"""Telegram's side of a Mini App: the address a client opens, signed, and its script.

A Telegram client opens a Mini App's page with launch parameters in the URL fragment:
`tgWebAppData` (the initData, signed with the bot's token as Telegram documents),
`tgWebAppThemeParams`, `tgWebAppVersion` and `tgWebAppPlatform`. The page loads Telegram's
script from `TELEGRAM_SCRIPT`; tests and the playground answer that address with
`STAND_IN`, which reads the same parameters (see its header).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
import urllib.parse
from pathlib import Path
from typing import Any

TELEGRAM_SCRIPT = "https://telegram.org/js/telegram-web-app.js"
STAND_IN = Path(__file__).parent / "static" / "telegram-web-app.js"
VERSION = "8.0"
# Telegram's own colours for its light and dark themes (Android), as a page receives them.
LIGHT_THEME = {
    "bg_color": "#ffffff",
    "secondary_bg_color": "#f0f0f0",
    "text_color": "#222222",
    "hint_color": "#a8a8a8",
    "link_color": "#2678b6",
    "button_color": "#50a8eb",
    "button_text_color": "#ffffff",
}
DARK_THEME = {
    "bg_color": "#212d3b",
    "secondary_bg_color": "#1d2733",
    "text_color": "#ffffff",
    "hint_color": "#7d7d7d",
    "link_color": "#5eabe1",
    "button_color": "#5288c1",
    "button_text_color": "#ffffff",
}


def init_data(token: str, user: dict[str, Any], *, auth_date: float | None = None) -> str:
    """initData for `user` as Telegram signs it for the bot with this token."""
    fields = {
        "auth_date": str(int(time.time() if auth_date is None else auth_date)),
        "query_id": "AAF" + hashlib.sha256(json.dumps(user).encode()).hexdigest()[:20],
        "user": json.dumps(user, separators=(",", ":"), ensure_ascii=False),
    }
    secret = hmac.new(b"WebAppData", token.encode(), hashlib.sha256).digest()
    checked = "\n".join(f"{key}={fields[key]}" for key in sorted(fields))
    fields["hash"] = hmac.new(secret, checked.encode(), hashlib.sha256).hexdigest()
    return urllib.parse.urlencode(fields)


def launch_url(
    page: str,
    token: str,
    user: dict[str, Any],
    theme: dict[str, str] = LIGHT_THEME,
    *,
    auth_date: float | None = None,
    platform: str = "android",
    version: str = VERSION,
) -> str:
    """The address a Telegram client of `version` on `platform` opens for `user`: `page`
    with the launch parameters."""
    user = {key: user[key] for key in ("id", "first_name", "language_code") if key in user}
    fragment = urllib.parse.urlencode(
        {
            "tgWebAppData": init_data(token, user, auth_date=auth_date),
            "tgWebAppVersion": version,
            "tgWebAppPlatform": platform,
            "tgWebAppThemeParams": json.dumps(theme, separators=(",", ":")),
        },
        quote_via=urllib.parse.quote,
    )
    return f"{page}#{fragment}"
