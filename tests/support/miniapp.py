"""The Mini App as a Telegram client opens it: initData signed for the emulator's token; and
its reviews held back, for what the page does while one is being made."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import time
import urllib.parse

from bot.emulator.webapp import init_data as telegram_init_data
from tests.support.boards import button_data

WEBAPP_URL = "https://2048.example.org"


def init_data(token: str, user_id: int, *, age: float = 0.0, language: str = "en") -> str:
    user = {"id": user_id, "first_name": f"User {user_id}", "language_code": language}
    return telegram_init_data(token, user, auth_date=time.time() - age)


def authorization(init: str) -> dict[str, str]:
    """The header the page sends its initData in."""
    return {"Authorization": f"tma {init}"}


def signed(fields: dict[str, str], token: str) -> str:
    """Fields signed by hand, step by step as Telegram's documentation describes it."""
    secret = hmac.new(b"WebAppData", token.encode(), hashlib.sha256).digest()
    checked = "\n".join(f"{key}={fields[key]}" for key in sorted(fields))
    digest = hmac.new(secret, checked.encode(), hashlib.sha256).hexdigest()
    return urllib.parse.urlencode({"hash": digest, **fields})


def game_id(board) -> int:
    return int(button_data(board, "⬅️").split(":")[1])


class HeldReviews:
    """The bot's reviews held before they are made, until the test lets them go: `asked` is
    set once one is being made (its place in the picture queue taken)."""

    def __init__(self, webbot, monkeypatch) -> None:
        service = webbot.process.runtime.reviews
        self._make = service.review
        self.asked, self.released = asyncio.Event(), asyncio.Event()
        monkeypatch.setattr(service, "review", self._held)

    async def _held(self, stored):
        self.asked.set()
        await self.released.wait()
        return await self._make(stored)
