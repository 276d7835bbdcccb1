"""The Mini App as Telegram's clients run it: in Telegram Web's frame, on old and new app
versions, in a half-open sheet, on a network that fails, and read by a screen reader.

Telegram Web holds the page in an iframe and talks to Telegram's script by postMessage; here a
host page at https://web.telegram.org does that as Telegram's Mini App documentation describes
(iframe_ready → set_custom_style, web_app_request_theme → theme_changed,
web_app_request_viewport → viewport_changed, the safe areas, the home screen's status), and
the page comes from the API's routes with its real headers, CSP included, at the bot's
public HTTPS address. Every frame's
console warnings and errors, and every policy violation, fail the test.
"""

from __future__ import annotations

import contextlib
import functools
import json
from typing import Any

import pytest

import engine
from bot.config import MINIAPP_PATH
from bot.emulator.webapp import DARK_THEME, LIGHT_THEME, STAND_IN, TELEGRAM_SCRIPT, launch_url
from tests.support.browser import chromium
from tests.support.databases import put_board, stored_game, without_clock
from tests.support.harness import User
from tests.support.miniapp import WEBAPP_URL, game_id

SQLITE_ONLY = pytest.mark.parametrize("backend", ["sqlite"])
HOST = "https://web.telegram.org/k/"
# What Telegram Web writes into the <style> element Telegram's script adds.
CUSTOM_STYLE = "html { scrollbar-color: rgb(1, 2, 3) transparent; }"
# Each frame reports what its policy refused, where the console shows it.
VIOLATIONS = """document.addEventListener("securitypolicyviolation", (event) =>
    console.error(`policy refused ${event.violatedDirective}: ${event.blockedURI}`));"""
HOST_PAGE = """<!doctype html><html><head>
<meta name="viewport" content="width=device-width, initial-scale=1"></head><body style="margin:0">
<iframe id="app" src="%(url)s" style="border:0;display:block;width:100vw;height:100vh"></iframe>
<script>
const frame = document.getElementById("app");
const send = (eventType, eventData) =>
  frame.contentWindow.postMessage(JSON.stringify({ eventType, eventData }), "*");
const insets = %(insets)s;
window.send = send;
window.events = [];
window.addEventListener("message", (event) => {
  if (event.source !== frame.contentWindow || typeof event.data !== "string") return;
  const { eventType, eventData } = JSON.parse(event.data);
  window.events.push([eventType, eventData]);
  const answers = {
    iframe_ready: ["set_custom_style", %(style)s],
    web_app_request_theme: ["theme_changed", { theme_params: %(theme)s }],
    web_app_request_viewport: [
      "viewport_changed",
      { height: frame.clientHeight, is_expanded: true, is_state_stable: true },
    ],
    web_app_request_safe_area: ["safe_area_changed", insets.device],
    web_app_request_content_safe_area: ["content_safe_area_changed", insets.content],
    web_app_check_home_screen: ["home_screen_checked", { status: "missed" }],
  };
  if (answers[eventType]) send(...answers[eventType]);
});
</script></body></html>"""
# Resolves after the next two frames: a layout change has been drawn.
FRAMES = "new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"
# Every text of the page that does not fit its box, or goes past the screen's edge.
CUT = """() => [...document.querySelectorAll("button, .figure span, .figure b, h1")]
  .filter((e) => e.offsetParent !== null)
  .filter((e) => e.scrollWidth > e.clientWidth + 1
    || e.getBoundingClientRect().right > innerWidth + 0.5)
  .map((e) => e.textContent)"""


@contextlib.asynccontextmanager
async def browser_context(browser, viewport: dict[str, int], **options: Any):
    """A phone's browser, with Telegram's script answered by the stand-in; yields the
    context and the console's warnings and errors from every frame."""
    context = await browser.new_context(
        viewport=viewport, device_scale_factor=1, is_mobile=True, has_touch=True, **options
    )
    await context.route(
        TELEGRAM_SCRIPT,
        lambda route: route.fulfill(path=STAND_IN, content_type="text/javascript"),
    )
    await context.add_init_script(VIOLATIONS)
    complaints: list[str] = []
    context.on(
        "console",
        lambda message: (
            complaints.append(f"{message.type}: {message.text}")
            if message.type in ("warning", "error")
            else None
        ),
    )
    context.on("weberror", lambda error: complaints.append(f"error: {error.error}"))
    try:
        yield context, complaints
    finally:
        await context.close()


async def serve(html: str, route: Any) -> None:
    await route.fulfill(body=html, content_type="text/html")


async def proxy(base: str, route: Any) -> None:
    """The bot's web server, at the public HTTPS address Telegram Web opens it at."""
    path = route.request.url.removeprefix(WEBAPP_URL)
    await route.fulfill(response=await route.fetch(url=base + path))


def mini_app(page) -> Any:
    frame = page.frame(url=lambda url: MINIAPP_PATH in url)
    assert frame is not None
    return frame


async def board_box(frame) -> dict[str, float]:
    await frame.evaluate(FRAMES)
    return await frame.locator("#board").bounding_box()


