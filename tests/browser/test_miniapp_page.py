"""The Mini App's page in a real browser: Debian's Chromium at phone size, with touch.

The page loads from the API's routes on 127.0.0.1 exactly as a Telegram client opens it
(the launch parameters in the URL fragment, bot/emulator/webapp.py), and Telegram's script
is answered by the emulator's stand-in. Every request the page makes is recorded: nothing
may load from anywhere else.

`WEBAPP_SCREENSHOTS=docs .venv/bin/pytest tests/browser/test_miniapp_page.py -k "screenshots or
playground"` also writes the screenshots of docs/playing.md: light, dark, and in the
playground.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
from dataclasses import dataclass
from typing import Any

import pytest
from PIL import Image

import engine
from bot.config import MINIAPP_PATH
from bot.emulator.api import WAIT_TIMEOUT
from bot.emulator.webapp import DARK_THEME, LIGHT_THEME, STAND_IN, TELEGRAM_SCRIPT, launch_url
from bot.playground import open_playground
from bot.presentation import reviews
from bot.presentation.i18n import translator
from bot.transport.throttle import Throttle
from bot.web.miniapp.api import STATIC
from bot.wiring import HINTS_PER_SECOND
from engine.solver import review_game
from tests.engine.test_rules import (
    DIFFERENT_NEVER_MERGE,
    FROZEN,
    GAPS_CLOSE_FIRST,
    INVALID,
    ONE_MERGE_PER_TILE,
    ORACLE,
    PAIRS_FROM_THE_EDGE,
    blank,
    place,
)
from tests.support.boards import CORNER, shown_board
from tests.support.browser import be, chromium, modules_page, type_and_send
from tests.support.databases import one_move_from_over, put_board, stored_game, without_clock
from tests.support.harness import User, eventually
from tests.support.miniapp import HeldReviews, game_id
from tests.support.playground import ANNA
from tests.support.processes import ROOT

# One backend is enough for the browser: the API's own tests run on both.
SQLITE_ONLY = pytest.mark.parametrize("backend", ["sqlite"])
PHONE = {"width": 360, "height": 740}
OFFSETS = {"left": (-90, 0), "right": (90, 0), "up": (0, -90), "down": (0, 90)}
# Resolves once the page's slides and pops have ended (after the next frames start any).
SETTLED = """new Promise((frame) => requestAnimationFrame(() => requestAnimationFrame(frame)))
    .then(() => Promise.all(document.getAnimations().map((animation) => animation.finished)))"""


@dataclass
class Phone:
    page: Any
    requests: list[str]
    # The page's one DevTools session for touch input (one per swipe can drop a touch's end).
    touch: Any


@contextlib.asynccontextmanager
async def phone(url: str, allowed: str):
    """Chromium at phone size with touch, on `url`; only `allowed` and Telegram's script load."""
    async with chromium() as browser:
        context = await browser.new_context(
            viewport=PHONE, device_scale_factor=1, is_mobile=True, has_touch=True
        )
        await context.route(
            TELEGRAM_SCRIPT,
            lambda route: route.fulfill(path=STAND_IN, content_type="text/javascript"),
        )
        page = await context.new_page()
        page.set_default_timeout(20_000)
        failures: list[str] = []
        requests: list[str] = []
        page.on("pageerror", lambda error: failures.append(str(error)))
        page.on("request", lambda request: requests.append(request.url))
        await page.goto(url)
        await page.wait_for_selector("body[data-ready=true][data-idle=true]")
        yield Phone(page, requests, await context.new_cdp_session(page))
        assert not failures, failures
        strangers = [u for u in requests if not u.startswith(allowed) and u != TELEGRAM_SCRIPT]
        assert strangers == []


async def swipe(phone: Phone, direction: str) -> None:
    """One finger across the board, as Chromium's touch input sends it."""
    box = await phone.page.locator("#board").bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    dx, dy = OFFSETS[direction]
    cdp = phone.touch
    points = [(x, y), (x + dx / 2, y + dy / 2), (x + dx, y + dy)]
    await cdp.send(
        "Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [p(points[0])]}
    )
    for point in points[1:]:
        await cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [p(point)]})
    await cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})


