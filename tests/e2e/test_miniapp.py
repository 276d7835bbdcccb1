"""The Mini App's API, end to end: the real bot, the emulator, a real database, real HTTP.

The page's calls go over HTTP to the API's routes on 127.0.0.1, signed with initData the way
Telegram signs it for the emulator's token; what the chat shows is read back from the emulator.
"""

from __future__ import annotations

import asyncio
import json
import re
import time

import aiohttp
import pytest

import engine
from bot.config import MINIAPP_PATH
from bot.presentation import render
from bot.presentation.i18n import translator
from bot.storage import open_storage
from bot.transport.throttle import Throttle
from bot.wiring import TAP_BURST, TAPS_PER_SECOND
from tests.support.boards import buttons, shown_board
from tests.support.databases import count_rows, put_board, stored_game
from tests.support.groups import GROUP, join
from tests.support.harness import User, eventually
from tests.support.miniapp import WEBAPP_URL, game_id, init_data, signed


class Page:
    """A Mini App page's calls to the API, as one Telegram user."""

    def __init__(self, http: aiohttp.ClientSession, base: str, init: str) -> None:
        self.http, self.base, self.init = http, base, init

    async def post(self, name: str, status: int = 200, **body) -> dict:
        async with self.http.post(
            f"{self.base}{MINIAPP_PATH}/api/{name}", json={"initData": self.init, **body}
        ) as response:
            assert response.status == status, await response.text()
            return await response.json()


def page(http, webbot, user_id: int, **options) -> Page:
    return Page(http, webbot.web_base, init_data(webbot.api.token, user_id, **options))


async def catalog(http, webbot) -> dict:
    """The texts and tile labels that come with the page, as the page reads them."""
    async with http.get(f"{webbot.web_base}{MINIAPP_PATH}/") as response:
        html = await response.text()
    block = re.search(r'<script type="application/json" id="catalog">(.*?)</script>', html, re.S)
    assert block is not None
    return json.loads(block.group(1))


async def opened_page(api, webbot, http, rows: list[list[int]]):
    """Anna's board set to `rows`, and her Mini App opened on it."""
    anna = User(api, 101, "Anna")
    board = await anna.open_board()
    await put_board(webbot.database, 101, 101, rows)
    anna_page = page(http, webbot, 101)
    return anna, board, anna_page, await anna_page.post("open", game=game_id(board))


async def test_private_boards_open_the_game_in_the_mini_app(api, webbot):
    anna = User(api, 101, "Anna")
    board = await anna.open_board()
    swipe = [
        button
        for row in board.reply_markup["inline_keyboard"]
        for button in row
        if "web_app" in button
    ]
    assert [b["text"] for b in swipe] == ["👆 Swipe"]
    assert swipe[0]["web_app"]["url"] == f"{WEBAPP_URL}/app/?game={game_id(board)}"
    menu = api.world.default_menu_button
    assert menu == {"type": "web_app", "text": "2048", "web_app": {"url": f"{WEBAPP_URL}/app/"}}


async def test_without_webapp_url_no_swipe_button(api, bot):
    anna = User(api, 101, "Anna")
    board = await anna.open_board()
    assert not [text for text in buttons(board) if "Swipe" in text]
    assert api.world.default_menu_button is None


@pytest.mark.parametrize(
    ("language", "undo", "score"),
    [
        ("en", "↩️ Undo", "20,480"),
        ("nl", "↩️ Terugnemen", "20.480"),
        ("de-AT", "↩️ Zug zurück", "20.480"),
    ],
)
async def test_the_page_speaks_the_players_language(api, webbot, http, language, undo, score):
    anna = User(api, 101, "Anna", language)
    board = await anna.open_board()
    await put_board(webbot.database, 101, 101, [[2, 4, 0, 0]] + [[0] * 4] * 3, score=20480)
    opened = await page(http, webbot, 101, language=language).post("open", game=game_id(board))
    assert opened["language"] == language[:2]
    texts = (await catalog(http, webbot))["texts"][opened["language"]]
    assert (texts["undo"], opened["scoreText"]) == (undo, score)
    assert texts["sizes"]["5"] == translator(language[:2])._("Large 5×5")


async def test_the_page_labels_every_tile_as_the_chat_does(webbot, http):
    tiles = (await catalog(http, webbot))["tiles"]
    largest = max(engine.SIZES) ** 2 + 1  # the largest tile a board can hold is 2^(n²+1)
    assert tiles == {str(1 << e): render.tile_label(1 << e) for e in range(1, largest + 1)}
    assert [tiles[str(value)] for value in (2, 65536, 131072, 1 << 37)] == [
        "2",
        "65536",
        "128k",
        "128G",
    ]


