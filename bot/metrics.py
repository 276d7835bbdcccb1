"""What an operator graphs and alerts on, as Prometheus metrics (served at /metrics).

The metrics live in prometheus-client's process-wide registry, beside its own process
figures (memory, CPU, open files); the parts of the bot that see an event count it here.
Nothing in a label names a person or a chat: kinds and outcomes only.
"""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

# Redraws a player waits for: a few tens of ms when nothing queues, a second or more at pace.
_LATENCY = (0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0)
_RENDER = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
_WAIT = (0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1.0, 5.0)

UPDATES = Counter(
    "bot2048_updates_handled", "Updates handled, by kind (message, callback_query, ...).", ["kind"]
)
TAP_TO_EDIT = Histogram(
    "bot2048_tap_to_edit_seconds",
    "From a tap that asked for a board's redraw to the end of the edit that shows it.",
    buckets=_LATENCY,
)
TOO_MANY_REQUESTS = Counter(
    "bot2048_telegram_429", "Bot API calls Telegram answered 429 (flood wait)."
)
TELEGRAM_CONFLICTS = Counter(
    "bot2048_telegram_409",
    "getUpdates calls Telegram answered 409 Conflict: another process polls the same token.",
)
PACER_QUEUED = Gauge(
    "bot2048_pacer_queued", "Messages and edits waiting in the chats' queues for their pace."
)
PACER_LONGEST_WAIT = Gauge(
    "bot2048_pacer_longest_wait_seconds",
    "How long the oldest message or edit still queued has waited.",
)
FLOOD_WAITS = Gauge(
    "bot2048_flood_waits", "Chats that Telegram holds back now with a flood wait (429)."
)
DATABASE_ERRORS = Counter(
    "bot2048_database_errors", "Updates that failed because the database could not be used."
)
DATABASE_WAIT = Histogram(
    "bot2048_database_wait_seconds",
    "Time to get the database: a pooled connection (PostgreSQL), the write lock (SQLite).",
    buckets=_WAIT,
)
GAMES_STARTED = Counter("bot2048_games_started", "Games started (new, challenge entries, duels).")
MOVES_APPLIED = Counter("bot2048_moves_applied", "Taps that changed a game, committed.")
RENDER = Histogram(
    "bot2048_render_seconds",
    "Time to draw a picture, by kind (card, replay, review).",
    ["kind"],
    buckets=_RENDER,
)