def p(point: tuple[float, float]) -> dict[str, float]:
    return {"x": point[0], "y": point[1]}


def board_attribute(board: tuple[int, ...]) -> str:
    return ",".join(str(value) for value in board)


async def shows(page, game: engine.Game) -> None:
    """Wait until the page is idle on exactly this game's board and score."""
    selector = (
        f'body[data-idle=true][data-board="{board_attribute(game.board)}"]'
        f'[data-score="{game.score}"]'
    )
    try:
        await page.wait_for_selector(selector)
    except Exception:
        shown = await page.evaluate("JSON.stringify(document.body.dataset)")
        toast = await page.locator("#toast").inner_text()
        raise AssertionError(f"want {selector}, page shows {shown}, toast {toast!r}") from None


class Expected:
    """The engine's game after the same actions: what page, database and chat must show."""

    def __init__(self, game: engine.Game) -> None:
        self.game = game

    def act(self, action: engine.Action) -> None:
        turn = engine.act(self.game, action, 1.0)
        if turn.changed:
            self.game = turn.game


def page_url(webbot, user: dict, theme: dict[str, str], game: int) -> str:
    page = f"{webbot.web_base}{MINIAPP_PATH}/?game={game}"
    return launch_url(page, webbot.api.token, user, theme)


@SQLITE_ONLY
async def test_swipes_undo_hint_and_keep_going_are_the_chat_game(api, webbot, http):
    anna = User(api, 101, "Anna")
    board = await anna.open_board()
    rows = [[1024, 1024, 0, 0], [0] * 4, [0] * 4, [0, 0, 0, 2]]
    prepared = await put_board(webbot.database, 101, 101, rows, moves=600, score=20000)
    expected = Expected(prepared)
    hints_clock = [0.0]  # one hint, then none until the test moves this clock on
    webbot.process.miniapp.hint_throttle = Throttle(
        rate=HINTS_PER_SECOND, burst=1, clock=lambda: hints_clock[0]
    )
    url = page_url(webbot, api.world.users[101], LIGHT_THEME, game_id(board))
    async with phone(url, webbot.web_base) as phone_:
        page = phone_.page
        calls = "Telegram.WebApp.calls.map((call) => call[0])"
        assert {"ready", "expand", "BackButton.show"} <= set(await page.evaluate(calls))
        await swipe(phone_, "left")  # 1024 + 1024: the 2048 banner
        expected.act("left")
        await shows(page, expected.game)
        assert "HapticFeedback.impactOccurred" in await page.evaluate(calls)
        banner = page.locator("#banner")
        assert "2048!" in await banner.inner_text()
        await banner.get_by_role("button", name="▶️ Keep going").click()
        expected.act("keep")
        await shows(page, expected.game)
        assert await banner.is_hidden()
        pattern = ["left", "up", "right", "up", "down", "left", "up", "right", "up", "left"]
        directions = [pattern[i % len(pattern)] for i in range(50)]
        for burst, start in enumerate(range(0, 50, 10)):
            for direction in directions[start : start + 10]:  # faster than the answers
                await swipe(phone_, direction)
                expected.act(direction)
            await shows(page, expected.game)
            if burst == 0:
                await page.locator("#undo").click()
                expected.act("undo")
                await shows(page, expected.game)
                await page.locator("#hint").click()
                await page.locator("#toast", has_text="💡 Try").wait_for()
                # One hint too many: the page says so as the chat does, and asks again
                # once the hints' budget allows.
                await page.locator("#hint").click()
                easy = "Easy on the hints! Give me a moment to think."
                await page.locator("#toast", has_text=easy).wait_for()
                hints_clock[0] += 1 / HINTS_PER_SECOND
                await page.locator("#toast", has_text="💡 Try").wait_for()
        for key, direction in (("ArrowDown", "down"), ("a", "left"), ("w", "up"), ("D", "right")):
            await page.keyboard.press(key)
            expected.act(direction)
            await shows(page, expected.game)
        await page.evaluate("Telegram.WebApp.pressBackButton()")
        assert (await page.evaluate(calls))[-1] == "close"
    final = expected.game
    assert without_clock(await stored_game(webbot.database, 101, 101)) == without_clock(final)
    assert final.moves > 600 + 40 and final.undos_left == engine.UNDO_LIMIT - 1

    def chat_shows_it() -> bool:
        return shown_board(api.stored_message(101, board.message_id).text) == final.board

    await eventually(chat_shows_it, timeout=30)
    (records,) = await anna.send("/best")
    assert f"Best score: {final.score:,}" in records