async def test_a_swipe_is_a_move_of_the_chat_game(api, webbot, http):
    anna, board, anna_page, opened = await opened_page(
        api, webbot, http, [[2, 2, 0, 0], [0] * 4, [0] * 4, [0] * 4]
    )
    assert opened["board"][:4] == [2, 2, 0, 0]
    moved = await anna_page.post("move", game=opened["game"], seq=opened["seq"], action="left")
    assert moved["seq"] == opened["seq"] + 1 and moved["board"][0] == 4 and moved["score"] == 4
    assert list((await stored_game(webbot.database, 101, 101)).board) == moved["board"]

    def chat_shows_it() -> bool:
        shown = api.stored_message(101, board.message_id)
        return list(shown_board(shown.text)) == moved["board"]

    await eventually(chat_shows_it)
    (records,) = await anna.send("/best")
    assert "Best score: 4" in records


async def test_the_menu_button_opens_the_players_private_game(api, webbot, http):
    anna = User(api, 101, "Anna")
    board = await anna.open_board()
    opened = await page(http, webbot, 101).post("open")
    assert opened["game"] == game_id(board)


async def test_the_menu_button_starts_no_game_it_offers_the_sizes(api, webbot, http):
    await User(api, 101, "Anna").send("/help")  # a player who has never played
    anna = page(http, webbot, 101)
    opened = await anna.post("open")
    assert opened["game"] is None and not opened["active"] and opened["language"] == "en"
    assert await count_rows(webbot.database, "games") == 0
    await anna.post("move", 404, seq=0, action="left")
    await anna.post("share", 404)
    assert await count_rows(webbot.database, "games") == 0
    mark = api.mark()
    started = await anna.post("new", size=5)
    assert started["size"] == 5 and started["active"] and started["seq"] == 0
    again = await anna.post("new", size=5)  # a retry of the same request
    assert again["game"] == started["game"] and await count_rows(webbot.database, "games") == 1
    sent = await api.wait_request("sendMessage", after=mark, chat_id=101, timeout=30)
    assert "Large 5×5" in sent.params["text"]
    assert (await anna.post("open"))["game"] == started["game"]


async def test_a_move_on_an_ended_game_points_to_the_pages_own_sizes(api, webbot, http):
    anna = User(api, 101, "Anna")
    board = await anna.open_board()
    old = game_id(board)
    await anna.open_board("/new 5", replies=1)
    moved = await page(http, webbot, 101).post("move", game=old, seq=0, action="left")
    assert moved["toast"] == "This game has ended. Pick a size below to start a new one."
    assert not moved["active"]


@pytest.mark.parametrize(
    "forgery",
    ["tampered", "other_token", "expired", "no_user", "missing", "not_a_string"],
)
async def test_initdata_that_proves_nothing_is_refused_and_changes_nothing(
    api, webbot, http, forgery
):
    anna = User(api, 101, "Anna")
    board = await anna.open_board()
    before = await stored_game(webbot.database, 101, 101)
    deliveries = await count_rows(webbot.database, "deliveries")
    token = webbot.api.token
    good = init_data(token, 101)
    init = {
        "tampered": good.replace("%3A101%2C", "%3A102%2C"),
        "other_token": init_data("123:" + "x" * 35, 101),
        "expired": init_data(token, 101, age=24 * 3600 + 60),
        "no_user": signed({"auth_date": str(int(time.time())), "query_id": "AAH"}, token),
        "missing": "",
        "not_a_string": 7,
    }[forgery]
    assert init != good
    url = f"{webbot.web_base}{MINIAPP_PATH}/api/move"
    body = {"initData": init, "game": game_id(board), "seq": 0, "action": "left"}
    async with http.post(url, json=body) as response:
        assert response.status == 401
        assert (await response.json()) == {"error": "unauthorized"}
    assert await stored_game(webbot.database, 101, 101) == before
    assert await count_rows(webbot.database, "deliveries") == deliveries


async def test_another_players_game_is_forbidden(api, webbot, http):
    anna = User(api, 101, "Anna")
    User(api, 102, "Daan")
    board = await anna.open_board()
    before = await stored_game(webbot.database, 101, 101)
    daan = page(http, webbot, 102)
    for name, body in (
        ("open", {}),
        ("move", {"seq": 0, "action": "left"}),
        ("hint", {}),
        ("new", {"size": 5}),
        ("share", {}),
    ):
        refused = await daan.post(name, 403, game=game_id(board), **body)
        assert refused == {"error": "not_yours"}
    assert await stored_game(webbot.database, 101, 101) == before
    await daan.post("open", 404, game=10_000)


