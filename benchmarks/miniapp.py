"""The Mini App's figures beside the chat's, measured in one run on one SQLite file.

The real Application runs against the Bot API emulator (no flood limits, no pacing: their
waits are deliberate), with the Mini App's routes on 127.0.0.1. Printed:

    server time per move   the chat path: from the tap's handler starting to its edit being
                           requested (benchmarks/tap.py's measure, unpaced); the Mini App:
                           from the API request arriving to its answer leaving, one page
                           moving as fast as it gets answers (p50 and p95; target <= 5 ms
                           p95). The Mini App's bot runs at Telegram's pace, as in
                           production: the chat's board follows, coalesced, about once a
                           second.
    moves/s                page moves one process answers, from --clients pages at once
    key -> first frame     in Chromium (Debian's), from a key press to the first animation
                           frame of the slide (target <= 50 ms p95)
    key -> server tile     from a key press to the frame that paints the server's answer,
                           new tile included (target <= 150 ms p95; the slide itself lasts
                           100 ms, and the answer is drawn when it ends)
    page weight            the page's own files as served, its texts in every language
                           included, without Telegram's script (target <= 100 KB)

    .venv/bin/python -m benchmarks.miniapp [--moves 400] [--clients 4] [--presses 100]
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable

import aiohttp
from aiohttp import web

from benchmarks import tap
from bot.config import MINIAPP_PATH
from bot.emulator import FakeBotApi
from bot.emulator.webapp import LIGHT_THEME, STAND_IN, TELEGRAM_SCRIPT, init_data, launch_url
from bot.lifecycle import running
from bot.transport.throttle import Throttle
from bot.web.miniapp.api import STATIC, miniapp_routes, page_html
from bot.web.server import build_web_app

CHROMIUM = "/usr/bin/chromium"
DIRECTIONS = ("left", "up", "right", "down")
KEYS = {"left": "ArrowLeft", "up": "ArrowUp", "right": "ArrowRight", "down": "ArrowDown"}
# In the page: per key press, the time to the first frame and to the frame after the answer.
TIMING = """
window.timings = [];
document.addEventListener("keydown", () => {
  const pressed = performance.now();
  const seq = document.body.dataset.seq;
  requestAnimationFrame(() => {
    const first = performance.now() - pressed;
    const watch = new MutationObserver(() => {
      if (document.body.dataset.seq === seq) return;
      watch.disconnect();
      requestAnimationFrame(() => window.timings.push([first, performance.now() - pressed]));
    });
    watch.observe(document.body, { attributes: true, attributeFilter: ["data-seq"] });
  });
}, true);
"""


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def figures(values: list[float]) -> str:
    return f"p50 {statistics.median(values):6.2f} ms   p95 {percentile(values, 0.95):6.2f} ms"


async def _open_boards(api: FakeBotApi, users: range) -> None:
    """Each user's /start, so each has a board in the chat for the page's moves to redraw."""
    for user in users:
        api.add_user(user, f"Player {user}")
        api.send_text(user, user, "/start")
        await api.wait_request("sendMessage", chat_id=user)
        await api.wait_request("sendMessage", chat_id=user)


async def _serve(app: web.Application) -> tuple[web.AppRunner, str]:
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    return runner, f"http://127.0.0.1:{port}"


async def _api_moves(base: str, token: str, users: range, moves: int) -> tuple[int, float]:
    """Every user plays their running game through the API, move after move; (moves, s)."""

    async def play(session: aiohttp.ClientSession, user: int) -> int:
        init = init_data(token, {"id": user, "first_name": f"Player {user}"})
        url = f"{base}{MINIAPP_PATH}/api/"
        async with session.post(url + "open", json={"initData": init}) as r:
            state = await r.json()
            game = state["game"]
        for i in range(moves // len(users)):
            if state["over"]:
                async with session.post(
                    url + "new", json={"initData": init, "game": game, "size": 6}
                ) as r:
                    state = await r.json()
                    game = state["game"]
            body = {
                "initData": init,
                "game": game,
                "seq": state["seq"],
                "action": DIRECTIONS[i % 4],
            }
            async with session.post(url + "move", json=body) as r:
                state = await r.json()
        return moves // len(users)

    async with aiohttp.ClientSession() as session:
        started = time.perf_counter()
        done = await asyncio.gather(*(play(session, user) for user in users))
        return sum(done), time.perf_counter() - started


async def _browser(base: str, token: str, presses: int) -> list[list[float]]:
    """Key presses in Chromium on player 1's running game (opened as the menu button does)."""
    from playwright.async_api import async_playwright

    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"], headless=True
        )
        try:
            context = await browser.new_context(
                viewport={"width": 390, "height": 844},
                is_mobile=True,
                has_touch=True,
                bypass_csp=True,  # the timing script is added from here
            )
            await context.route(
                TELEGRAM_SCRIPT,
                lambda route: route.fulfill(path=STAND_IN, content_type="text/javascript"),
            )
            page = await context.new_page()
            user = {"id": 1, "first_name": "Player 1"}
            await page.goto(launch_url(f"{base}{MINIAPP_PATH}/", token, user, LIGHT_THEME))
            await page.wait_for_selector("body[data-ready=true][data-idle=true]")
            await page.evaluate(TIMING)
            for _ in range(presses):
                direction = await page.evaluate(
                    """async () => {
                      const { slide } = await import("./static/slide.js");
                      const board = document.body.dataset.board.split(",").map(Number);
                      const size = Math.round(Math.sqrt(board.length));
                      return ["left", "up", "right", "down"].find(
                        (d) => slide(board, size, d).changed) || null;
                    }"""
                )
                if direction is None:
                    break
                count = await page.evaluate("window.timings.length")
                await page.keyboard.press(KEYS[direction])
                await page.wait_for_function(f"window.timings.length > {count}")
                await page.wait_for_selector("body[data-idle=true]")
            return await page.evaluate("window.timings")
        finally:
            await browser.close()


