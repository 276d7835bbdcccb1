"""Who is asking: the Mini App's `initData`, verified exactly as Telegram documents it.

https://core.telegram.org/bots/webapps#validating-data-received-via-the-mini-app: the secret
key is HMAC-SHA256 of the bot token under the key "WebAppData"; the signed text is every
field but `hash`, as `key=value` lines sorted by key; the page's `hash` must equal its
HMAC-SHA256 under that secret. Telegram signs this for the user who opened the page, so it is
the only identity the API accepts: nothing the page says about itself is trusted.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import json
import urllib.parse
from dataclasses import dataclass

from bot.config import DEFAULT_INITDATA_MAX_AGE

# Telegram's initData is well under a kilobyte; anything far larger is not from Telegram.
MAX_LENGTH = 4096


class InitDataError(Exception):
    """The initData is missing, forged, expired or names no user (the API answers 401)."""


@dataclass(frozen=True, slots=True)
class WebAppUser:
    id: int
    first_name: str
    language_code: str | None


@dataclass(frozen=True, slots=True)
class Unverified:
    """initData read but not yet checked: the fields, and the user they claim to come from.

    Reading is cheap and its claim is enough to pick the user's bucket before the HMAC is
    worked out; nothing else may trust it before `check` has passed.
    """

    fields: dict[str, str]
    user: WebAppUser


@functools.lru_cache(maxsize=4)
def secret_key(token: str) -> bytes:
    return hmac.new(b"WebAppData", token.encode(), hashlib.sha256).digest()


def data_check_string(fields: dict[str, str]) -> str:
    return "\n".join(f"{key}={fields[key]}" for key in sorted(fields) if key != "hash")


def read(init_data: str) -> Unverified:
    """The fields and the user initData claims; InitDataError if it is no initData at all."""
    if not init_data or len(init_data) > MAX_LENGTH:
        raise InitDataError("no initData")
    try:
        pairs = urllib.parse.parse_qsl(init_data, keep_blank_values=True, strict_parsing=True)
    except ValueError as error:
        raise InitDataError("malformed initData") from error
    fields = dict(pairs)
    if len(fields) != len(pairs):
        raise InitDataError("a field appears twice")
    return Unverified(fields, _user(fields.get("user")))


def check(
    claim: Unverified, token: str, now: float, max_age: float = DEFAULT_INITDATA_MAX_AGE
) -> WebAppUser:
    """The claimed user, once the hash proves Telegram signed it recently; else InitDataError."""
    fields = claim.fields
    given = fields.get("hash", "")
    expected = hmac.new(secret_key(token), data_check_string(fields).encode(), hashlib.sha256)
    if not hmac.compare_digest(expected.hexdigest().encode(), given.encode()):
        raise InitDataError("bad hash")
    auth_date = fields.get("auth_date", "")
    if not auth_date.isdigit() or now - int(auth_date) > max_age:
        raise InitDataError("expired")
    return claim.user


def verify(
    init_data: str, token: str, now: float, max_age: float = DEFAULT_INITDATA_MAX_AGE
) -> WebAppUser:
    """The user Telegram signed this initData for; InitDataError if it proves nothing."""
    return check(read(init_data), token, now, max_age)


def _user(raw: str | None) -> WebAppUser:
    try:
        user = json.loads(raw) if raw else None
    except ValueError as error:
        raise InitDataError("malformed user") from error
    if not isinstance(user, dict):
        raise InitDataError("no user")
    user_id, name, language = user.get("id"), user.get("first_name"), user.get("language_code")
    if type(user_id) is not int or user_id <= 0:
        raise InitDataError("no user id")
    return WebAppUser(
        id=user_id,
        first_name=name if isinstance(name, str) else "",
        language_code=language if isinstance(language, str) else None,
    )
