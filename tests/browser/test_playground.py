"""The browser playground: its JSON API, `python -m bot --playground`, and a real browser.

The browser tests drive Debian's Chromium (/usr/bin/chromium) with Playwright for Python;
Playwright's own browser download is never used. Outside CI they are skipped when that
Chromium is missing; with CI set they always run.

`PLAYGROUND_SCREENSHOT=docs/playground.png .venv/bin/pytest tests/test_playground.py -k flow`
also writes the README's screenshot, through the same code path as the test's own;
`SHARED_CARD_SCREENSHOT=docs/shared-card.png ... -k shares` writes the shared card's.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import socket
import sys
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.ext import ApplicationHandlerStop, CallbackQueryHandler, ContextTypes

from bot.playground import GROUP_ID, PLAYERS, open_playground
from bot.playground.server import first_message_id
from bot.presentation.i18n import translator
from bot.presentation.render import LADDER
from tests.support.boards import shown_board
from tests.support.databases import stored_game
from tests.support.harness import eventually
from tests.support.processes import ROOT, playground_env, start_playground, stop_cleanly

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ANNA, DAAN, LENA = (player.id for player in PLAYERS)
ARROWS = ("⬅️", "⬆️", "➡️", "⬇️")


# Nothing a player does here may be logged as an error.
pytestmark = pytest.mark.usefixtures("no_errors_logged")


@pytest.fixture
async def playground(tmp_path):
    async with open_playground(0, tmp_path / "playground.sqlite3", poll_timeout=1) as running:
        yield running


@pytest.fixture
async def http():
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30)) as session:
        yield session


def plain(html: str) -> str:
    return re.sub(r"<[^>]+>", "", html)


# ----- the JSON API ------------------------------------------------------------------------


class EventStream:
    """Reads the page's server-sent events."""

    def __init__(self, response: aiohttp.ClientResponse) -> None:
        self.response = response

    async def next(self, *kinds: str, timeout: float = 5.0) -> dict[str, Any]:
        async def read() -> dict[str, Any]:
            kind, data = None, []
            while True:
                line = (await self.response.content.readline()).decode()
                if not line:
                    raise EOFError("the event stream ended")
                line = line.rstrip("\n")
                if line.startswith("event:"):
                    kind = line.removeprefix("event:").strip()
                elif line.startswith("data:"):
                    data.append(line.removeprefix("data:").strip())
                elif not line:
                    if kind in kinds and data:
                        return json.loads("\n".join(data))
                    kind, data = None, []

        return await asyncio.wait_for(read(), timeout)


async def call(
    http: aiohttp.ClientSession, method: str, url: str, body: Any = None, status: int = 200
) -> dict[str, Any]:
    async with http.request(method, url, json=body) as response:
        data = await response.json()
        assert response.status == status, data
        return data


async def test_the_api_lists_players_with_their_chats(playground, http):
    state = await call(http, "GET", playground.url + "api/state")
    assert state["bot"]["username"] == playground.api.bot_username
    players = {p["first_name"]: p for p in state["players"]}
    assert {name: p["language_code"] for name, p in players.items()} == {
        "Anna": "en",
        "Daan": "nl",
        "Lena": "de",
    }
    private, group = players["Daan"]["chats"]
    assert private == {"id": DAAN, "type": "private", "title": "2048"}
    assert group["id"] == GROUP_ID and group["title"] == "2048 Club"
    assert group["members"] == 4 and group["admins"] == [ANNA]


