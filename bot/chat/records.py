"""A game's record sent as a small JSON file, in the chat's turn."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any

from telegram import Bot, Update
from telegram.error import Forbidden, NetworkError
from telegram.ext import Application

from bot.chat.posts import post_in_turn

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class RecordPost:
    """The record as a file, with a caption that says how to check it."""

    bot: Bot
    chat_id: int
    file_name: str
    data: dict[str, Any]
    caption: str

    async def __call__(self) -> None:
        content = json.dumps(self.data, indent=1).encode()
        try:
            await self.bot.send_document(
                self.chat_id, content, filename=self.file_name, caption=self.caption
            )
        except (NetworkError, Forbidden) as error:
            log.warning("record not sent to chat %s: %s", self.chat_id, error)


def send_record(
    application: Application,
    update: Update,
    chat_id: int,
    file_name: str,
    data: dict[str, Any],
    caption: str,
) -> None:
    post_in_turn(
        application, update, chat_id, RecordPost(application.bot, chat_id, file_name, data, caption)
    )