@SQLITE_ONLY
async def test_telegram_web_old_and_new_clients_and_every_height(api, webbot):
    """Each client in Telegram Web's frame: no warning, the style applied, the board inside
    the visible height as it changes, each call only from its version."""
    anna = User(api, 101, "Anna")
    await anna.open_board()
    user = api.world.users[101]
    clients = [
        ("6.0", "weba", {"width": 360, "height": 400}, "de", LIGHT_THEME),
        ("7.0", "android", {"width": 360, "height": 640}, "nl", DARK_THEME),
        ("8.0", "ios", {"width": 390, "height": 844}, "en", LIGHT_THEME),
    ]
    insets = {"device": {"top": 20, "bottom": 30}, "content": {"top": 40}}
    async with chromium() as browser:
        for version, platform, viewport, language, theme in clients:
            user["language_code"] = language
            url = launch_url(
                f"{WEBAPP_URL}{MINIAPP_PATH}/",
                api.token,
                user,
                theme,
                platform=platform,
                version=version,
            )
            host = HOST_PAGE % {
                "url": url,
                "style": json.dumps(CUSTOM_STYLE),
                "theme": json.dumps(theme),
                "insets": json.dumps(insets),
            }
            async with browser_context(browser, viewport, reduced_motion="reduce") as (
                context,
                complaints,
            ):
                await context.route(HOST, functools.partial(serve, host))
                await context.route(f"{WEBAPP_URL}/**", functools.partial(proxy, webbot.web_base))
                page = await context.new_page()
                page.set_default_timeout(20_000)
                await page.goto(HOST)
                frame = page.frame_locator("#app")
                await frame.locator("body[data-ready=true][data-idle=true]").wait_for()
                app = mini_app(page)
                sent = [name for name, _ in await page.evaluate("window.events")]
                assert sent[0] == "iframe_ready" and "web_app_ready" in sent, sent
                # Telegram Web's own style, let in by the page's policy.
                scrollbar = "getComputedStyle(document.documentElement).scrollbarColor"
                assert (await app.evaluate(scrollbar)).startswith("rgb(1, 2, 3)")
                assert ("web_app_setup_back_button" in sent) == (version != "6.0")
                assert ("web_app_set_header_color" in sent) == (version != "6.0")
                assert ("web_app_setup_swipe_behavior" in sent) == (version == "8.0")
                assert sent.count("web_app_request_fullscreen") == (version == "8.0")
                # The texts are the player's before and after the first answer.
                undo = {"de": "↩️ Zug zurück", "nl": "↩️ Terugnemen", "en": "↩️ Undo"}
                assert await app.locator("#undo").inner_text() == undo[language]
                height = viewport["height"]
                box = await board_box(app)
                assert box["y"] + box["height"] <= height and box["width"] >= 150, box
                header = await app.locator("header").bounding_box()
                # 8.0: the device's and Telegram's insets, added up (no fullscreenChanged came).
                assert (header["y"] >= 60) == (version == "8.0"), header
                # The sheet is dragged down to half the screen: the board follows.
                half = height // 2 + 40
                await page.evaluate(
                    "(h) => send('viewport_changed', "
                    "{height: h, is_expanded: false, is_state_stable: true})",
                    half,
                )
                box = await board_box(app)
                assert box["y"] + box["height"] <= half and box["width"] >= 100, (half, box)
                assert await app.evaluate(CUT) == []
                await page.set_viewport_size({"width": 360, "height": height})
                await app.evaluate(FRAMES)
                assert await app.evaluate(CUT) == []
                # Reduced motion: a move has no slide and no pop.
                seq = await app.evaluate("document.body.dataset.seq")
                await app.locator("#board").click()
                for key in ("ArrowLeft", "ArrowUp", "ArrowRight", "ArrowDown"):
                    await page.keyboard.press(key)
                await frame.locator(f'body[data-idle=true]:not([data-seq="{seq}"])').wait_for()
                assert await app.evaluate("document.getAnimations().length") == 0
                if version == "8.0":
                    await shares_to_any_chat_and_offers_the_home_screen_once(api, page, app)
                if version != "6.0":  # 6.0 has no back button: Telegram shows its own close
                    await page.evaluate("send('back_button_pressed')")
                    await page.wait_for_function(
                        "window.events.some(([name]) => name === 'web_app_close')"
                    )
                assert complaints == [], (version, complaints)


async def posted(page, name: str, count: int = 1) -> list[Any]:
    """What the page has posted to Telegram Web under `name`, once it has `count` of them."""
    has = f"window.events.filter(([n]) => n === '{name}').length >= {count}"
    await page.wait_for_function(has)
    return [data for n, data in await page.evaluate("window.events") if n == name]