async def test_start_as_a_dutch_player_through_the_api_then_tap(playground, http):
    url, bot_id = playground.url, playground.api.bot_id
    async with http.get(url + "api/events") as response:
        events = EventStream(response)
        sent = await call(
            http, "POST", url + f"api/chats/{DAAN}/messages", {"user_id": DAAN, "text": "/start"}
        )
        assert sent["message"]["entities"] == [{"type": "bot_command", "offset": 0, "length": 6}]
        board = None
        while board is None:
            message = (await events.next("message"))["message"]
            if message["from"]["id"] == bot_id and "reply_markup" in message:
                board = message
        listed = (await call(http, "GET", url + f"api/chats/{DAAN}/messages?user_id={DAAN}"))[
            "messages"
        ]
        assert [m["from"]["id"] for m in listed] == [DAAN, bot_id, bot_id]
        assert "Daan" in listed[1]["text"]
        score_word = plain(translator("nl")._("Score: <b>{score}</b> · Best: {best}")).split(":")[0]
        assert score_word in board["text"]
        assert {"type": "bold", "offset": 0, "length": 4} in board["entities"]  # <b>2048</b>

        buttons = {
            b["text"]: b["callback_data"]
            for row in board["reply_markup"]["inline_keyboard"]
            for b in row
            if "callback_data" in b  # not the 👆 Swipe button, which opens the Mini App
        }
        tap_url = url + f"api/chats/{DAAN}/messages/{board['message_id']}/tap"
        for arrow in ARROWS:
            tapped = await call(http, "POST", tap_url, {"user_id": DAAN, "data": buttons[arrow]})
            if tapped["answer"]["text"] is None:  # the move was made: the board is edited
                edited = (await events.next("edit"))["message"]
                assert edited["message_id"] == board["message_id"]
                assert edited["text"] != board["text"] and "edit_date" in edited
                break
            assert tapped["answer"]["text"] == translator("nl")._("Nothing moves that way.")
        else:
            pytest.fail("no arrow moved the board")


async def test_the_api_refuses_what_a_client_could_not_do(playground, http):
    url = playground.url
    messages = url + f"api/chats/{DAAN}/messages"
    async with http.post(messages, data="user_id=1002&text=hi") as response:
        assert response.status == 415  # forms are refused: cross-site posts cannot act
    await call(http, "POST", messages, {"user_id": ANNA, "text": "hi"}, status=403)
    await call(http, "GET", messages + f"?user_id={ANNA}", status=403)
    await call(http, "POST", messages, {"user_id": 4242, "text": "hi"}, status=400)
    await call(http, "POST", messages, {"user_id": DAAN, "text": "  "}, status=400)
    await call(http, "POST", messages, {"user_id": DAAN, "text": "x" * 4097}, status=400)
    await call(http, "POST", url + "api/chats/-1/messages", {"user_id": DAAN, "text": "hi"}, 404)
    sent = await call(http, "POST", messages, {"user_id": DAAN, "text": "<b>hi</b> &amp;"})
    assert sent["message"]["text"] == "<b>hi</b> &amp;" and "entities" not in sent["message"]
    error = await call(
        http,
        "POST",
        messages + f"/{sent['message']['message_id']}/tap",
        {"user_id": DAAN, "data": "g:1:l"},
        status=400,
    )
    assert "has no button" in error["error"]
    async with http.get(url + "static/web.py") as response:
        assert response.status == 404


async def test_editing_a_player_changes_what_the_bot_sees(playground, http):
    url = playground.url
    edited = await call(
        http, "PUT", url + f"api/players/{ANNA}", {"first_name": "Anneke", "language_code": "nl"}
    )
    assert edited["player"]["first_name"] == "Anneke"
    await call(
        http, "PUT", url + f"api/players/{ANNA}", {"first_name": "", "language_code": "x"}, 400
    )
    mark = playground.api.mark()
    await call(
        http, "POST", url + f"api/chats/{ANNA}/messages", {"user_id": ANNA, "text": "/start"}
    )
    greeting = await playground.api.wait_request("sendMessage", chat_id=ANNA, after=mark)
    assert "Anneke" in greeting.params["text"]
    polls = playground.api.find_requests("getUpdates", after=mark)
    users = [u["message"]["from"] for r in polls for u in r.result or [] if "message" in u]
    assert users[-1]["first_name"] == "Anneke" and users[-1]["language_code"] == "nl"


