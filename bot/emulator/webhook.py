"""Webhook delivery: once a webhook is set, queued updates are POSTed to it, as Telegram does.

What the bot can observe is reproduced: a JSON POST per update with the
``X-Telegram-Bot-Api-Secret-Token`` header, up to ``max_connections`` requests at once, but
the updates of one chat strictly one after another (the next only once the previous one was
answered with a 2xx), and a failed delivery (non-2xx, refused connection, timeout) retried,
first at once and then with a doubling delay, while getWebhookInfo reports the last error.
Delays are scaled down from Telegram's seconds so tests stay fast.

``ordered = False`` drops the one-chat-at-a-time rule (every update is its own queue), to
test a bot against updates of one chat arriving at once, as after a redelivery.

``lost_answers`` makes the next answers count as lost on the way back (a dropped connection,
a timeout): the bot has handled the update, and it is delivered again, as Telegram does.

``targets`` overrides where updates go: a list of URLs served round-robin, which is how a
load balancer in front of several bot processes looks from Telegram's side (the registered
URL must be public HTTPS; the processes listen on plain HTTP on 127.0.0.1).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from dataclasses import dataclass
from typing import Any

import aiohttp

from .world import World

log = logging.getLogger(__name__)
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"


@dataclass(frozen=True)
class Delivery:
    """One POST of one update: where it went and how the webhook answered."""

    update_id: int
    target: str
    status: int | None  # the HTTP status; None when no answer came (refused, timed out)
    error: str | None
    time: float

    @property
    def ok(self) -> bool:
        return self.status is not None and 200 <= self.status < 300


def queue_key(update: dict[str, Any]) -> object:
    """Updates with the same key are delivered in order, one at a time: the chat's."""
    for kind, payload in update.items():
        if kind == "update_id" or not isinstance(payload, dict):
            continue
        message = payload.get("message") if kind == "callback_query" else payload
        if isinstance(message, dict) and isinstance(message.get("chat"), dict):
            return ("chat", message["chat"]["id"])
        sender = payload.get("from")
        if isinstance(sender, dict):
            return ("user", sender["id"])
    return ("update", update["update_id"])