async def test_a_repeated_sequence_number_applies_once(api, webbot, http):
    _anna, _board, anna_page, opened = await opened_page(
        api, webbot, http, [[2, 2, 0, 0], [4, 0, 0, 0], [0] * 4, [0] * 4]
    )
    move = {"game": opened["game"], "seq": opened["seq"], "action": "left"}
    first = await anna_page.post("move", **move)
    again = await anna_page.post("move", **move)
    assert (first["status"], first["outcome"]) == ("applied", "moved")
    assert (again["status"], again["outcome"]) == ("applied", "moved")
    assert again["board"] == first["board"] and again["seq"] == first["seq"]
    # The same number with another direction is still that first move: nothing changes.
    other = await anna_page.post("move", **{**move, "action": "right"})
    assert other["board"] == first["board"] and other["outcome"] == "moved"
    assert (await stored_game(webbot.database, 101, 101)).moves == 1


async def test_a_stale_sequence_number_gets_the_current_game(api, webbot, http):
    anna, board, anna_page, opened = await opened_page(
        api, webbot, http, [[2, 2, 0, 0], [4, 0, 0, 0], [0] * 4, [0] * 4]
    )
    await anna.tap(board, "⬅️")  # the chat moves on while the page still shows the old board
    now = await stored_game(webbot.database, 101, 101)
    stale = await anna_page.post("move", game=opened["game"], seq=opened["seq"], action="up")
    assert stale["status"] == "stale" and stale["outcome"] is None
    assert stale["board"] == list(now.board) and stale["seq"] == opened["seq"] + 1
    assert await stored_game(webbot.database, 101, 101) == now
    moved = await anna_page.post("move", game=opened["game"], seq=stale["seq"], action="right")
    assert moved["outcome"] == "moved" and moved["seq"] == stale["seq"] + 1


async def test_a_refused_move_leaves_its_number_free(api, webbot, http):
    _anna, _board, anna_page, opened = await opened_page(
        api, webbot, http, [[2, 4, 0, 0], [0] * 4, [0] * 4, [0] * 4]
    )
    move = {"game": opened["game"], "seq": opened["seq"]}
    nothing = await anna_page.post("move", **move, action="left")
    assert nothing["outcome"] == "nothing_moves" and nothing["toast"] == "Nothing moves that way."
    moved = await anna_page.post("move", **move, action="right")
    assert moved["outcome"] == "moved" and moved["board"][2:4] == [2, 4]


@pytest.mark.parametrize(
    ("body", "status"),
    [
        (b"not json", 400),
        (b"[1, 2]", 400),
        (b'{"game": "1", "seq": 0, "action": "left"}', 400),
        (b'{"game": 1, "seq": -1, "action": "left"}', 400),
        (b'{"game": 1, "seq": true, "action": "left"}', 400),
        (b'{"game": 1, "seq": 0, "action": "sideways"}', 400),
        (b'{"game": 1, "size": 7}', 400),
        (b"{" + b" " * 9000 + b"}", 413),
    ],
)
async def test_malformed_bodies_are_refused_and_change_nothing(api, webbot, http, body, status):
    anna = User(api, 101, "Anna")
    board = await anna.open_board()
    before = await stored_game(webbot.database, 101, 101)
    init = json.dumps(init_data(webbot.api.token, 101))
    if body.startswith(b'{"'):
        body = body.replace(b'"game": 1', f'"game": {game_id(board)}'.encode())
        body = b'{"initData": ' + init.encode() + b", " + body[1:]
    name = "new" if b"size" in body else "move"
    url = f"{webbot.web_base}{MINIAPP_PATH}/api/{name}"
    async with http.post(url, data=body) as response:
        assert response.status == status
    assert await stored_game(webbot.database, 101, 101) == before


async def test_undo_keep_going_new_game_and_share(api, webbot, http):
    anna = User(api, 101, "Anna")
    board = await anna.open_board()
    await put_board(
        webbot.database, 101, 101, [[1024, 1024, 0, 0], [0] * 4, [0] * 4, [0] * 4], moves=700
    )
    anna_page = page(http, webbot, 101)
    state = await anna_page.post("open", game=game_id(board))
    won = await anna_page.post("move", game=state["game"], seq=state["seq"], action="left")
    assert won["won"] and won["outcome"] == "won" and "2048!" in won["banner"]
    kept = await anna_page.post("move", game=state["game"], seq=won["seq"], action="keep")
    assert kept["outcome"] == "kept_going" and not kept["won"]
    undone = await anna_page.post("move", game=state["game"], seq=kept["seq"], action="undo")
    assert undone["outcome"] == "undone" and undone["undos"] == engine.UNDO_LIMIT - 1
    shared = await anna_page.post("share", game=state["game"])
    assert shared["toast"] == "Your picture is in the chat."
    # Behind the paced redraws of the three moves, and drawn in a worker process.
    await api.wait_request("sendPhoto", chat_id=101, timeout=30)
    # A client that shares to any chat itself gets the card as a prepared message.
    prepared = await anna_page.post("share", game=state["game"], prepare=True)
    kept = api.world.prepared_messages[prepared["prepared"]]
    assert kept.user_id == 101 and kept.allowed == {"user", "group", "channel"}
    assert kept.result["type"] == "photo" and "points on Classic 4×4" in kept.result["caption"]
    started = await anna_page.post("new", game=state["game"], size=5)
    assert started["size"] == 5 and started["game"] != state["game"]
    # Sent again (a retry of the same request), it is the same new game.
    again = await anna_page.post("new", game=state["game"], size=5)
    assert again["game"] == started["game"]
    await api.wait_request("sendMessage", chat_id=101, timeout=30)
    assert (await stored_game(webbot.database, 101, 101)).size == 5


