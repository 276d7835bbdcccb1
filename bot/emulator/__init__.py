"""An in-process fake Telegram Bot API for end-to-end tests and the browser playground.

Run the real python-telegram-bot ``Application`` against it via ``base_url``; it speaks
the real wire format and Telegram's validation rules, so what works here works live.
"""

from .api import DEFAULT_TOKEN, FakeBotApi
from .errors import ApiError
from .flood import BOT_WIDE_LIMITS, TELEGRAM_LIMITS, FloodControl, FloodLimits
from .ids import FIRST_IDS, IdKind, Ids
from .log import RecordedRequest
from .media import Upload
from .webhook import Delivery
from .world import StoredMessage

__all__ = [
    "BOT_WIDE_LIMITS",
    "DEFAULT_TOKEN",
    "FIRST_IDS",
    "TELEGRAM_LIMITS",
    "ApiError",
    "Delivery",
    "FakeBotApi",
    "FloodControl",
    "FloodLimits",
    "IdKind",
    "Ids",
    "RecordedRequest",
    "StoredMessage",
    "Upload",
]