def _page_weight() -> tuple[int, int]:
    """The page as served (its texts in every language inside), and its other files."""
    files = [page_html()]
    files += [path.read_bytes() for path in sorted(STATIC.iterdir()) if path.name != "index.html"]
    return sum(len(data) for data in files), sum(len(gzip.compress(data)) for data in files)


async def run(moves: int, clients: int, presses: int) -> None:
    chat = [cost * 1000 for cost in await tap.run(moves, clients)]
    server: list[float] = []

    @web.middleware
    async def timed(
        request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        started = time.perf_counter()
        response = await handler(request)
        if request.path.endswith("/api/move"):
            server.append((time.perf_counter() - started) * 1000)
        return response

    async with FakeBotApi(flood=None) as api:
        with tempfile.TemporaryDirectory() as folder:
            config = tap.bench_config(
                api, folder, webapp_url="https://bench.example.org", hint_workers_at_start=False
            )
            async with running(config, poll_timeout=1) as process:
                # The throttle's waits are deliberate, not the server's work.
                process.miniapp.throttle = Throttle(rate=1e9, burst=1e9)
                app = build_web_app([miniapp_routes(process.miniapp)])
                app.middlewares.append(timed)
                runner, base = await _serve(app)
                try:
                    users = range(1, clients + 1)
                    await _open_boards(api, users)
                    await _api_moves(base, api.token, range(1, 2), moves)
                    api_server = list(server)
                    played, seconds = await _api_moves(base, api.token, users, moves)
                    timings = await _browser(base, api.token, presses)
                finally:
                    await runner.cleanup()
    raw, zipped = _page_weight()
    print(f"server time per move, chat tap ({len(chat)}):  {figures(chat)}")
    print(f"server time per move, Mini App ({len(api_server)}): {figures(api_server)}")
    print(
        f"  Mini App / chat: p50 {statistics.median(api_server) / statistics.median(chat):.2f}x"
        f", p95 {percentile(api_server, 0.95) / percentile(chat, 0.95):.2f}x"
    )
    print(f"Mini App moves/s, one process, {clients} pages at once: {played / seconds:.0f}")
    print(f"key -> first frame ({len(timings)}):  {figures([t[0] for t in timings])}")
    print(f"key -> server tile ({len(timings)}):  {figures([t[1] for t in timings])}")
    print(f"page weight: {raw / 1024:.1f} KB ({zipped / 1024:.1f} KB gzipped), no Telegram script")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=400)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--presses", type=int, default=100)
    args = parser.parse_args()
    asyncio.run(run(args.moves, args.clients, args.presses))


if __name__ == "__main__":
    main()
