"""The playground's page in a real browser: Debian's Chromium, through Playwright for Python.

Playwright's own browser download is never used. Outside CI these tests are skipped when that
Chromium is missing; with CI set they always run.

`PLAYGROUND_SCREENSHOT=docs/playground.png .venv/bin/pytest tests/browser/test_playground.py -k
flow` also writes the README's screenshot, through the same code path as the test's own;
`SHARED_CARD_SCREENSHOT=docs/shared-card.png ... -k shares` writes the shared card's.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from pathlib import Path
from typing import Any

import pytest
from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.ext import ApplicationHandlerStop, CallbackQueryHandler, ContextTypes

from bot.playground import GROUP_ID, PLAYERS
from bot.presentation.i18n import translator
from bot.presentation.render import LADDER
from tests.support.boards import shown_board
from tests.support.browser import be, chromium, type_and_send
from tests.support.databases import stored_game
from tests.support.harness import eventually
from tests.support.playground import ANNA, ARROWS, DAAN, LENA, plain
from tests.support.processes import ROOT


@contextlib.asynccontextmanager
async def chromium_page(url: str, width: int = 800, height: int = 700, scheme: str = "light"):
    """A fresh headless Chromium (Debian's) on the playground page, 800 px wide."""
    async with chromium() as browser:
        phone = width < 640
        context = await browser.new_context(
            viewport={"width": width, "height": height},
            locale="nl-NL",
            timezone_id="Europe/Amsterdam",
            color_scheme=scheme,
            has_touch=phone,
            is_mobile=phone,
            device_scale_factor=2 if phone else 1,
        )
        page = await context.new_page()
        page.set_default_timeout(60_000)  # generous: Chromium on a busy machine is slow
        failures: list[str] = []
        page.on("pageerror", lambda error: failures.append(str(error)))
        await page.goto(url)
        await page.wait_for_selector("body[data-ready=true]")
        yield page
        assert not failures, failures


async def save_screenshot(page: Any, path: Path) -> Path:
    """The page as the player sees it: no toast in the way, no caret, 800 px wide."""
    await page.mouse.move(1, 1)
    await page.locator("#toast").wait_for(state="hidden")
    path.parent.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=str(path), animations="disabled", caret="hide")
    return path


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
        boards = page.locator(".msg.bot.has-keyboard").filter(has=page.locator(".emoji-grid"))
        await boards.nth(1).wait_for()  # the welcome has a keyboard too: count the boards
        latest = boards.last
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
        if os.environ.get("SHARED_CARD_SCREENSHOT"):  # docs/playing.md's picture: a real game
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
        while (answer.get("text") or "").startswith("Whoa, too fast"):  # the tap rate's limit
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


# Where a phone's height goes: the boxes above the chat, and what the chat strip cuts.
PHONE_CHROME = """() => {
    const box = (node) => node.getBoundingClientRect();
    const cut = (node) => node.scrollWidth > node.clientWidth;
    return {
        above: box(document.querySelector(".messages")).top,
        header: box(document.querySelector(".chat-header")).height,
        cut: [...document.querySelectorAll(".chat-item .chat-name, .chat-item .chat-sub")]
            .filter((node) => node.offsetParent !== null && cut(node))
            .map((node) => node.textContent),
    };
}"""

# The last picture in the chat, and the part of the chat it is shown in.
MEDIA_SHOWN = """(selector) => {
    const nodes = document.querySelectorAll(selector);
    const media = nodes[nodes.length - 1].getBoundingClientRect();
    const chat = document.getElementById("messages").getBoundingClientRect();
    return media.height > 0 && media.top >= chat.top - 1 && media.bottom <= chat.bottom + 1;
}"""

# How light the page's surfaces are: 0 black … 1 white (sRGB luminance, roughly).
LIGHTNESS = """(selectors) => selectors.map((selector) => {
    const colour = getComputedStyle(document.querySelector(selector)).backgroundColor;
    const [r, g, b] = colour.match(/[\\d.]+/g).map(Number);
    return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
})"""


@pytest.mark.parametrize(("width", "scheme"), [(390, "dark"), (360, "light")])
async def test_browser_on_a_phone_the_chat_has_the_screen_mini_app_media_and_theme(
    playground, width, scheme
):
    """The chat gets the height, the Mini App the whole screen, media its full place once
    loaded, and the page the system's light or dark; a share's hidden upload leaves no badge."""
    api, height = playground.api, 844
    async with chromium_page(playground.url, width=width, height=height, scheme=scheme) as page:
        await be(page, ANNA, "Anna")
        await page.locator(f'.chat-item[data-chat-id="{GROUP_ID}"]').click()
        await type_and_send(page, "/start")
        await page.locator(".msg.bot .emoji-grid").last.wait_for()
        chrome = await page.evaluate(PHONE_CHROME)
        assert chrome["header"] == 0 and chrome["above"] <= 0.15 * height, chrome
        assert chrome["cut"] == [], chrome  # "2048 Club", "4 members · you are admin" in full
        surfaces = await page.evaluate(LIGHTNESS, ["body", ".sidebar", ".msg.in .bubble"])
        if scheme == "dark":
            assert max(surfaces) < 0.25, surfaces
        else:
            assert min(surfaces) > 0.75, surfaces

        await page.locator(f'.chat-item[data-chat-id="{ANNA}"]').click()
        await type_and_send(page, "/start")
        board = page.locator(".msg.bot.has-keyboard").filter(has=page.locator(".emoji-grid")).last
        await board.wait_for()
        board_id = await board.get_attribute("data-message-id")
        for arrow in ARROWS:
            if await tap_arrow(page, api, board, board_id, arrow):
                break
        await board.locator(".kb-button", has_text="👆").click()
        await page.frame_locator("#mini-app-frame").locator("body[data-ready=true]").wait_for()
        shown = await page.locator("#mini-app").bounding_box()
        assert shown == {"x": 0, "y": 0, "width": width, "height": height}, shown
        assert await page.evaluate("document.documentElement.scrollWidth") <= width
        await page.click("#mini-app-close")
        await page.locator("#mini-app").wait_for(state="hidden")

        # Shared from the group: the card is uploaded to Anna's private chat and deleted there.
        await page.locator(f'.chat-item[data-chat-id="{GROUP_ID}"]').click()
        mark = api.mark()
        await page.fill("#text", f"@{api.bot_username}")
        await page.locator("#inline-results .inline-result").first.click()
        # Events come in order: the upload and its deletion before the result posted here.
        await page.locator(".msg").filter(has=page.locator(".via")).last.wait_for()
        assert api.find_requests("deleteMessage", after=mark, chat_id=ANNA)
        assert await page.locator(f'.chat-item[data-chat-id="{ANNA}"] .badge').count() == 0

        await page.locator(f'.chat-item[data-chat-id="{ANNA}"]').click()
        await type_and_send(page, "/share")
        await loaded_width(page, ".msg.bot img.media")
        await page.wait_for_function(MEDIA_SHOWN, arg=".msg.bot img.media")
        await type_and_send(page, "/replay")
        await loaded_width(page, ".msg.bot video.media")
        await page.wait_for_function(MEDIA_SHOWN, arg=".msg.bot video.media")
