"""Before the bot serves: wait until Telegram answers, and learn whether it takes the token.

A service is often started before its network is up (a reboot, a container scheduled before
its network): rather than die with a traceback, the bot asks again, with a pause that
doubles up to `Config.telegram_retry_max`, one line per attempt, for as long as it takes.
Meanwhile /healthz already answers, "waiting for Telegram", and a stop signal ends the wait
(the lifecycle cancels it). A token Telegram refuses is no passing trouble: that ends the
wait at once.
"""

from __future__ import annotations

import asyncio
import logging

from telegram import Bot
from telegram.error import InvalidToken, NetworkError

from bot.config import Config

log = logging.getLogger(__name__)
FIRST_PAUSE = 1.0


class TokenRejected(Exception):
    """Telegram refused the token (401, or 404 from a wrong TELEGRAM_BASE_URL)."""


async def reach_telegram(bot: Bot, config: Config) -> None:
    """Return once Telegram has answered `bot`'s getMe, which initializes it.

    Raises TokenRejected when Telegram refuses the token.
    """
    pause = FIRST_PAUSE
    while True:
        try:
            await bot.initialize()
            return
        except InvalidToken as error:
            # PTB's own message quotes the token; its cause has Telegram's words.
            raise TokenRejected(str(error.__cause__ or "rejected")) from None
        except NetworkError as error:
            log.warning(
                "Telegram is not reachable at %s (%s); trying again in %g s",
                config.api_url,
                error,
                pause,
            )
        await asyncio.sleep(pause)
        pause = min(pause * 2, config.telegram_retry_max)
