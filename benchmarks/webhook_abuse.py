"""What strangers can do to a webhook process: big bodies, stalled connections, log floods.

Run from the repository root:

    .venv/bin/python -m benchmarks.webhook_abuse
    .venv/bin/python -m benchmarks.webhook_abuse --root OTHER_CHECKOUT   # an older commit

A `--webhook` bot process on SQLite that serves the Mini App too, with the usual 1,024 open
files, gets:
1. five 100 MB bodies without the secret, one after the other: its resident memory before
   and after (MiB), and how much of each body it accepted;
2. 1,100 connections that send half a request's headers without the secret and then stall:
   how long an update that Telegram posts meanwhile (with the secret) takes to be answered;
3. its stderr over both: how many lines and bytes of log the attack cost;
4. 1,100 connections that post to the Mini App's API without credentials and trickle the
   body a byte every half second, each opened again a second after it is closed, for
   `--seconds`: how many `/healthz` probes (two a second) and Telegram deliveries (with the
   secret, two a second) are answered within `ANSWER_WITHIN` seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import resource
import signal
import socket
import sys
import tempfile
import time
from pathlib import Path

from bot.emulator import FakeBotApi

ROOT = Path(__file__).resolve().parent.parent
SECRET = "benchmark_secret-0123456789"
MB = 1024 * 1024
STALLED = 1100
TRICKLING = 1100
# Seconds a probe or a delivery may wait for its answer before it counts as unanswered.
ANSWER_WITHIN = 5.0


def _rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _head(length: int, secret: str | None) -> bytes:
    lines = ["POST /telegram HTTP/1.1", "Host: bot", "Content-Type: application/json"]
    if secret is not None:
        lines.append(f"X-Telegram-Bot-Api-Secret-Token: {secret}")
    lines.append(f"Content-Length: {length}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


async def _huge_body(port: int) -> int:
    """Bytes of a 100 MB body without the secret that the server took before refusing."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(_head(100 * MB, "wrong"))
    sent = 0
    with contextlib.suppress(ConnectionError):
        for _ in range(100):
            writer.write(b"x" * MB)
            await writer.drain()
            sent += MB
    with contextlib.suppress(ConnectionError, TimeoutError):
        await asyncio.wait_for(reader.read(100), timeout=60)
    writer.close()
    return sent


async def _update_answered(port: int) -> float:
    """Seconds until an update posted with the secret is answered 200 (retried if refused)."""
    anna = {"id": 42, "first_name": "Anna"}
    message = {"message_id": 1, "date": 0, "text": "/help", "from": {**anna, "is_bot": False}}
    update = {"update_id": 1, "message": {**message, "chat": {**anna, "type": "private"}}}
    body = json.dumps(update).encode()
    started = time.monotonic()
    while time.monotonic() - started < 120:
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(_head(len(body), SECRET) + body)
            await writer.drain()
            answer = await asyncio.wait_for(reader.read(100), timeout=30)
            writer.close()
            if answer.startswith(b"HTTP/1.1 200"):
                return time.monotonic() - started
        except (OSError, TimeoutError):
            pass
        await asyncio.sleep(0.1)
    return float("inf")


async def _trickle(port: int, stop: asyncio.Event) -> None:
    """A Mini App call without credentials whose body comes a byte every half second; a
    closed connection is opened again a second later, to keep the attack's count up."""
    head = (
        b"POST /app/api/move HTTP/1.1\r\nHost: bot\r\nContent-Type: application/json\r\n"
        b"Content-Length: 4000\r\n\r\n"
    )
    while not stop.is_set():
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            await asyncio.sleep(1)
            continue
        try:
            writer.write(head)
            while not stop.is_set() and not reader.at_eof():
                writer.write(b" ")
                await writer.drain()
                with contextlib.suppress(TimeoutError):
                    if await asyncio.wait_for(reader.read(100), timeout=0.5):
                        break  # answered: the server has closed, or will
        except OSError:
            pass
        finally:
            writer.close()
        await asyncio.sleep(1)


async def _answered(port: int, request: bytes, expected: bytes) -> bool:
    """Whether `request`, on a connection of its own, is answered `expected` in time."""
    try:
        async with asyncio.timeout(ANSWER_WITHIN):
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            try:
                writer.write(request)
                await writer.drain()
                return (await reader.read(100)).startswith(expected)
            finally:
                writer.close()
    except (OSError, TimeoutError):
        return False


