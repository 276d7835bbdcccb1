"""The emulator's webhook: updates posted as Telegram posts them, retried, spread over targets."""

from __future__ import annotations

import asyncio

import pytest
from aiohttp import web

from bot.emulator.webhook import SECRET_HEADER
from tests.support.harness import eventually

SECRET = "s3cret_-token"


class Receiver:
    """A stand-in webhook server: records what arrives, answers with a scripted status."""

    def __init__(self) -> None:
        self.received: list[tuple[dict, str | None]] = []
        self.statuses: list[int] = []  # consumed one per request; 200 once empty
        self.delay = 0.0
        self.in_flight = 0
        self.most_in_flight = 0
        self.port = 0

    async def handle(self, request: web.Request) -> web.Response:
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            update = await request.json()
            self.received.append((update, request.headers.get(SECRET_HEADER)))
            await asyncio.sleep(self.delay)
            status = self.statuses.pop(0) if self.statuses else 200
            return web.Response(status=status)
        finally:
            self.in_flight -= 1


@pytest.fixture
async def receiver():
    target = Receiver()
    app = web.Application()
    app.router.add_post("/hook", target.handle)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    target.port = runner.addresses[0][1]
    yield target
    await runner.cleanup()


async def set_webhook(api, **params) -> None:
    await api.methods.call("setWebhook", {"url": "https://bot.example/hook", **params})


async def test_updates_are_posted_with_the_secret_in_order_per_chat_and_in_parallel_across_chats(
    api, receiver
):
    api.webhook_targets = [f"http://127.0.0.1:{receiver.port}/hook"]
    receiver.delay = 0.05
    for user in (1, 2, 3):
        api.add_user(user, f"U{user}")
    for n in range(3):
        for user in (1, 2, 3):
            api.send_text(user, user, f"{user}:{n}")
    await set_webhook(api, secret_token=SECRET, max_connections=2)
    await eventually(lambda: len(receiver.received) == 9 and not api.pending_updates)
    assert {secret for _, secret in receiver.received} == {SECRET}
    for user in (1, 2, 3):
        texts = [
            u["message"]["text"] for u, _ in receiver.received if u["message"]["chat"]["id"] == user
        ]
        assert texts == [f"{user}:{n}" for n in range(3)]
    assert receiver.most_in_flight == 2  # concurrent, up to max_connections, never more
    info = await api.methods.call("getWebhookInfo", {})
    assert info["pending_update_count"] == 0 and "last_error_date" not in info


async def test_a_failed_delivery_is_retried_and_reported(api, receiver):
    api.webhook_targets = [f"http://127.0.0.1:{receiver.port}/hook"]
    receiver.statuses = [403, 500]
    api.add_user(1, "U1")
    api.send_text(1, 1, "first")
    api.send_text(1, 1, "second")
    await set_webhook(api, secret_token=SECRET)
    await eventually(lambda: not api.pending_updates)
    texts = [u["message"]["text"] for u, _ in receiver.received]
    assert texts == ["first", "first", "first", "second"]  # the chat waits for its first update
    failures = [d for d in api.webhook_deliveries if not d.ok]
    assert [d.status for d in failures] == [403, 500]
    info = await api.methods.call("getWebhookInfo", {})
    assert "500" in info["last_error_message"] and info["last_error_date"] > 0


async def test_deliveries_go_round_robin_and_fail_over_to_a_live_target(api, receiver):
    dead = f"http://127.0.0.1:{receiver.port}/nothing-here"  # 404 from the receiver's server
    live = f"http://127.0.0.1:{receiver.port}/hook"
    api.webhook_targets = [live, dead]
    for user in range(1, 7):
        api.add_user(user, f"U{user}")
        api.send_text(user, user, "hi")
    await set_webhook(api)
    await eventually(lambda: not api.pending_updates)
    assert len(receiver.received) == 6
    assert {d.target for d in api.webhook_deliveries} == {live, dead}
    assert all(d.status == 404 for d in api.webhook_deliveries if d.target == dead)


async def test_polling_is_refused_while_a_webhook_is_set_and_works_again_after_deleting_it(api):
    await set_webhook(api)
    with pytest.raises(Exception, match="webhook is active"):
        await api.methods.call("getUpdates", {})
    await api.methods.call("deleteWebhook", {})
    assert await api.methods.call("getUpdates", {}) == []