async def test_the_page_is_served_locked_down_and_only_under_loopback_names(playground, http):
    async with http.get(playground.url) as response:
        assert response.status == 200
        policy = response.headers["Content-Security-Policy"]
        assert "script-src 'self'" in policy and "default-src 'none'" in policy
    rebound = {"Host": f"attacker.example:{playground.api.port}"}
    async with http.get(playground.url + "api/state", headers=rebound) as response:
        assert response.status == 403
    async with http.get(playground.url.replace("127.0.0.1", "localhost") + "api/state") as response:
        assert response.status == 200
    get_me = f"{playground.api.base_url}{playground.api.token}/getMe"
    async with http.get(get_me, headers=rebound) as response:
        assert response.status == 200  # the Bot API side answers any name, as Telegram does


def test_each_run_starts_its_message_ids_above_the_last_runs():
    new_year_2026 = 1_767_225_600
    assert first_message_id(new_year_2026 + 3600) == first_message_id(new_year_2026) + 3600
    assert first_message_id(3_786_912_000) < 2**31  # 2090-01-01: still a 32-bit id
    assert first_message_id(0) == 1


async def test_a_restarted_playground_never_reuses_a_message_id(tmp_path, monkeypatch):
    database = tmp_path / "playground.sqlite3"
    clock = [1_767_225_600.0]
    monkeypatch.setattr("bot.playground.server.time.time", lambda: clock[0])
    async with open_playground(0, database, poll_timeout=1) as first:
        first.api.send_text(DAAN, DAAN, "/start")
        board = await first.api.wait_request("sendMessage", chat_id=DAAN, reply_markup=bool)
        first_id = board.result["message_id"]
    clock[0] += 5
    async with open_playground(0, database, poll_timeout=1) as second:
        second.api.send_text(DAAN, DAAN, "/start")
        again = await second.api.wait_request("sendMessage", chat_id=DAAN, reply_markup=bool)
        assert again.result["message_id"] > first_id
        assert second.api.last_bot_message(DAAN)["text"] == board.result["text"]  # same game


# ----- the command line ----------------------------------------------------------------------


async def test_python_m_bot_playground_serves_the_page_and_stops_on_sigterm(tmp_path, http):
    database = tmp_path / "playground.sqlite3"
    process = await start_playground(ROOT, BOT_DATABASE=str(database), LOG_LEVEL="WARNING")
    try:
        line = (await asyncio.wait_for(process.stdout.readline(), 30)).decode()
        found = re.fullmatch(
            r"2048 playground: open (http://127\.0\.0\.1:\d+/) \(Ctrl\+C to stop\)\n", line
        )
        assert found, line
        async with http.get(found.group(1)) as response:
            assert response.status == 200
            assert "<title>2048 playground</title>" in await response.text()
        state = await call(http, "GET", found.group(1) + "api/state")
        assert [p["first_name"] for p in state["players"]] == ["Anna", "Daan", "Lena"]
    except BaseException:
        process.kill()
        raise
    await stop_cleanly(process)
    assert database.exists()


@pytest.mark.parametrize(
    ("args", "env", "message"),
    [
        (["--port", "9000"], {}, "--port only applies to --playground"),
        (["--playground"], {"LOG_LEVEL": "LOUD"}, "LOG_LEVEL must be one of"),
        (["--playground", "--port", "{busy}"], {}, "cannot listen on 127.0.0.1:"),
    ],
)
def test_playground_mistakes_are_one_line_and_exit_code_2(tmp_path, args, env, message):
    import subprocess

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = str(busy.getsockname()[1])
        done = subprocess.run(
            [sys.executable, "-m", "bot", *(a.replace("{busy}", port) for a in args)],
            cwd=ROOT,
            env=playground_env(BOT_DATABASE=str(tmp_path / "db.sqlite3"), **env),
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 2
    assert message in done.stderr
    assert "Traceback" not in done.stderr


# ----- in a real browser -------------------------------------------------------------------


@contextlib.asynccontextmanager
async def chromium_page(url: str, width: int = 800, height: int = 700):
    """A fresh headless Chromium (Debian's) on the playground page, 800 px wide."""
    if not CHROMIUM.exists() and not os.environ.get("CI"):
        pytest.skip("Debian's chromium is not installed (/usr/bin/chromium); .ci/run installs it")
    if os.environ.get("CI"):
        from playwright.async_api import async_playwright
    else:
        async_playwright = pytest.importorskip("playwright.async_api").async_playwright
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True
        )
        try:
            context = await browser.new_context(
                viewport={"width": width, "height": height},
                locale="nl-NL",
                timezone_id="Europe/Amsterdam",
            )
            page = await context.new_page()
            page.set_default_timeout(60_000)  # generous: Chromium on a busy machine is slow
            failures: list[str] = []
            page.on("pageerror", lambda error: failures.append(str(error)))
            await page.goto(url)
            await page.wait_for_selector("body[data-ready=true]")
            yield page
            assert not failures, failures
        finally:
            await browser.close()


