"""`python -m bot`: run the bot with long polling, configured from the environment."""

from __future__ import annotations

import logging
import os
import sys

from telegram import Update

from bot.app import build_application
from bot.config import ConfigError, load_config


def main() -> int:
    try:
        config = load_config(os.environ)
    except ConfigError as error:
        print(f"bot2048: {error}", file=sys.stderr)
        return 2
    logging.basicConfig(
        level=config.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    # httpx logs every request at INFO; that is noise for an operator.
    logging.getLogger("httpx").setLevel(logging.WARNING)
    application = build_application(config)
    application.run_polling(allowed_updates=Update.ALL_TYPES, drop_pending_updates=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
