"""A Mini App page's calls while its player's review is being made: how long they wait.

The player has a long finished 4×4 game (the first 1,000 moves of tests/data/long_game.json,
then down, left, right and up until it ends) and a new game running beside it. Their page asks
for the finished game's review, and while the review is being made (its place in the picture
queue taken, not yet answered) the same page opens its running game (`open`, the state) and
moves on it (`move`). Printed, in milliseconds: those two calls with no review being made, the
same calls while one is, and the review's own time; each is the median of `--repeat` rounds,
each round a game of its own (its last moves in another order), so no review comes from memory.

The real Application runs against the Bot API emulator (no flood limits, no pacing, no tap
throttle: their waits are deliberate), on a SQLite file, its Mini App routes on 127.0.0.1.

    .venv/bin/python -m benchmarks.miniapp_review [--repeat 5]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import aiohttp

import engine
from benchmarks.cards import GAME_FILE
from benchmarks.miniapp import _serve
from benchmarks.review import load, machine, prefix
from bot.config import MINIAPP_PATH
from bot.emulator import FakeBotApi
from bot.services.workers import Busy
from bot.transport.throttle import Throttle
from bot.web.miniapp.api import miniapp_routes
from bot.web.server import build_web_app
from tests.support.databases import logged_game
from tests.support.harness import RunningBot, User
from tests.support.miniapp import WEBAPP_URL, authorization, init_data

FIRST_PLAYER = 101
MOVES = 1000
# Each round's game ends with its moves tried in another order, so each is a new review.
ORDERS = ["".join(order) for order in itertools.permutations("dlru")]


def finished(start: str, seed: int, order: str) -> str:
    """The game of log `start` played on in `order` to its end: its whole log."""
    game, codes = engine.replay(4, seed, start), start
    while not game.over:
        code = next(c for c in order if engine.act(game, engine.CODE_ACTIONS[c], 0.0).changed)
        game, codes = engine.act(game, engine.CODE_ACTIONS[code], 0.0).game, codes + code
    return codes


class Page:
    """One player's page: each call timed, from its request to its answer, in ms."""

    def __init__(self, http: aiohttp.ClientSession, base: str, token: str, player: int) -> None:
        self.http, self.url = http, f"{base}{MINIAPP_PATH}/api/"
        self.headers = authorization(init_data(token, player))

    async def post(self, name: str, **body: object) -> tuple[dict, float]:
        began = time.perf_counter()
        async with self.http.post(self.url + name, json=body, headers=self.headers) as response:
            assert response.status == 200, await response.text()
            answer = await response.json()
        return answer, (time.perf_counter() - began) * 1000

    async def state_and_move(self, running: int) -> tuple[float, float]:
        """The running game opened, then moved: each call's time."""
        state, opened = await self.post("open", game=running)
        board, size = tuple(state["board"]), state["size"]
        direction = next(d for d in engine.DIRECTIONS if engine.move(board, size, d)[0] != board)
        _, moved = await self.post("move", game=running, seq=state["seq"], action=direction)
        return opened, moved


async def being_made(bot: RunningBot, player: int) -> None:
    """Until the player's review holds its place in the picture queue."""
    while True:
        try:
            bot.process.runtime.reviews.claim(player).release()
        except Busy:
            return
        await asyncio.sleep(0.001)


@dataclass(frozen=True)
class Round:
    """One player's calls (open, move) in ms with no review being made, then while one is,
    the review's own time, and whether those calls came back before it."""

    alone: tuple[float, float]
    meanwhile: tuple[float, float]
    review: float
    first: bool


async def one_round(
    api: FakeBotApi, bot: RunningBot, page: Page, player: int, seed: int, codes: str
) -> Round:
    """The player's finished game, a new one started beside it, and their calls on the new
    one alone, then while the finished one's review is made."""
    await User(api, player, f"Player {player}").send("/help")
    finished_id = await logged_game(bot.database, player, engine.replay(4, seed, codes), codes)
    started, _ = await page.post("new", game=finished_id, size=4)
    await page.state_and_move(started["game"])  # once the new game's board has been sent
    alone = await page.state_and_move(started["game"])
    review = asyncio.create_task(page.post("review", game=finished_id, seq=len(codes)))
    await being_made(bot, player)
    meanwhile = await page.state_and_move(started["game"])
    first = not review.done()
    answer, took = await review
    assert answer["review"] is not None, answer
    return Round(alone, meanwhile, took, first)


async def run(repeat: int) -> None:
    data = json.loads(GAME_FILE.read_text())
    seed, start = data["seed"], prefix(data["actions"], MOVES)
    games = [finished(start, seed, order) for order in ORDERS[:repeat]]
    rounds: list[Round] = []
    async with FakeBotApi(flood=None) as api:
        with tempfile.TemporaryDirectory() as folder:
            bot = RunningBot(api, Path(folder) / "review.sqlite3", webapp_url=WEBAPP_URL)
            await bot.start()
            try:
                miniapp = bot.process.miniapp
                miniapp.throttle = Throttle(rate=1e9, burst=1e9)
                runner, base = await _serve(build_web_app([miniapp_routes(miniapp)]))
                try:
                    async with aiohttp.ClientSession() as http:
                        for player, codes in enumerate(games, FIRST_PLAYER):
                            page = Page(http, base, api.token, player)
                            rounds.append(await one_round(api, bot, page, player, seed, codes))
                finally:
                    await runner.cleanup()
            finally:
                await bot.stop()
    moves = [engine.replay(4, seed, codes).moves for codes in games]
    print(f"{machine()}; load average {load()}")
    print(f"the review of a {min(moves)}–{max(moves)}-move 4×4 game, {repeat} rounds (median ms):")
    for name, calls in (
        ("no review being made", [r.alone for r in rounds]),
        ("while one is made", [r.meanwhile for r in rounds]),
    ):
        opened, moved = (statistics.median(call[i] for call in calls) for i in (0, 1))
        print(f"  {name:<22} open {opened:8.1f}   move {moved:8.1f}")
    print(f"  the review itself      {statistics.median(r.review for r in rounds):8.1f}")
    print(f"  calls answered before the review: {sum(r.first for r in rounds)} of {repeat} rounds")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    asyncio.run(run(parser.parse_args().repeat))


if __name__ == "__main__":
    main()