@SQLITE_ONLY
async def test_big_tiles_read_as_in_the_chat_drawn_or_merged_on_the_page(api, webbot):
    anna = User(api, 101, "Anna")
    board = await anna.open_board()
    rows = [[65536, 65536, 0, 0], [131072, 0, 0, 0], [0] * 4, [0, 0, 0, 2]]
    expected = Expected(await put_board(webbot.database, 101, 101, rows))
    url = page_url(webbot, api.world.users[101], LIGHT_THEME, game_id(board))
    async with phone(url, webbot.web_base) as phone_:
        page = phone_.page
        labels = "[...document.querySelectorAll('#tiles .tile')].map((t) => t.textContent).sort()"
        assert await page.evaluate(labels) == ["128k", "2", "65536", "65536"]
        await page.keyboard.press("ArrowLeft")
        expected.act("left")
        await shows(page, expected.game)
        await page.evaluate(SETTLED)
        merged = page.locator("#tiles .tile.merge")  # drawn by the page before the answer
        assert await merged.inner_text() == "128k"
        assert await merged.get_attribute("class") == "tile v2048 merge digits4"
        shown = await page.evaluate(labels)
        assert shown.count("128k") == 2 and len(shown) == 4  # and the 2, and the new tile


@SQLITE_ONLY
async def test_a_hint_is_an_arrow_on_the_board_with_its_reason(api, webbot):
    anna = User(api, 101, "Anna", "de")
    board = await anna.open_board()
    expected = Expected(await put_board(webbot.database, 101, 101, CORNER))
    url = page_url(webbot, api.world.users[101], LIGHT_THEME, game_id(board))
    async with phone(url, webbot.web_base) as phone_:
        page = phone_.page
        arrow = page.locator("#arrow")
        await page.get_by_role("button", name="💡 Tipp").click()
        await arrow.wait_for()
        assert await arrow.get_attribute("data-direction") == "right"
        turn = "getComputedStyle(document.querySelector('#arrow b')).rotate"
        assert await page.evaluate(turn) == "none"  # the glyph points right as it is
        reason = "mit jedem anderen Zug verlierst du die Ecke"
        assert await page.locator("#arrow b").text_content() == "➜"
        assert await page.locator("#arrow-reason").text_content() == reason
        # A picture only; in words, a live region says the move and why.
        assert await arrow.get_attribute("aria-hidden") == "true"
        status = page.get_by_role("status")
        assert await status.inner_text() == f"💡 Schieb mal nach rechts ➡️ – {reason}."
        await arrow.wait_for(state="hidden")  # gone by itself after a few seconds
        await page.get_by_role("button", name="💡 Tipp").click()
        await arrow.wait_for()
        await swipe(phone_, "right")  # the next move takes it away
        assert await arrow.is_hidden()
        expected.act("right")
        await shows(page, expected.game)
        assert await arrow.is_hidden()


def _pixel(image: Image.Image, x: float, y: float) -> tuple[int, int, int]:
    return image.getpixel((round(x), round(y)))[:3]


def _rgb(color: str) -> tuple[int, int, int]:
    value = int(color.lstrip("#"), 16)
    return value >> 16, (value >> 8) & 255, value & 255


