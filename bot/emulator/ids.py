"""Where the world's ids start, and how far ahead of them a run has promised not to go back.

Telegram never hands out an update, message or callback query id twice, and a bot may rely
on that: it remembers taps by their query id, and messages by their chat and id. A world that
comes back after a restart next to a kept database (the playground) must therefore start each
kind of id above every id an earlier run handed out. `Ids` keeps that promise with a record
kept elsewhere: before an id is handed out, the first id past a block of them is written down
(`reserve`), so a run killed at any moment has only promised ids it may have used, and the next
run starts at the record. With no record to keep (the tests), each kind starts at a fixed
number.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Literal

IdKind = Literal["update", "message", "query"]

FIRST_IDS: Mapping[IdKind, int] = {
    "update": 700_000_001,
    # Message ids count in each chat, from 1 as in a new chat on Telegram.
    "message": 1,
    # Callback and inline query ids share one count, as Telegram's do.
    "query": 4_000_000_000_000_000_001,
}
# Ids reserved at a time: one write of the record per this many ids of a kind.
BLOCK = 1_000


class Ids:
    """Each kind's first id in this run, and the reservation that covers every id handed out.

    Message ids count per chat from ``first("message")``; `handed_out` is told of every id
    of every kind, and writes a new reservation (every kind's next unreserved id) when an id
    reaches the end of its kind's block.
    """

    def __init__(
        self,
        first: Mapping[IdKind, int] = FIRST_IDS,
        reserve: Callable[[Mapping[IdKind, int]], None] | None = None,
    ) -> None:
        if first.get("message", 1) < 1:
            raise ValueError("message ids start at 1 or later")
        self._first: dict[IdKind, int] = {**FIRST_IDS, **first}
        self._reserve = reserve
        self._reserved = dict(self._first)
        if reserve is not None:
            self._extend(self._first)

    def first(self, kind: IdKind) -> int:
        return self._first[kind]

    def handed_out(self, kind: IdKind, value: int) -> None:
        if self._reserve is not None and value >= self._reserved[kind]:
            self._extend({kind: value + 1})

    def _extend(self, past: Mapping[IdKind, int]) -> None:
        assert self._reserve is not None
        for kind, value in past.items():
            self._reserved[kind] = max(self._reserved[kind], value + BLOCK)
        self._reserve(dict(self._reserved))