class WebhookDelivery:
    """The sender side of a webhook; idle until setWebhook registers a URL.

    It mirrors the world's pending updates as one queue per chat (built incrementally: new
    updates only ever arrive at the end), so picking what to send next costs no scan of
    everything pending, however long the backlog.
    """

    def __init__(
        self,
        world: World,
        *,
        retry_delay: float = 0.05,
        max_retry_delay: float = 2.0,
        timeout: float = 60.0,
    ) -> None:
        self.world = world
        self.targets: list[str] | None = None
        self.ordered = True
        self.lost_answers = 0
        self.deliveries: list[Delivery] = []
        self.retry_delay = retry_delay
        self.max_retry_delay = max_retry_delay
        self.timeout = timeout
        self._queues: dict[object, deque[dict[str, Any]]] = {}
        self._idle: dict[object, None] = {}  # chats whose first update can go now, in order
        self._waiting: dict[object, float] = {}  # chats whose first update waits for a retry
        self._in_flight = 0
        self._busy: set[object] = set()  # chats with an update in flight
        self._next_id: int | None = None  # the first update id not mirrored yet
        self._generation = -1
        self._fails: dict[int, int] = {}
        self._turn = 0
        self._retry_scheduled = False
        self._tasks: set[asyncio.Task[None]] = set()
        self._runner: asyncio.Task[None] | None = None
        self._session: aiohttp.ClientSession | None = None

    def start(self) -> None:
        if self._runner is None:
            self._runner = asyncio.create_task(self._run(), name="emulator-webhook")

    async def stop(self) -> None:
        tasks = [*self._tasks, *([self._runner] if self._runner else [])]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._runner = None
        if self._session is not None:
            await self._session.close()
            self._session = None

    @property
    def failures(self) -> list[Delivery]:
        return [d for d in self.deliveries if not d.ok]

    def _reset(self) -> None:
        self._queues.clear()
        self._idle.clear()
        self._waiting.clear()
        self._next_id = None

    def _mirror(self) -> None:
        """Bring the per-chat queues up to date with the world's pending updates."""
        world = self.world
        if not world.webhook_url:
            self._reset()
            return
        if self._generation != world.updates_generation or self._next_id is None:
            # Updates left other than through us (dropped, polled): start over. In-flight
            # deliveries finish on their own and are then confirmed (or already gone).
            self._reset()
            self._generation = world.updates_generation
            self._next_id = -1
        fresh: list[dict[str, Any]] = []
        for update in reversed(world.updates):
            if update["update_id"] < self._next_id:
                break
            fresh.append(update)
        for update in reversed(fresh):
            self._next_id = update["update_id"] + 1
            if not world.allowed(update):
                world.confirm_update(update["update_id"])  # Telegram never sends these
                continue
            key = queue_key(update) if self.ordered else ("update", update["update_id"])
            queue = self._queues.setdefault(key, deque())
            queue.append(update)
            if len(queue) == 1 and key not in self._waiting and key not in self._busy:
                self._idle[key] = None

    def _ready(self) -> list[tuple[object, dict[str, Any]]]:
        """(chat, update) pairs to send now: idle chats' first updates, while slots are free."""
        self._mirror()
        now = asyncio.get_running_loop().time()
        for key, not_before in list(self._waiting.items()):
            if not_before <= now:
                del self._waiting[key]
                self._idle[key] = None
        slots = self.world.webhook_max_connections - self._in_flight
        ready = []
        while self._idle and len(ready) < slots:
            key = next(iter(self._idle))
            del self._idle[key]
            ready.append((key, self._queues[key][0]))
        return ready

    def _next_retry_in(self) -> float:
        if not self._waiting:
            return 3600.0
        return max(0.0, min(self._waiting.values()) - asyncio.get_running_loop().time())

    def _wake(self) -> bool | None:
        """Something may be sendable now, or a retry needs a new timer: the loop goes on."""
        if self._retry_scheduled:
            self._retry_scheduled = False
            return True
        self._mirror()
        return True if self._idle and self._in_flight < self.world.webhook_max_connections else None

    async def _run(self) -> None:
        while True:
            for key, update in self._ready():
                self._send(key, update)
            await self.world.notifier.wait_until(self._wake, timeout=self._next_retry_in())

    def _target(self) -> str:
        if self.targets:
            target = self.targets[self._turn % len(self.targets)]
            self._turn += 1
            return target
        return self.world.webhook_url

    def _send(self, key: object, update: dict[str, Any]) -> None:
        self._in_flight += 1
        self._busy.add(key)
        task = asyncio.create_task(self._post(key, update, self._target()))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _post(self, key: object, update: dict[str, Any], target: str) -> None:
        if self._session is None:
            self._session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=self.timeout))
        update_id = update["update_id"]
        headers = {}
        if self.world.webhook_secret:
            headers[SECRET_HEADER] = self.world.webhook_secret
        status: int | None = None
        error: str | None = None
        try:
            async with self._session.post(target, json=update, headers=headers) as response:
                status = response.status
                await response.read()
                if not 200 <= status < 300:
                    error = f"Wrong response from the webhook: {status} {response.reason}"
                elif self.lost_answers > 0:
                    self.lost_answers -= 1
                    status, error = None, "Connection failed: the answer was lost"
        except (aiohttp.ClientError, TimeoutError) as failure:
            error = f"Connection failed: {failure.__class__.__name__}: {failure}"
        finally:
            self._in_flight -= 1
            self._busy.discard(key)
        self.deliveries.append(Delivery(update_id, target, status, error, time.time()))
        queue = self._queues.get(key)
        current = queue is not None and bool(queue) and queue[0]["update_id"] == update_id
        if error is None:
            self.world.confirm_update(update_id)
            self._fails.pop(update_id, None)
            if current:
                assert queue is not None
                queue.popleft()
        else:
            log.info("webhook delivery of update %s to %s failed: %s", update_id, target, error)
            self.world.webhook_last_error_date = int(time.time())
            self.world.webhook_last_error_message = error
            fails = self._fails[update_id] = self._fails.get(update_id, 0) + 1
            delay = 0.0 if fails == 1 else self.retry_delay * 2 ** (fails - 2)
            if current:
                self._waiting[key] = asyncio.get_running_loop().time() + min(
                    delay, self.max_retry_delay
                )
                self._retry_scheduled = True
        if queue is not None and key not in self._waiting:
            if queue:
                self._idle[key] = None
            else:
                del self._queues[key]
        self.world.notifier.notify()
