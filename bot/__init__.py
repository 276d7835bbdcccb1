"""The Telegram side of 2048: handlers, rendering, storage and translations."""

import os

# Opt in to python-telegram-bot's coming behaviour: time periods such as `RetryAfter.retry_after`
# are timedeltas. Without it PTB prints a deprecation warning for every flood-limit error.
os.environ.setdefault("PTB_TIMEDELTA", "1")

# The release, as in CHANGELOG.md; pyproject.toml reads it from here.
__version__ = "0.1.0"