async def shares_to_any_chat_and_offers_the_home_screen_once(api, page, app) -> None:
    """8.0: 📤 hands Telegram a prepared message of the card; the third game started from the
    page offers the home screen, and later ones do not again."""
    await app.locator("#share").click()
    (sent,) = await posted(page, "web_app_send_prepared_message")
    assert api.world.prepared_messages[sent["id"]].user_id == 101
    for game in range(4):
        shown = await app.evaluate("document.body.dataset.game")
        for key in ("ArrowLeft", "ArrowRight"):  # one of them moves: a played game is left
            await app.locator("body").press(key)
            await app.locator("body[data-idle=true]").wait_for()
        await app.locator("#new").click()
        await app.locator("#banner").get_by_role("button", name="Classic 4×4").click()
        await app.locator(f'body[data-idle=true]:not([data-game="{shown}"])').wait_for()
        if game == 2:
            await posted(page, "web_app_add_to_home_screen")
    await posted(page, "web_app_check_home_screen")
    names = [n for n, _ in await page.evaluate("window.events")]
    assert names.count("web_app_add_to_home_screen") == 1


def ax_nodes(tree: dict) -> list[tuple[str, str]]:
    """(role, name) of every node of Chromium's accessibility tree that has a role."""
    nodes = []
    for node in tree["nodes"]:
        role = node.get("role", {}).get("value", "")
        name = node.get("name", {}).get("value", "")
        if role and not node.get("ignored"):
            nodes.append((role, name))
    return nodes


@SQLITE_ONLY
async def test_a_bad_network_and_a_screen_reader(api, webbot):
    """The first load fails twice, then the network drops mid-game and comes back: each time
    the page says so in the player's language, drops no move silently, and clears the message;
    what a screen reader gets is read from Chromium's accessibility tree."""
    anna = User(api, 101, "Anna", "de")
    board = await anna.open_board()
    rows = [[2, 2, 4, 0], [0] * 4, [0] * 4, [0, 0, 0, 8]]
    game = await put_board(webbot.database, 101, 101, rows)
    url = launch_url(
        f"{webbot.web_base}{MINIAPP_PATH}/?game={game_id(board)}",
        api.token,
        api.world.users[101],
        platform="android",
    )
    failures = iter(["502", "timedout"])

    async def first_load(route):
        failure = next(failures, None)
        if failure == "502":
            await route.fulfill(status=502, body="Bad Gateway")
        elif failure is not None:
            await route.abort(failure)
        else:
            await route.continue_()

    async with (
        chromium() as browser,
        browser_context(browser, {"width": 360, "height": 640}) as (context, complaints),
    ):
        page = await context.new_page()
        page.set_default_timeout(20_000)
        await page.route("**/api/open", first_load)
        await page.goto(url)
        unreached = page.locator("#unreached")
        await unreached.get_by_text("Das Spiel konnte nicht geladen werden.").wait_for()
        await unreached.get_by_role("button", name="🔄 Erneut versuchen").click()
        await page.wait_for_selector("body[data-ready=true][data-idle=true]")
        assert await unreached.is_hidden()
        assert await page.locator("#toast").inner_text() == ""
        # The network goes mid-game: the move is sent again until it lands, a move made
        # meanwhile is refused, and said to be.
        await context.set_offline(True)
        await page.keyboard.press("ArrowLeft")
        await page.locator("#toast", has_text="Keine Verbindung. Neuer Versuch läuft …").wait_for()
        await page.keyboard.press("ArrowDown")
        await page.locator("#toast", has_text="Nicht gesendet").wait_for()
        await context.set_offline(False)
        turn = engine.act(game, "left", 1.0)
        shown = ",".join(map(str, turn.game.board))
        await page.wait_for_selector(f'body[data-idle=true][data-board="{shown}"]')
        await page.locator("#toast:empty").wait_for()
        saved = await stored_game(webbot.database, 101, 101)
        assert without_clock(saved) == without_clock(turn.game)
        # What a screen reader gets: the board as a grid of its cells' values, the move's
        # result, and every button by its name.
        said = await page.locator("#said").inner_text()
        assert said.startswith("Nach links geschoben. Verschmolzen: 4."), said
        assert "Punkte: 4." in said, said
        cdp = await context.new_cdp_session(page)
        nodes = ax_nodes(await cdp.send("Accessibility.getFullAXTree"))
        assert ("grid", "Spielfeld, Klassisch 4×4") in nodes
        cells = [name for role, name in nodes if role == "gridcell"]
        labels = {0: "leeres Feld"} | {value: str(value) for value in saved.board if value}
        assert cells == [labels[value] for value in saved.board]
        buttons = {name for role, name in nodes if role == "button"}
        assert {"↩️ Zug zurück", "💡 Tipp", "🆕 Neues Spiel", "📤 Teilen"} <= buttons
        assert "Kontrastreiche Farben" in buttons
        # The high-contrast palette, switched on by keyboard, and remembered.
        await page.locator("#contrast").focus()
        await page.keyboard.press("Enter")
        await page.wait_for_selector("body.contrast")
        four = await page.evaluate(
            "getComputedStyle(document.querySelector('.tile.v4')).backgroundColor"
        )
        assert four == "rgb(230, 159, 0)"
        await page.reload()
        await page.wait_for_selector("body.contrast[data-ready=true]")
        assert await page.locator("#contrast").get_attribute("aria-pressed") == "true"
        # The browser's own line for each request that failed is all the console holds.
        assert [c for c in complaints if "Failed to load resource" not in c] == []