async def save_screenshot(page: Any, path: Path) -> Path:
    """The page as the player sees it: no toast in the way, no caret, 800 px wide."""
    await page.mouse.move(1, 1)
    await page.locator("#toast").wait_for(state="hidden")
    path.parent.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=str(path), animations="disabled", caret="hide")
    return path


async def type_and_send(page: Any, text: str) -> None:
    await page.fill("#text", text)
    await page.press("#text", "Enter")


async def be(page: Any, user_id: int, name: str) -> None:
    await page.select_option("#player", str(user_id))
    await page.locator("#player option:checked").filter(has_text=name).wait_for(state="attached")
    await page.locator(f'.chat-item.active[data-chat-id="{user_id}"]').wait_for()


async def grid_of(page: Any, message_id: str) -> str:
    return await page.locator(f'[data-message-id="{message_id}"] .emoji-grid').inner_text()


async def wait_grid(
    page: Any, message_id: str, *, equal: str | None = None, differ: str | None = None
):
    await page.wait_for_function(
        """([id, equal, differ]) => {
            const grid = document.querySelector(`[data-message-id="${id}"] .emoji-grid`);
            if (!grid) return false;
            return equal !== null ? grid.textContent === equal : grid.textContent !== differ;
        }""",
        arg=[message_id, equal, differ],
    )


async def tap_arrow(page: Any, api: Any, board: Any, board_id: str, arrow: str) -> bool:
    """Tap an arrow; True once the board has changed, False after the "nothing moves" toast."""
    before = await grid_of(page, board_id)
    mark = api.mark()
    await board.locator(".kb-button", has_text=arrow).click()
    answer = await api.wait_request("answerCallbackQuery", after=mark)
    if answer.params.get("text") is None:
        await wait_grid(page, board_id, differ=before)
        return True
    await page.locator("#toast", has_text=answer.params["text"]).wait_for()
    return False


async def settle(page: Any, api: Any, database: Path, chat_id: int, message_id: str) -> None:
    """Wait until the bot has drawn the saved game (edits are paced) and the page shows it."""
    saved = (await stored_game(database, chat_id, chat_id)).board  # every tap was answered
    shown = lambda: api.stored_message(chat_id, int(message_id)).text  # noqa: E731
    await eventually(lambda: shown_board(shown()) == saved)
    text = shown()
    cells = set(LADDER)
    grid = [line for line in text.split("\n") if line and set(line) <= cells]
    await wait_grid(page, message_id, equal="\n".join(grid))


