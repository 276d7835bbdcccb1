"""One player flooding the Mini App's API: how long the other players' calls take meanwhile.

Starts `python -m bot` as an operator would (a SQLite file, long polling, the Mini App on its
web server on 127.0.0.1, the production throttles) against the Bot API emulator, which runs
in this process beside the callers. `--players` other players open their game in turn, one
call every 50 ms across them (each well within their own budget), first alone (the
baseline), then while one player sends 1,000 calls at once (over `--connections`, as an HTTP
client's pool would), `--floods` times. Printed: the
other players' `open`, from request to answer, p50 and p95 alone and during the floods, and
how the flood's calls were answered.

    .venv/bin/python -m benchmarks.miniapp_flood [--players 20] [--floods 5] [--root CHECKOUT]

The calls carry their initData in the Authorization header and, for older versions of the
API that read it there, in the body too, so the same run measures either.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import resource
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path

import aiohttp

from benchmarks.memory import ROOT, bot_environment
from benchmarks.miniapp import percentile
from bot.config import MINIAPP_PATH
from bot.emulator import FakeBotApi
from bot.emulator.webapp import init_data

FLOOD = 1000
PROBE_EVERY = 0.05
FLOODER = 1


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Caller:
    """One player's page, opened on the game of their private chat (its board's 👆 button)."""

    def __init__(
        self, session: aiohttp.ClientSession, base: str, token: str, user: int, game: int
    ) -> None:
        self.session, self.url = session, f"{base}{MINIAPP_PATH}/api/open"
        self.init = init_data(token, {"id": user, "first_name": f"Player {user}"})
        self.game = game

    async def open(self) -> tuple[int, float]:
        """(status, seconds) of one `open`."""
        started = time.perf_counter()
        async with self.session.post(
            self.url,
            json={"initData": self.init, "game": self.game},
            headers={"Authorization": f"tma {self.init}"},
        ) as response:
            await response.read()
            return response.status, time.perf_counter() - started


async def _games(api: FakeBotApi, users: range) -> dict[int, int]:
    """Each user's /start, and the game of the board it posts."""
    games = {}
    for user in users:
        api.add_user(user, f"Player {user}")
        api.send_text(user, user, "/start")
        await api.wait_request("sendMessage", chat_id=user)
        board = await api.wait_request("sendMessage", chat_id=user)
        data = board.params["reply_markup"]["inline_keyboard"][0][0]["callback_data"]
        games[user] = int(data.split(":")[1])
    return games


async def _probe(callers: list[Caller], until: asyncio.Event, seconds: list[float]) -> None:
    """The players' calls in turn, one every PROBE_EVERY seconds, until `until` is set."""
    turn = 0
    pending: set[asyncio.Task[tuple[int, float]]] = set()
    while not until.is_set():
        task = asyncio.create_task(callers[turn % len(callers)].open())
        pending.add(task)
        task.add_done_callback(lambda done: seconds.append(done.result()[1]))
        task.add_done_callback(pending.discard)
        turn += 1
        await asyncio.sleep(PROBE_EVERY)
    await asyncio.gather(*pending)


def _figures(seconds: list[float]) -> str:
    ms = [s * 1000 for s in seconds]
    return f"p50 {statistics.median(ms):7.1f} ms   p95 {percentile(ms, 0.95):7.1f} ms ({len(ms)})"


async def run(players: int, floods: int, connections: int, root: Path) -> None:
    async with FakeBotApi(flood=None) as api:
        with tempfile.TemporaryDirectory() as folder:
            port = _free_port()
            env = bot_environment(api, Path(folder) / "flood.sqlite3")
            env.update(PORT=str(port), LISTEN="127.0.0.1", WEBAPP_URL="https://bench.example.org")
            process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bot", cwd=root, env=env
            )
            try:
                await api.wait_request("getUpdates", timeout=60)
                base = f"http://127.0.0.1:{port}"
                async with (
                    aiohttp.ClientSession() as session,
                    aiohttp.ClientSession(
                        connector=aiohttp.TCPConnector(limit=connections)
                    ) as script,
                ):
                    users = range(FLOODER, FLOODER + players + 1)
                    games = await _games(api, users)
                    flooder = Caller(script, base, api.token, FLOODER, games[FLOODER])
                    others = [
                        Caller(session, base, api.token, user, games[user]) for user in users[1:]
                    ]
                    alone: list[float] = []
                    stop = asyncio.Event()
                    probing = asyncio.create_task(_probe(others, stop, alone))
                    await asyncio.sleep(5)
                    stop.set()
                    await probing
                    during: list[float] = []
                    statuses: collections.Counter[int] = collections.Counter()
                    flood_seconds = []
                    for _ in range(floods):
                        stop = asyncio.Event()
                        probing = asyncio.create_task(_probe(others, stop, during))
                        started = time.perf_counter()
                        answers = await asyncio.gather(
                            *(flooder.open() for _ in range(FLOOD)), return_exceptions=True
                        )
                        flood_seconds.append(time.perf_counter() - started)
                        stop.set()
                        await probing
                        for answer in answers:
                            statuses[answer[0] if isinstance(answer, tuple) else 0] += 1
                        await asyncio.sleep(2)
            finally:
                process.terminate()
                await process.wait()
    print(f"other players' open, alone:         {_figures(alone)}")
    print(f"other players' open, during floods: {_figures(during)}")
    ratio = percentile(during, 0.95) / percentile(alone, 0.95)
    print(f"  p95 during / alone: {ratio:.2f}x (target <= 2x)")
    answered = ", ".join(f"{count} × {status or 'no answer'}" for status, count in statuses.items())
    took = statistics.median(flood_seconds)
    print(f"{floods} floods of {FLOOD} calls from one player, {took:.2f} s each: {answered}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=20)
    parser.add_argument("--floods", type=int, default=5)
    parser.add_argument(
        "--connections", type=int, default=100, help="the flood's connections (0: one a call)"
    )
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout whose bot runs")
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 4096)), hard))
    asyncio.run(run(args.players, args.floods, args.connections, args.root))


if __name__ == "__main__":
    main()
