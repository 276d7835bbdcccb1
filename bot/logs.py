"""Logging for `python -m bot`: one format, and no secret in any line, ever.

python-telegram-bot and httpx write the bot's token into what they log (every request URL is
`.../bot<token>/<method>`, and a rejected token is quoted in full), as do tracebacks of
their errors. A filter on the root handlers masks every secret in each record's message,
arguments and traceback text, whichever library logged it.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

MASK = "***"
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


def configure_logging(level: str, secrets: Iterable[str] = ()) -> None:
    logging.basicConfig(level=level, format=_FORMAT)
    if level != "DEBUG":
        # httpx logs every request at INFO, and apscheduler (the job queue) every job it adds
        # and runs: noise for an operator and in the playground's console, not when debugging.
        for chatty in ("httpx", "apscheduler"):
            logging.getLogger(chatty).setLevel(logging.WARNING)
    secret_filter = SecretFilter(secrets)
    for handler in logging.getLogger().handlers:
        handler.addFilter(secret_filter)