def _near(seen: tuple[int, int, int], want: tuple[int, int, int]) -> bool:
    return all(abs(a - b) <= 3 for a, b in zip(seen, want, strict=True))


@SQLITE_ONLY
@pytest.mark.parametrize(
    ("theme", "two", "four"),
    [(LIGHT_THEME, "#eee4da", "#ede0c8"), (DARK_THEME, "#4a4f57", "#5d5a4c")],
    ids=["light", "dark"],
)
async def test_screenshots_at_phone_width_light_and_dark(api, webbot, theme, two, four):
    anna = User(api, 101, "Anna")
    board = await anna.open_board()
    rows = [[2, 4, 8, 16], [32, 64, 128, 256], [512, 1024, 0, 0], [0, 0, 0, 2]]
    await put_board(webbot.database, 101, 101, rows)
    url = page_url(webbot, api.world.users[101], theme, game_id(board))
    async with phone(url, webbot.web_base) as phone_:
        page = phone_.page
        await page.wait_for_selector(
            f'body[data-board="{board_attribute(tuple(v for row in rows for v in row))}"]'
        )
        await page.evaluate("document.fonts.ready")
        png = await page.screenshot()
        if os.environ.get("WEBAPP_SCREENSHOTS"):
            name = "light" if theme is LIGHT_THEME else "dark"
            (ROOT / os.environ["WEBAPP_SCREENSHOTS"] / f"webapp-{name}.png").write_bytes(png)
        box = await page.locator("#board").bounding_box()
        first = await page.locator("#cells .cell").first.bounding_box()
    image = Image.open(io.BytesIO(png)).convert("RGB")
    assert image.width == PHONE["width"]
    # The page's own background is the theme's.
    assert _near(_pixel(image, 2, image.height - 2), _rgb(theme["bg_color"]))
    gap, cell = first["x"] - box["x"], first["width"]
    colours = {2: two, 4: four, 8: "#f2b179", 16: "#f59563", 512: "#edc850", 1024: "#edc53f"}
    empty = []
    for r, row in enumerate(rows):
        for c, value in enumerate(row):
            # The tile's centre column, above its number.
            x = box["x"] + gap + c * (cell + gap) + cell / 2
            y = box["y"] + gap + r * (cell + gap) + cell * 0.15
            seen = _pixel(image, x, y)
            if value == 0:
                empty.append(seen)
            elif value in colours:
                assert _near(seen, _rgb(colours[value])), (value, seen)
    assert len(set(empty)) == 1 and not _near(empty[0], _rgb(two))


def _rule_cases() -> list[tuple[list[list[int]], str]]:
    """Every board and direction of tests/engine/test_rules.py's slide tables."""
    cases = []
    for param in ORACLE:
        before, direction, _, _ = param.values
        for row_index in (0, 3):
            board = blank(4)
            board[row_index] = list(before)
            cases.append((board, direction))
    for table in (ONE_MERGE_PER_TILE, PAIRS_FROM_THE_EDGE, GAPS_CLOSE_FIRST, DIFFERENT_NEVER_MERGE):
        for param in table:
            line = param.values[0]
            for direction in ("left", "right", "up", "down"):
                for index in range(4):
                    for others in (None, FROZEN):
                        cases.append(
                            (place(line, direction, index=index, others=others), direction)
                        )
    for param in INVALID:
        cases.append((param.values[0], param.values[1]))
    columns = [[4, 0, 2, 16], [4, 8, 0, 0], [4, 0, 2, 0], [0, 8, 4, 16]]
    cases += [(columns, "up"), (columns, "down")]
    cases.append(([[2, 2, 2, 2], [0, 4, 4, 8], [8, 0, 0, 8], [2, 4, 8, 16]], "right"))
    for size, row in (
        (5, [2, 2, 2, 2, 2]),
        (6, [2, 2, 2, 2, 2, 2]),
        (6, [2, 0, 2, 0, 4, 4]),
        (6, [0, 0, 0, 0, 0, 65536]),
        (6, [131072, 131072, 0, 0, 0, 0]),
    ):
        board = blank(size)
        board[size - 1] = row
        cases.append((board, "left"))
    return cases