async def test_browser_flow_dutch_player_plays_undoes_reads_rules_and_switches(
    playground, tmp_path
):
    api = playground.api
    nl = translator("nl")
    async with chromium_page(playground.url) as page:
        await be(page, DAAN, "Daan")
        await type_and_send(page, "/start")
        board = page.locator(".msg.bot.has-keyboard").filter(has=page.locator(".emoji-grid")).last
        await board.wait_for()
        assert "Daan" in await page.locator(".msg.bot .text").first.inner_text()
        board_id = await board.get_attribute("data-message-id")
        start = await grid_of(page, board_id)
        assert len(start.splitlines()) == 4

        for arrow in ARROWS:  # tap arrows until the board changes
            if await tap_arrow(page, api, board, board_id, arrow):
                break
        else:
            pytest.fail("no arrow moved the board")
        assert await grid_of(page, board_id) != start

        await board.locator(".kb-button", has_text="↩️").click()
        await wait_grid(page, board_id, equal=start)

        await type_and_send(page, "/rules")
        heading = plain(nl._("<b>How to play 2048</b>"))
        await page.locator(".msg.bot .text b", has_text=heading).wait_for()

        await be(page, LENA, "Lena")
        assert await page.locator("#chat-title").inner_text() == "2048"
        assert await page.locator("#messages .msg").count() == 0  # Lena's own private chat
        await type_and_send(page, "/start")
        await page.locator(".msg.bot .emoji-grid").wait_for()
        assert "Lena" in await page.locator(".msg.bot .text").first.inner_text()
        hostile = "<b>not bold</b> & <img src=x onerror=alert(1)>"
        await type_and_send(page, hostile)
        mine = page.locator(".msg.out .text").last
        await mine.filter(has_text="not bold").wait_for()
        assert await mine.inner_text() == hostile
        assert await mine.locator("b, img").count() == 0

        await be(page, DAAN, "Daan")
        await page.locator(".msg.bot .text b", has_text=heading).wait_for()
        assert await grid_of(page, board_id) == start  # Daan's chat as he left it
        # The same game again at the bottom, a few moves in: the README's picture.
        await type_and_send(page, "/start")
        await page.locator(".msg.bot.has-keyboard").nth(1).wait_for()
        latest = page.locator(".msg.bot.has-keyboard").last
        latest_id = await latest.get_attribute("data-message-id")
        assert latest_id != board_id and await grid_of(page, latest_id) == start
        moves = 0
        while moves < 16:  # down-left corner play at a player's pace, for a board worth a picture
            for arrow in ("⬇️", "⬅️", "➡️", "⬆️"):
                mark = api.mark()
                await latest.locator(".kb-button", has_text=arrow).click()
                answer = await api.wait_request("answerCallbackQuery", after=mark)
                if answer.params.get("text") is None:
                    moves += 1
                    break
        await settle(page, api, tmp_path / "playground.sqlite3", DAAN, latest_id)
        shot = await save_screenshot(page, tmp_path / "playground.png")
        assert shot.stat().st_size > 10_000
        if os.environ.get("PLAYGROUND_SCREENSHOT"):
            await save_screenshot(page, ROOT / os.environ["PLAYGROUND_SCREENSHOT"])


async def loaded_width(page: Any, selector: str) -> int:
    """The intrinsic width of the last picture or video matching `selector`, once loaded."""
    handle = await page.wait_for_function(
        """(selector) => {
            const nodes = document.querySelectorAll(selector);
            const node = nodes[nodes.length - 1];
            if (!node) return false;
            const width = node.tagName === "VIDEO" ? node.videoWidth : node.naturalWidth;
            return width > 0 ? width : false;
        }""",
        arg=selector,
    )
    return await handle.json_value()