async def test_an_api_flood_is_throttled_while_another_player_taps_on(api, webbot, http):
    anna = User(api, 101, "Anna")
    daan = User(api, 102, "Daan")
    anna_board = await anna.open_board()
    daan_board = await daan.open_board()
    # The taps' throttle on a stopped clock: the burst is all there is, however slow the run.
    frozen = Throttle(rate=TAPS_PER_SECOND, burst=TAP_BURST, clock=lambda: 0.0)
    webbot.application.bot_data.runtime.throttle = frozen
    webbot.process.miniapp.throttle = frozen
    anna_page = page(http, webbot, 101)
    game = game_id(anna_board)

    async def call() -> int:
        async with http.post(
            f"{webbot.web_base}{MINIAPP_PATH}/api/open",
            json={"initData": anna_page.init, "game": game},
        ) as response:
            if response.status == 429:
                assert response.headers["Retry-After"] == "1"
                assert await response.json() == {"error": "too_many"}
            return response.status

    statuses = await asyncio.gather(*(call() for _ in range(2 * int(TAP_BURST))))
    assert statuses.count(200) == TAP_BURST and statuses.count(429) == TAP_BURST
    answer, _ = await daan.tap(daan_board, "⬅️", edit=False)
    assert answer.get("text") in (None, "Nothing moves that way.")
    # The page and the chat share one bucket: Anna's taps wait too.
    answer, _ = await anna.tap(anna_board, "⬅️", edit=False)
    assert answer["text"].startswith("Easy there")


async def test_page_moves_are_in_the_games_replay(api, webbot, http):
    """The database fixture replays every game afterwards: this one has only page moves."""
    anna = User(api, 101, "Anna")
    board = await anna.open_board()
    anna_page = page(http, webbot, 101)
    state = await anna_page.post("open", game=game_id(board))
    for direction in ["left", "up", "right", "down"] * 5:
        state = await anna_page.post("move", game=state["game"], seq=state["seq"], action=direction)
    state = await anna_page.post("move", game=state["game"], seq=state["seq"], action="undo")
    assert state["seq"] == len(await stored_actions(webbot.database, state["game"]))
    assert list((await stored_game(webbot.database, 101, 101)).board) == state["board"]


async def stored_actions(database, game: int) -> str:
    store = await open_storage(database)
    try:
        stored = await store.game(game)
    finally:
        await store.close()
    assert stored is not None and stored.actions is not None
    return stored.actions


async def test_a_challenge_entry_from_the_page_has_no_hints_and_its_card_follows(api, webbot, http):
    anna, bob = User(api, 101, "Anna"), User(api, 202, "Bob")
    api.add_group(GROUP, "2048 Club", admins={anna.id})
    api.send_text(anna.id, GROUP, "/challenge")
    sent = await api.wait_request("sendMessage", chat_id=GROUP)
    card = sent.result["message_id"]
    link = buttons(api.stored_message(GROUP, card))["▶️ Play"]
    board = await join(api, bob, link)
    assert "👆 Swipe" in buttons(board)  # the entry is played in Bob's private chat
    bob_page = page(http, webbot, 202)
    state = await bob_page.post("open", game=game_id(board))
    assert state["hints"] is False
    refused = await bob_page.post("hint", game=state["game"])
    assert refused["toast"] == "Hints are off in challenges: everyone plays on their own."
    assert refused["hint"] is None
    assert await count_rows(webbot.database, "games", "hints > 0") == 0
    mark = api.mark()
    for direction in ("left", "right", "up", "down"):
        state = await bob_page.post("move", game=state["game"], seq=state["seq"], action=direction)
        if state["outcome"] == "moved":
            break
    # The group's card shows Bob's standing, as after a tap on his board.
    edit = await api.wait_request(
        "editMessageText", after=mark, chat_id=GROUP, message_id=card, timeout=30
    )
    assert f"{state['score']}" in edit.params["text"] and "Bob" in edit.params["text"]
