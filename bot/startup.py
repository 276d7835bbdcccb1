"""Before the bot starts: wait until Telegram answers, and learn whether it takes the token.

A service is often started before its network is up (a reboot, a container scheduled before
its network): rather than die with a traceback, the bot asks again, with a pause that
doubles up to `Config.telegram_retry_max`, one line per attempt, for as long as it takes.
A token Telegram refuses is no passing trouble: that ends the wait at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal

from telegram import Bot
from telegram.error import InvalidToken, NetworkError

from bot.config import Config

log = logging.getLogger(__name__)
FIRST_PAUSE = 1.0


class TokenRejected(Exception):
    """Telegram refused the token (401, or 404 from a wrong TELEGRAM_BASE_URL)."""


async def reach_telegram(config: Config) -> bool:
    """True once Telegram has answered getMe; False if a stop signal came first.

    Raises TokenRejected when Telegram refuses the token.
    """
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):  # where the loop cannot handle signals
            loop.add_signal_handler(sig, stop.set)
    bot = Bot(config.token, base_url=config.api_url, base_file_url=config.file_url)
    pause = FIRST_PAUSE
    try:
        while True:
            try:
                await bot.initialize()
                return True
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
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), timeout=pause)
            if stop.is_set():
                return False
            pause = min(pause * 2, config.telegram_retry_max)
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError):
                loop.remove_signal_handler(sig)
        await bot.shutdown()