async def _slow_bodies(port: int, seconds: float) -> tuple[int, int, int, int]:
    """(healthz answered, probes, deliveries answered, deliveries) under TRICKLING peers."""
    stop = asyncio.Event()
    peers = [asyncio.create_task(_trickle(port, stop)) for _ in range(TRICKLING)]
    await asyncio.sleep(3)  # every peer connected and trickling
    probe = b"GET /healthz HTTP/1.1\r\nHost: bot\r\nConnection: close\r\n\r\n"
    anna = {"id": 42, "first_name": "Anna"}
    checks: list[asyncio.Task[bool]] = []
    deliveries: list[asyncio.Task[bool]] = []
    for number in range(int(seconds * 2)):
        checks.append(asyncio.create_task(_answered(port, probe, b"HTTP/1.1 200")))
        message = {
            "message_id": 100 + number,
            "date": 0,
            "text": "/rules",
            "from": {**anna, "is_bot": False},
            "chat": {**anna, "type": "private"},
        }
        body = json.dumps({"update_id": 100 + number, "message": message}).encode()
        delivery = _head(len(body), SECRET) + body
        deliveries.append(asyncio.create_task(_answered(port, delivery, b"HTTP/1.1 200")))
        await asyncio.sleep(0.5)
    healthy = sum(await asyncio.gather(*checks))
    delivered = sum(await asyncio.gather(*deliveries))
    stop.set()
    await asyncio.gather(*peers)
    return healthy, len(checks), delivered, len(deliveries)


def _limit_open_files() -> None:
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (1024, hard))


async def measure(root: Path, folder: Path, seconds: float) -> None:
    async with FakeBotApi() as api:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        api.add_user(42, "Anna")  # who sends the update that must get through
        env = {k: v for k, v in os.environ.items() if not k.startswith(("TELEGRAM_", "BOT_"))}
        env.update(
            TELEGRAM_BOT_TOKEN=api.token,
            TELEGRAM_BASE_URL=api.base_url,
            BOT_DATABASE=str(folder / "bot.sqlite3"),
            WEBHOOK_URL="https://bot.example/telegram",
            WEBHOOK_SECRET=SECRET,
            WEBAPP_URL="https://bot.example",
            PORT=str(port),
            LISTEN="127.0.0.1",
            LOG_LEVEL="INFO",
        )
        log = (folder / "stderr.log").open("wb")
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bot",
            "--webhook",
            cwd=root,
            env=env,
            stderr=log,
            preexec_fn=_limit_open_files,
        )
        try:
            await api.wait_request("setWebhook", timeout=60)
            await asyncio.sleep(1)
            before = _rss_mib(process.pid)
            log_before = (folder / "stderr.log").stat().st_size
            accepted = [await _huge_body(port) for _ in range(5)]
            after = _rss_mib(process.pid)
            print(
                f"five 100 MB bodies without the secret: RSS {before:.0f} -> {after:.0f} MiB; "
                f"accepted {max(accepted) / MB:.1f} MB of a body at most"
            )
            stalled = []
            for _ in range(STALLED):
                try:
                    _, writer = await asyncio.open_connection("127.0.0.1", port)
                except OSError:
                    break
                writer.write(b"POST /telegram HTTP/1.1\r\nHost: bot\r\n")
                stalled.append(writer)
            waited = await _update_answered(port)
            print(
                f"{len(stalled)} stalled connections without the secret: an update with it "
                f"was answered after {waited:.1f} s"
            )
            for writer in stalled:
                writer.close()
            log.flush()
            size = (folder / "stderr.log").stat().st_size - log_before
            lines = (folder / "stderr.log").read_bytes()[log_before:].count(b"\n")
            print(f"log written meanwhile: {lines} lines, {size / 1024:.1f} KB")
            written = (folder / "stderr.log").read_text(errors="replace")[log_before:]
            for line in sorted({line[24:120] for line in written.splitlines()})[:5]:
                print("   ", line)
            healthy, probes, delivered, deliveries = await _slow_bodies(port, seconds)
            print(
                f"{TRICKLING} connections trickling Mini App bodies without credentials: "
                f"/healthz answered {healthy} of {probes} ({100 * healthy / probes:.0f} %), "
                f"Telegram's deliveries {delivered} of {deliveries} "
                f"({100 * delivered / deliveries:.0f} %)"
            )
        finally:
            process.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(process.wait(), timeout=60)
            except TimeoutError:
                process.kill()
                await process.wait()
            log.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout whose bot runs")
    parser.add_argument("--seconds", type=float, default=20, help="how long the trickle lasts")
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 4096)), hard))
    with tempfile.TemporaryDirectory() as folder:
        asyncio.run(measure(args.root, Path(folder), args.seconds))


if __name__ == "__main__":
    main()
