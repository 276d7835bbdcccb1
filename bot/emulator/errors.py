"""Bot API error values, shaped exactly like Telegram's JSON error answers.

Every validation failure inside the emulator raises :class:`ApiError`; the HTTP layer
turns it into ``{"ok": false, "error_code": ..., "description": ...}`` with the same
HTTP status, which is what python-telegram-bot maps to ``BadRequest``, ``RetryAfter``,
``Forbidden`` and friends.
"""

from __future__ import annotations

from typing import Any


class ApiError(Exception):
    """A Bot API failure: HTTP status, Telegram's description and optional parameters."""

    def __init__(
        self,
        error_code: int,
        description: str,
        *,
        retry_after: int | None = None,
        migrate_to_chat_id: int | None = None,
    ) -> None:
        super().__init__(description)
        self.error_code = error_code
        self.description = description
        self.retry_after = retry_after
        self.migrate_to_chat_id = migrate_to_chat_id

    def to_json(self) -> dict[str, Any]:
        """The answer body Telegram would send for this error."""
        body: dict[str, Any] = {
            "ok": False,
            "error_code": self.error_code,
            "description": self.description,
        }
        parameters: dict[str, int] = {}
        if self.retry_after is not None:
            parameters["retry_after"] = self.retry_after
        if self.migrate_to_chat_id is not None:
            parameters["migrate_to_chat_id"] = self.migrate_to_chat_id
        if parameters:
            body["parameters"] = parameters
        return body


def bad_request(text: str) -> ApiError:
    """A 400 error; Telegram prefixes every such description with ``Bad Request: ``."""
    return ApiError(400, f"Bad Request: {text}")


def forbidden(text: str) -> ApiError:
    """A 403 error, e.g. the user blocked the bot or never started it."""
    return ApiError(403, f"Forbidden: {text}")


def too_many_requests(retry_after: int) -> ApiError:
    """A flood-control error; PTB raises ``RetryAfter`` from ``parameters.retry_after``."""
    return ApiError(429, f"Too Many Requests: retry after {retry_after}", retry_after=retry_after)


CHAT_NOT_FOUND = "chat not found"
GROUP_UPGRADED = "Bad Request: group chat was upgraded to a supergroup chat"
QUERY_TOO_OLD = "query is too old and response timeout expired or query ID is invalid"
NOT_MODIFIED = (
    "message is not modified: specified new message content and reply markup are exactly "
    "the same as a current content and reply markup of the message"
)