async def test_browser_shares_a_card_and_a_replay_and_posts_a_duel_in_the_group(
    playground, tmp_path
):
    api = playground.api
    async with chromium_page(playground.url) as page:
        await be(page, ANNA, "Anna")
        await type_and_send(page, "/start")
        board = page.locator(".msg.bot.has-keyboard").filter(has=page.locator(".emoji-grid")).last
        await board.wait_for()
        board_id = await board.get_attribute("data-message-id")
        moves = 0
        while moves < 8:
            for arrow in ("⬇️", "⬅️", "➡️", "⬆️"):
                if await tap_arrow(page, api, board, board_id, arrow):
                    moves += 1
                    break
        if os.environ.get("SHARED_CARD_SCREENSHOT"):  # the README's picture: a real game
            await play_on(api, ANNA, int(board_id), taps=400)
            await settle(page, api, ANNA, board_id)

        await type_and_send(page, "/share")
        assert await loaded_width(page, ".msg.bot img.media") == 640
        card = page.locator(".msg.bot").filter(has=page.locator("img.media")).last
        assert "Anna" in await card.locator(".text").inner_text()
        assert await card.locator(".kb-button", has_text="▶️").count() == 1

        await type_and_send(page, "/replay")
        assert await loaded_width(page, ".msg.bot video.media") == 640

        # The 📤 of inline mode, by hand: "@bot" in the group, then pick the duel.
        await page.locator(f'.chat-item[data-chat-id="{GROUP_ID}"]').click()
        await page.fill("#text", f"@{api.bot_username}")
        choice = page.locator("#inline-results .inline-result").first
        await choice.wait_for()
        assert await loaded_width(page, "#inline-results img.inline-thumb") == 640
        await choice.click()
        posted = page.locator(".msg").filter(has=page.locator(".via")).last
        await posted.wait_for()
        await page.locator("#inline-results").wait_for(state="hidden")
        assert await loaded_width(page, ".msg .via ~ img.media") == 640
        assert f"@{api.bot_username}" in await posted.locator(".via").inner_text()
        await settle_pictures(page)
        shot = await save_screenshot(page, tmp_path / "shared.png")
        assert shot.stat().st_size > 10_000
        if os.environ.get("SHARED_CARD_SCREENSHOT"):
            await save_screenshot(page, ROOT / os.environ["SHARED_CARD_SCREENSHOT"])


async def play_on(api: Any, chat_id: int, message_id: int, taps: int) -> None:
    """Tap on as a player keeping to the bottom-left corner, until game over or `taps`."""
    for tap in range(taps):
        markup = api.stored_message(chat_id, message_id).reply_markup or {}
        data = {
            b["text"]: b.get("callback_data")
            for row in markup.get("inline_keyboard", [])
            for b in row
        }
        arrow = ("⬇️", "⬅️", "⬇️", "➡️")[tap % 4] if tap % 23 else "⬆️"
        if arrow not in data:  # game over: only "new game" (and undo) are left
            return
        answer = await api.wait_answer(api.tap(chat_id, chat_id, message_id, data[arrow]))
        while (answer.get("text") or "").startswith("Easy there"):  # the tap rate's limit
            await asyncio.sleep(0.2)
            answer = await api.wait_answer(api.tap(chat_id, chat_id, message_id, data[arrow]))


async def settle_pictures(page: Any) -> None:
    """Every picture in the chat loaded and the view at the bottom, for a steady screenshot."""
    await page.wait_for_function(
        "[...document.querySelectorAll('#messages img')].every((img) => img.complete)"
    )
    await page.evaluate("document.getElementById('messages').scrollTop = 1e9")