async def test_the_pages_slide_equals_the_engine_on_every_rule_case():
    cases = _rule_cases()
    assert len(cases) > 300
    async with chromium() as browser:
        page = await modules_page(browser, STATIC)
        results = await page.evaluate(
            """async (cases) => {
              const { slide } = await import("./slide.js");
              return cases.map(([rows, direction]) => {
                const size = rows.length;
                const result = slide(rows.flat(), size, direction);
                const rowsAfter = [];
                for (let r = 0; r < size; r++) {
                    rowsAfter.push(result.board.slice(r * size, (r + 1) * size));
                }
                return [rowsAfter, result.gained];
              });
            }""",
            cases,
        )
    for (rows, direction), (after, gained) in zip(cases, results, strict=True):
        assert engine.slide(rows, direction) == (after, gained), (rows, direction)


async def test_the_playgrounds_swipe_button_opens_the_mini_app_beside_the_chat(tmp_path):
    database = tmp_path / "playground.sqlite3"
    async with open_playground(0, database, poll_timeout=1) as playground, chromium() as browser:
        page = await browser.new_page(viewport={"width": 1200, "height": 800})
        page.set_default_timeout(20_000)
        failures: list[str] = []
        page.on("pageerror", lambda error: failures.append(str(error)))
        await page.goto(playground.url)
        await page.wait_for_selector("body[data-ready=true]")
        await be(page, ANNA, "Anna")
        await type_and_send(page, "/start")
        board = page.locator(".msg.bot.has-keyboard").filter(has=page.locator(".emoji-grid"))
        await board.last.locator(".kb-button", has_text="👆 Swipe").click()
        frame = page.frame_locator("#mini-app-frame")
        await frame.locator("body[data-ready=true][data-idle=true]").wait_for()
        mini_app = page.frame(url=lambda url: "/app/" in url)
        assert mini_app is not None
        opening = await mini_app.evaluate("document.body.dataset.seq")
        await frame.locator("#board").click()  # the keys go to the frame from now on
        for key in ("ArrowLeft", "ArrowUp", "ArrowRight", "ArrowDown"):
            await page.keyboard.press(key)
        await frame.locator(f'body[data-idle=true]:not([data-seq="{opening}"])').wait_for()
        shown = await mini_app.evaluate("document.body.dataset.board")
        api = playground.api

        def chat_shows_it() -> bool:
            message = api.last_bot_message(ANNA)
            stored = api.stored_message(ANNA, message["message_id"])
            return ",".join(map(str, shown_board(stored.text))) == shown

        await eventually(chat_shows_it, timeout=30)
        if os.environ.get("WEBAPP_SCREENSHOTS"):
            path = ROOT / os.environ["WEBAPP_SCREENSHOTS"] / "webapp-playground.png"
            await page.locator(".msg[data-message-id] .emoji-grid >> nth=-1").wait_for()
            path.write_bytes(await page.screenshot())
        await mini_app.evaluate("Telegram.WebApp.pressBackButton()")
        await page.locator("#mini-app").wait_for(state="hidden")
        assert not failures, failures


