"""The record of every Bot API call the bot made, and ways to wait on it.

End-to-end tests assert on what the bot *did* (sent, edited, answered), so each request
is kept with its decoded parameters and outcome. Matching is by method name plus
parameter equality (or a callable per parameter), which reads naturally in tests::

    req = await api.wait_request("editMessageText", chat_id=5, text=lambda t: "Score" in t)
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from typing import Any

from .notify import Notifier


@dataclass(frozen=True)
class RecordedRequest:
    """One Bot API call: decoded params and the answer the emulator gave."""

    index: int
    method: str
    params: dict[str, Any]
    ok: bool
    result: Any
    error_code: int | None
    description: str | None
    time: float

    def summary(self) -> str:
        """One line for assertion messages: method, chat, outcome."""
        where = f" chat_id={self.params['chat_id']}" if "chat_id" in self.params else ""
        outcome = "ok" if self.ok else f"{self.error_code} {self.description}"
        return f"#{self.index} {self.method}{where}: {outcome}"


def _methods(method: str | Iterable[str] | None) -> set[str] | None:
    if method is None:
        return None
    names = [method] if isinstance(method, str) else list(method)
    return {name.lower() for name in names}


def request_matcher(
    method: str | Iterable[str] | None,
    ok: bool | None,
    match: dict[str, Any],
) -> Callable[[RecordedRequest], bool]:
    """Predicate for requests of ``method`` whose params equal (or satisfy) ``match``."""
    wanted = _methods(method)

    def matches(req: RecordedRequest) -> bool:
        if wanted is not None and req.method.lower() not in wanted:
            return False
        if ok is not None and req.ok != ok:
            return False
        for key, expected in match.items():
            if key not in req.params:
                return False
            actual = req.params[key]
            if callable(expected):
                if not expected(actual):
                    return False
            elif actual != expected:
                return False
        return True

    return matches


class RequestLog:
    """Append-only list of :class:`RecordedRequest` that wakes waiters on every append."""

    def __init__(self, notifier: Notifier) -> None:
        self._items: list[RecordedRequest] = []
        self._notifier = notifier

    def __len__(self) -> int:
        return len(self._items)

    @property
    def items(self) -> list[RecordedRequest]:
        """A snapshot copy; the log itself only grows."""
        return list(self._items)

    def record(
        self,
        method: str,
        params: dict[str, Any],
        *,
        ok: bool,
        result: Any,
        error_code: int | None,
        description: str | None,
        time: float,
    ) -> RecordedRequest:
        """Append one finished request and notify waiters."""
        req = RecordedRequest(
            len(self._items), method, params, ok, result, error_code, description, time
        )
        self._items.append(req)
        self._notifier.notify()
        return req

    def first(
        self, predicate: Callable[[RecordedRequest], bool], after: int
    ) -> RecordedRequest | None:
        """The earliest request at index >= ``after`` satisfying ``predicate``."""
        for req in self._items[after:]:
            if predicate(req):
                return req
        return None

    def since(self, after: int, ignore: Collection[str] = ()) -> list[RecordedRequest]:
        """Requests at index >= ``after`` whose method is not in ``ignore``."""
        skip = {name.lower() for name in ignore}
        return [req for req in self._items[after:] if req.method.lower() not in skip]
