"""Logging for `python -m bot`: one format, and no secret in any line, ever.

python-telegram-bot and httpx write the bot's token into what they log (every request URL is
`.../bot<token>/<method>`, and a rejected token is quoted in full), as do tracebacks of
their errors. A filter on the root handlers masks every secret in each record's message,
arguments and traceback text, whichever library logged it.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Iterable

from cachetools import LRUCache

MASK = "***"
# A warning or error that repeats is written once per this many seconds, with a count.
REPEAT_WINDOW = 60.0
# Where what strangers send can make the bot log: the web server and its routes.
FRONT_DOOR = ("aiohttp", "bot.web")
_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class SecretFilter(logging.Filter):
    """Replaces each secret with *** wherever a record would show it."""

    def __init__(self, secrets: Iterable[str]) -> None:
        super().__init__()
        self._secrets = sorted({s for s in secrets if s}, key=len, reverse=True)
        self._formatter = logging.Formatter()

    def mask(self, text: str) -> str:
        for secret in self._secrets:
            text = text.replace(secret, MASK)
        return text

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        masked = self.mask(message)
        if masked != message:
            record.msg, record.args = masked, None
        if record.exc_info and not record.exc_text:
            # Formatted here, once: the handler's formatter reuses exc_text as it is.
            record.exc_text = self._formatter.formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = self.mask(record.exc_text)
        if record.stack_info:
            record.stack_info = self.mask(record.stack_info)
        return True


class RepeatFilter(logging.Filter):
    """A warning that repeats is written once a window, the next time with how many were not.

    A flood of bad requests must not become a flood of log: each one would cost a line of
    disk, and the one line that matters would drown. Messages count as the same when their
    logger, level and unformatted text are (their arguments may differ). Only the loggers
    under `prefixes` are limited: the bot's own retries say each attempt on purpose.
    """

    def __init__(
        self,
        prefixes: tuple[str, ...] = FRONT_DOOR,
        window: float = REPEAT_WINDOW,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__()
        self._prefixes = prefixes
        self._window = window
        self._clock = clock
        # (logger, level, message) -> (when last written, how many left out since)
        self._seen: LRUCache[tuple[str, int, str], tuple[float, int]] = LRUCache(1024)

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno < logging.WARNING or not record.name.startswith(self._prefixes):
            return True
        key = (record.name, record.levelno, str(record.msg))
        now = self._clock()
        written, left_out = self._seen.get(key, (-self._window, 0))
        if now - written < self._window:
            self._seen[key] = (written, left_out + 1)
            return False
        self._seen[key] = (now, 0)
        if left_out:
            record.msg = (
                f"{record.msg} [{left_out} more like this in the last {now - written:.0f} s]"
            )
        return True


def configure_logging(level: str, secrets: Iterable[str] = ()) -> None:
    logging.basicConfig(level=level, format=_FORMAT)
    if level != "DEBUG":
        # httpx logs every request at INFO, and apscheduler (the job queue) every job it adds
        # and runs: noise for an operator and in the playground's console, not when debugging.
        for chatty in ("httpx", "apscheduler"):
            logging.getLogger(chatty).setLevel(logging.WARNING)
    secret_filter = SecretFilter(secrets)
    repeat_filter = RepeatFilter()
    for handler in logging.getLogger().handlers:
        handler.addFilter(secret_filter)
        handler.addFilter(repeat_filter)


def system_reason(error: OSError) -> str:
    """The system's words for `error` as they read in the middle of a line ("address already
    in use", "connection refused"), without the address and tuple that asyncio wraps them in;
    a resolver's error (a negative errno) keeps its own words."""
    reason = os.strerror(error.errno) if error.errno and error.errno > 0 else error.strerror
    reason = reason or str(error)
    return reason[:1].lower() + reason[1:]
