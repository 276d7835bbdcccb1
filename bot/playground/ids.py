"""The playground's Telegram ids, kept rising from run to run beside its database.

The database outlives each run; the emulator's chats, messages and taps do not. The bot
remembers taps by their callback query id and posts by their chat and message id, so a run
that handed out an earlier run's ids again would have its taps taken for repeats and
ignored. Each run therefore starts every kind of id at the record beside the database
(`record_path`), which the emulator moves ahead of the ids it hands out
(bot/emulator/ids.py); a killed run leaves a record that is still ahead.

A database without a record (one from before the record was kept, or whose record was lost)
starts at the clock instead, as every run once did for message ids: message ids at the
seconds since 2024, above an earlier run's unless it posted more than a message a second in
one chat, and query ids as many microseconds above where every run once started them.
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Mapping
from functools import partial
from pathlib import Path

from bot.emulator import FIRST_IDS, IdKind, Ids

log = logging.getLogger(__name__)

# 2024-01-01 UTC. Message ids count seconds from here, so they fit Telegram's 32 bits until 2092.
_ID_EPOCH = 1_704_067_200


def record_path(database: Path) -> Path:
    """The record beside the database: `playground.sqlite3-telegram.json`."""
    return database.with_name(database.name + "-telegram.json")


def clock_floor(now: float | None = None) -> dict[IdKind, int]:
    """Where a run without a record starts each kind of id."""
    since = max(0.0, (time.time() if now is None else now) - _ID_EPOCH)
    return {
        "update": FIRST_IDS["update"],
        "message": max(1, int(since)),
        "query": FIRST_IDS["query"] + int(since * 1_000_000),
    }


def lasting_ids(database: Path, now: float | None = None) -> Ids:
    """This run's ids: above the record and the clock, each new block recorded before use."""
    path = record_path(database)
    recorded = _read(path)
    floor = clock_floor(now)
    first: dict[IdKind, int] = {kind: max(recorded.get(kind, 0), floor[kind]) for kind in floor}
    return Ids(first, reserve=partial(_write, path))


def _read(path: Path) -> Mapping[str, int]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as error:
        log.warning("ignoring %s (%s): ids start at the clock", path, error)
        return {}
    if not isinstance(data, dict):
        log.warning("ignoring %s (not an object): ids start at the clock", path)
        return {}
    return {kind: value for kind, value in data.items() if isinstance(value, int)}


def _write(path: Path, reserved: Mapping[IdKind, int]) -> None:
    """Replace the record whole, so that a run killed while writing leaves the old one."""
    partial_path = path.with_name(path.name + ".new")
    partial_path.write_text(json.dumps(dict(reserved), sort_keys=True), encoding="utf-8")
    os.replace(partial_path, path)