async def test_browser_renders_telegram_html_links_alerts_and_the_group(playground):
    api, bot = playground.api, playground.application.bot
    username = api.bot_username

    async def alert_button(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        await update.callback_query.answer("Just an <alert> & nothing else", show_alert=True)
        raise ApplicationHandlerStop

    playground.application.add_handler(CallbackQueryHandler(alert_button, "^pg-alert$"), group=-3)
    async with chromium_page(playground.url) as page:
        await be(page, LENA, "Lena")
        await type_and_send(page, "/help")
        await page.locator(".msg.bot").wait_for()
        await bot.send_message(
            LENA,
            "<b>b</b> <i>i</i> <u>u</u> <s>s</s> <code>c&lt;/code&gt;</code> "
            '<pre><code class="language-python">p = 1</code></pre> '
            f'<a href="https://t.me/{username}?start=fromlink">deep</a> '
            "<tg-spoiler>secret</tg-spoiler> <blockquote>quoted</blockquote> "
            "&lt;script&gt;alert(1)&lt;/script&gt; see /rules",
            reply_markup=InlineKeyboardMarkup(
                [
                    [InlineKeyboardButton("Alert", callback_data="pg-alert")],
                    [InlineKeyboardButton("Play", url=f"https://t.me/{username}?start=frombutton")],
                ]
            ),
        )
        rich = page.locator(".msg.bot").filter(has_text="quoted").locator(".text")
        await rich.wait_for()
        for selector, text in [
            ("b", "b"),
            ("i", "i"),
            ("u", "u"),
            ("s", "s"),
            ("code", "c</code>"),
            ("pre", "p = 1"),
            (".spoiler", "secret"),
            ("blockquote", "quoted"),
        ]:
            assert await rich.locator(selector).first.inner_text() == text, selector
        assert await rich.locator("script").count() == 0
        assert "<script>alert(1)</script>" in await rich.inner_text()
        link = rich.locator("a")
        assert await link.get_attribute("href") == f"https://t.me/{username}?start=fromlink"

        mark = api.mark()
        await link.click()  # a deep link: /start <payload> in the private chat
        await api.wait_request("sendMessage", chat_id=LENA, after=mark)
        assert any(m["text"] == "/start fromlink" for m in api.messages(LENA))
        mark = api.mark()
        await page.locator(".kb-button", has_text="Play").click()
        await api.wait_request("sendMessage", chat_id=LENA, after=mark)
        assert any(m["text"] == "/start frombutton" for m in api.messages(LENA))

        await page.locator(".kb-button", has_text="Alert").click()
        dialog = page.locator("dialog#alert")
        await dialog.filter(has_text="Just an <alert> & nothing else").wait_for()
        await page.click("#alert-ok")
        await dialog.wait_for(state="hidden")

        mark = api.mark()
        await rich.locator(".command", has_text="/rules").click()
        await api.wait_request("sendMessage", chat_id=LENA, after=mark)

        await page.locator(f'.chat-item[data-chat-id="{GROUP_ID}"]').click()
        assert await page.locator("#chat-title").inner_text() == "2048 Club"
        api.send_text(ANNA, GROUP_ID, "Hallo allemaal")
        other = page.locator(".msg.in").filter(has_text="Hallo allemaal")
        await other.wait_for()
        assert await other.locator(".sender").inner_text() == "Anna"
        await page.click("#menu-button")
        await page.locator(".command-item").first.wait_for()
        assert await page.locator(".command-name", has_text="/start").count() == 1


# What a phone shows: the page no wider than the screen, send and edit on it, and no button
# cut short ("🆕 New …"): the playground draws keyboards with Telegram's metrics.
PHONE_LAYOUT = """() => {
    const right = (id) => document.getElementById(id).getBoundingClientRect().right;
    const cut = [...document.querySelectorAll(".kb-button")]
        .filter((b) => b.scrollWidth > b.clientWidth)
        .map((b) => b.textContent);
    return {
        page: document.documentElement.scrollWidth,
        screen: window.innerWidth,
        send: right("send"),
        edit: right("edit-player"),
        shifted: window.scrollX + document.scrollingElement.scrollLeft,
        cut,
    };
}"""


@pytest.mark.parametrize("width", [390, 360])
async def test_browser_at_phone_width_fits_the_screen_and_cuts_no_button(playground, width):
    async with chromium_page(playground.url, width=width, height=800) as page:
        for player in PLAYERS:
            t = translator(player.language_code)
            await be(page, player.id, player.first_name)
            await type_and_send(page, "/start")
            await page.locator(".msg.bot.has-keyboard .emoji-grid").last.wait_for()
            for command, reply in (
                ("/new", "Pick a board size:"),
                ("/language", "Choose your language:"),
            ):
                await type_and_send(page, command)
                await page.locator(".msg.bot.has-keyboard", has_text=t._(reply)).wait_for()
            await page.focus("#text")
            layout = await page.evaluate(PHONE_LAYOUT)
            assert layout["page"] <= width, (player.first_name, layout)
            assert max(layout["send"], layout["edit"]) <= width, layout
            assert layout["shifted"] == 0 and layout["cut"] == [], layout