@SQLITE_ONLY
async def test_game_over_offers_a_new_game_in_any_size(api, webbot):
    anna = User(api, 101, "Anna")
    board = await anna.open_board()
    # One empty cell; sliding left moves it to the corner, and a 2 or a 4 there has no pair.
    rows = [[2, 4, 2, 4], [4, 2, 4, 2], [2, 4, 2, 8], [0, 8, 16, 32]]
    await put_board(webbot.database, 101, 101, rows, moves=30)
    url = page_url(webbot, api.world.users[101], DARK_THEME, game_id(board))
    async with phone(url, webbot.web_base) as phone_:
        page = phone_.page
        await swipe(phone_, "left")
        banner = page.locator("#banner")
        await banner.get_by_text("Game over").wait_for()
        offered = banner.get_by_role("button")
        # What the banner's text offers, by name: undo, review, or a new game.
        assert await offered.all_inner_texts() == ["↩️ Undo", "🔎 Review", "🆕 New game"]
        await banner.get_by_role("button", name="🆕 New game").click()
        await banner.get_by_text("Pick a board size:").wait_for()
        assert await offered.all_inner_texts() == ["Classic 4×4", "Large 5×5", "Huge 6×6"]
        mark = api.mark()
        await banner.get_by_role("button", name="Large 5×5").click()
        await page.wait_for_selector("body[data-idle=true][data-seq='0']")
        assert len((await page.get_attribute("body", "data-board")).split(",")) == 25
        assert await banner.is_hidden()
    sent = await api.wait_request("sendMessage", after=mark, chat_id=101, timeout=30)
    assert "Large 5×5" in sent.params["text"]
    assert (await stored_game(webbot.database, 101, 101)).size == 5


# The board the tiles on the page make, cell by cell (0 for an empty one).
TILES = """() => {
  const n = Number(getComputedStyle(document.getElementById("board")).getPropertyValue("--n"));
  const cells = Array(n * n).fill(0);
  for (const tile of document.querySelectorAll("#tiles .tile")) {
    const r = Number(tile.style.getPropertyValue("--r"));
    cells[r * n + Number(tile.style.getPropertyValue("--c"))] = Number(tile.dataset.value);
  }
  return cells;
}"""
# Every text of the review's view that does not fit its box, or goes past the screen's edge.
CUT = """() => [...document.querySelectorAll("#steps button, #step, #review span, #banner button")]
  .filter((e) => e.offsetParent !== null)
  .filter((e) => e.scrollWidth > e.clientWidth + 1
    || e.getBoundingClientRect().right > innerWidth + 0.5)
  .map((e) => e.textContent)"""
REVIEW_BUTTONS = {
    "en": ("🔎 Review", "◀️ Back", "Next ▶️", "✖️ Close"),
    "nl": ("🔎 Analyse", "◀️ Vorige", "Volgende ▶️", "✖️ Sluiten"),
    "de": ("🔎 Analyse", "◀️ Zurück", "Weiter ▶️", "✖️ Schließen"),
}
CODES = {"l": "left", "r": "right", "u": "up", "d": "down"}


