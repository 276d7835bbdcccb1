"""The playground from outside: its players, and its JSON API as the page calls it."""

from __future__ import annotations

import re
from typing import Any

import aiohttp

from bot.playground import PLAYERS

ANNA, DAAN, LENA = (player.id for player in PLAYERS)
ARROWS = ("⬅️", "⬆️", "➡️", "⬇️")


def plain(html: str) -> str:
    """A text as the page shows it: its HTML tags dropped."""
    return re.sub(r"<[^>]+>", "", html)


async def call(
    http: aiohttp.ClientSession, method: str, url: str, body: Any = None, status: int = 200
) -> dict[str, Any]:
    """One call to the playground's JSON API; it must answer with `status`."""
    async with http.request(method, url, json=body) as response:
        data = await response.json()
        assert response.status == status, data
        return data
