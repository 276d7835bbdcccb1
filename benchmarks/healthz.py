"""What /healthz costs under a flood of probes: requests answered a second, and database
queries a second behind them.

Runs the real bot (the emulator as Telegram, a SQLite file) with its web server on
127.0.0.1, has `--clients` connections ask /healthz back to back for `--seconds`, and counts
the answers and the database's probes (its schema_version query, counted where the
Health check calls it).

    .venv/bin/python -m benchmarks.healthz [--clients 50] [--seconds 10]
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import tempfile
import time
from pathlib import Path

import aiohttp

from bot.config import Config
from bot.emulator import FakeBotApi
from bot.lifecycle import running
from bot.web.health import Health, health_routes
from bot.web.server import WebServer, build_web_app


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


async def run(clients: int, seconds: float) -> tuple[int, float, int]:
    """(answers, seconds measured, database probes)."""
    port = _free_port()
    async with FakeBotApi() as api:
        with tempfile.TemporaryDirectory() as folder:
            config = Config(api.token, api.base_url, Path(folder) / "bench.sqlite3", "WARNING")
            async with running(config, poll_timeout=1) as process:
                probes = 0

                async def counted() -> int:
                    nonlocal probes
                    probes += 1
                    return await process.runtime.storage.schema_version()

                # The bot's own health check and route on its own server, its probe counted.
                health = Health()
                health.opened(counted, process.telegram)
                health.start_serving()
                server = WebServer(build_web_app([health_routes(health)]), "127.0.0.1", port)
                await server.start()
                try:
                    return await _flood(f"http://127.0.0.1:{port}/healthz", clients, seconds) + (
                        probes,
                    )
                finally:
                    await server.stop()


async def _flood(url: str, clients: int, seconds: float) -> tuple[int, float]:
    answers = 0
    end = time.monotonic() + seconds

    async def client(session: aiohttp.ClientSession) -> None:
        nonlocal answers
        while time.monotonic() < end:
            async with session.get(url) as response:
                await response.read()
                assert response.status == 200
                answers += 1

    start = time.monotonic()
    async with aiohttp.ClientSession() as session:
        await asyncio.gather(*(client(session) for _ in range(clients)))
    return answers, time.monotonic() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    answers, elapsed, probes = asyncio.run(run(args.clients, args.seconds))
    print(
        f"{answers / elapsed:,.0f} answers/s from {args.clients} clients over {elapsed:.1f} s; "
        f"{probes / elapsed:.1f} database queries/s ({probes} in all)"
    )


if __name__ == "__main__":
    main()