@SQLITE_ONLY
@pytest.mark.parametrize("language", ["en", "nl", "de"])
async def test_a_finished_games_review_is_stepped_through_on_the_board(
    api, webbot, language, monkeypatch
):
    """🔎 on the game-over banner: the page says the review is on its way until it is made,
    then each costly move on its position, the player's move and the better one as two
    labelled arrows, Back and Next, no move taken meanwhile, and Close brings the live board
    back as it was; every label fits a 360-px phone."""
    anna = User(api, 101, "Anna", language)
    codes = await one_move_from_over(webbot.database, 101, seed=5)
    board = await anna.open_board()
    t = translator(language)
    made = review_game(4, 5, codes)
    costs = sorted(made.costliest, key=lambda cost: cost.number)
    assert len(costs) == 3
    open_, back, next_, close = REVIEW_BUTTONS[language]
    url = page_url(webbot, api.world.users[101], LIGHT_THEME, game_id(board))
    async with phone(url, webbot.web_base) as phone_:
        page = phone_.page
        await page.keyboard.press(f"Arrow{CODES[codes[-1]].capitalize()}")
        banner = page.locator("#banner")
        await banner.get_by_role("button", name=open_).wait_for()
        live = await page.evaluate(TILES)
        live_board = await page.get_attribute("body", "data-board")
        held = HeldReviews(webbot, monkeypatch)
        await banner.get_by_role("button", name=open_).click()
        await asyncio.wait_for(held.asked.wait(), WAIT_TIMEOUT)
        await page.locator("#toast", has_text=reviews.on_its_way(t)).wait_for()
        step = page.locator("#step")
        assert await step.is_hidden() and await banner.is_visible()
        held.released.set()
        await step.wait_for()
        assert await page.locator("#toast").inner_text() == reviews.totals(t, made)
        assert await banner.is_hidden() and await page.locator("#tools").is_hidden()
        assert await page.evaluate(CUT) == []
        for index, cost in enumerate(costs):
            if index:
                await page.get_by_role("button", name=next_).click()
            title = reviews.move_title(t, cost.number)
            assert await step.inner_text() == f"{title} · {reviews.cost(t, 4, cost.loss)}"
            assert await page.evaluate(TILES) == list(cost.board)  # the position, before it
            yours, better = page.locator("#yours"), page.locator("#better")
            assert await yours.get_attribute("data-direction") == cost.played
            assert await better.get_attribute("data-direction") == cost.best
            assert await yours.locator("span").inner_text() == reviews.your_move(t, cost.played)
            assert await better.locator("span").inner_text() == reviews.better_move(t, cost.best)
            assert await page.get_by_role("button", name=back).is_disabled() == (index == 0)
            assert await page.get_by_role("button", name=next_).is_disabled() == (index == 2)
            assert await page.evaluate(CUT) == []
        # Told apart by their labels, and by colour too.
        colour = "(id) => getComputedStyle(document.querySelector(`#${id} b`)).color"
        assert await page.evaluate(colour, "yours") != await page.evaluate(colour, "better")
        # Swipes and keys take no move while the review shows.
        calls = len(phone_.requests)
        await swipe(phone_, "up")
        await page.keyboard.press("ArrowLeft")
        await page.evaluate(SETTLED)
        assert phone_.requests[calls:] == []
        assert await page.evaluate(TILES) == list(costs[-1].board)
        await page.get_by_role("button", name=back).click()
        assert await page.evaluate(TILES) == list(costs[1].board)
        await page.get_by_role("button", name=close).click()
        assert await step.is_hidden() and await page.locator("#yours").is_hidden()
        assert await page.evaluate(TILES) == live
        assert await page.get_attribute("body", "data-board") == live_board
        assert await banner.get_by_role("button", name=open_).is_visible()
        assert await page.locator("#tools").is_visible()


@SQLITE_ONLY
async def test_a_new_game_started_while_the_review_is_made_stays_in_play(api, webbot, monkeypatch):
    """The page is not held up by a review being made: a new game starts meanwhile, and the
    review, once made, does not take its board over; the new game goes on."""
    anna = User(api, 101, "Anna")
    codes = await one_move_from_over(webbot.database, 101, seed=5)
    board = await anna.open_board()
    url = page_url(webbot, api.world.users[101], LIGHT_THEME, game_id(board))
    held = HeldReviews(webbot, monkeypatch)
    async with phone(url, webbot.web_base) as phone_:
        page = phone_.page
        await page.keyboard.press(f"Arrow{CODES[codes[-1]].capitalize()}")
        banner = page.locator("#banner")
        await banner.get_by_role("button", name="🔎 Review").click()
        await asyncio.wait_for(held.asked.wait(), WAIT_TIMEOUT)
        await page.locator("#toast", has_text=reviews.on_its_way(translator("en"))).wait_for()
        finished = await page.get_attribute("body", "data-game")
        await banner.get_by_role("button", name="🆕 New game").click()
        await banner.get_by_role("button", name="Classic 4×4").click()
        await page.wait_for_selector(
            f"body[data-idle=true][data-seq='0']:not([data-game='{finished}'])"
        )
        assert await page.get_attribute("body", "data-making") == "true"
        held.released.set()
        await page.wait_for_selector("body:not([data-making])")
        assert await page.locator("#step").is_hidden() and await banner.is_hidden()
        assert await page.locator("#toast").inner_text() == ""
        cells = tuple(map(int, (await page.get_attribute("body", "data-board")).split(",")))
        direction = next(d for d in engine.DIRECTIONS if engine.move(cells, 4, d)[0] != cells)
        await page.keyboard.press(f"Arrow{direction.capitalize()}")
        await page.wait_for_selector("body[data-idle=true][data-seq='1']")
