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
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import engine
from bot.config import MINIAPP_PATH
from bot.presentation import render
from bot.presentation.i18n import translator
from bot.storage import open_storage
from bot.transport.throttle import Throttle
from bot.wiring import TAP_BURST, TAPS_PER_SECOND
from tests.support.boards import CORNER, buttons, shown_board
from tests.support.databases import count_rows, put_board, stored_game
from tests.support.groups import GROUP, join
from tests.support.harness import User, eventually
from tests.support.miniapp import WEBAPP_URL, authorization, game_id, init_data, signed


class Page:
    """A Mini App page's calls to the API, as one Telegram user."""

    def __init__(self, http: aiohttp.ClientSession, base: str, init: str) -> None:
        self.http, self.base, self.init = http, base, init

    async def post(self, name: str, status: int = 200, **body) -> dict:
        async with self.http.post(
            f"{self.base}{MINIAPP_PATH}/api/{name}", json=body, headers=authorization(self.init)
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
    assert moved["toast"] == "This game has ended. Pick a board size to start a new one."
    assert not moved["active"]


@pytest.mark.parametrize(
    "forgery",
    ["tampered", "other_token", "expired", "no_user", "missing", "no_scheme", "in_the_body"],
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
    headers = {
        "tampered": authorization(good.replace("%3A101%2C", "%3A102%2C")),
        "other_token": authorization(init_data("123:" + "x" * 35, 101)),
        "expired": authorization(init_data(token, 101, age=24 * 3600 + 60)),
        "no_user": authorization(
            signed({"auth_date": str(int(time.time())), "query_id": "AAH"}, token)
        ),
        "missing": {},
        "no_scheme": {"Authorization": good},
        "in_the_body": {},
    }[forgery]
    assert headers != authorization(good)
    url = f"{webbot.web_base}{MINIAPP_PATH}/api/move"
    body = {"game": game_id(board), "seq": 0, "action": "left"}
    if forgery == "in_the_body":
        body["initData"] = good
    async with http.post(url, json=body, headers=headers) as response:
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


async def test_a_group_game_is_played_in_the_group_alone(api, webbot, http):
    """The page acts in the player's private chat: a group board is refused, nothing posted."""
    anna = User(api, 101, "Anna")
    api.add_group(GROUP, "2048 Club", admins={anna.id})
    board = await anna.open_board("/new 4", replies=1, chat_id=GROUP)
    await put_board(webbot.database, GROUP, 101, [[1024, 1024, 0, 0]] + [[0] * 4] * 3, moves=9)
    before = await stored_game(webbot.database, GROUP, 101)
    games = await count_rows(webbot.database, "games")
    mark = api.mark()
    anna_page = page(http, webbot, 101)
    for name, body in (
        ("open", {}),
        ("move", {"seq": 9, "action": "left"}),
        ("hint", {}),
        ("new", {"size": 5}),
        ("share", {}),
    ):
        refused = await anna_page.post(name, 403, game=game_id(board), **body)
        assert refused == {"error": "not_private"}
    assert await stored_game(webbot.database, GROUP, 101) == before
    assert await count_rows(webbot.database, "games") == games
    await anna.send("/help", chat_id=GROUP)  # answered next: nothing was queued before it
    assert not api.find_requests(["sendPhoto", "editMessageText"], after=mark, chat_id=GROUP)
    assert len(api.find_requests("sendMessage", after=mark, chat_id=GROUP)) == 1


async def test_a_flood_of_new_games_and_shares_posts_one_of_each(api, webbot, http):
    """However fast the page asks, the chat gets one board and one card waiting at most."""
    anna = User(api, 101, "Anna")
    board = await anna.open_board()
    await put_board(webbot.database, 101, 101, [[2, 2, 0, 0]] + [[0] * 4] * 3, moves=3)
    webbot.process.miniapp.throttle = Throttle(rate=1e9, burst=1e9)
    anna_page = page(http, webbot, 101)
    games = await count_rows(webbot.database, "games")
    mark = api.mark()
    state = await anna_page.post("open", game=game_id(board))
    cards = [await anna_page.post("share", game=state["game"]) for _ in range(20)]
    assert {card["toast"] for card in cards} == {"Your picture is in the chat."}
    started = [await anna_page.post("new", game=state["game"], size=5) for _ in range(10)]
    for _ in range(10):
        started.append(await anna_page.post("new", game=started[-1]["game"], size=5))
    assert len({s["game"] for s in started}) == 1
    assert await count_rows(webbot.database, "games") == games + 1
    new_game = f":{started[-1]['game']}:"

    def boards() -> list[str]:
        sent = api.find_requests("sendMessage", after=mark, chat_id=101)
        return [json.dumps(r.params.get("reply_markup")) for r in sent]

    await eventually(lambda: any(new_game in board for board in boards()))
    # The board on its way when the flood began, if any, and the one that replaced the rest;
    # the cards, queued first, went out before it.
    assert len(boards()) <= 2
    assert len(api.find_requests("sendPhoto", after=mark, chat_id=101)) <= 2


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
        (b'{"game": 1, "seq": 0, "action": ["left"]}', 400),
        (b'{"game": 1, "seq": 0, "action": {"left": 1}}', 400),
        (b'{"game": 1, "size": [5]}', 400),
        (b"[" * 1000, 400),  # deeper than json's recursion limit, and under the cap
        (b"[" * 3000 + b"]" * 3000, 413),
        (b"\xff\xfe{}", 400),
        (b"{" + b" " * 1100 + b"}", 413),
    ],
)
async def test_malformed_bodies_are_refused_and_change_nothing(api, webbot, http, body, status):
    anna = User(api, 101, "Anna")
    board = await anna.open_board()
    before = await stored_game(webbot.database, 101, 101)
    body = body.replace(b'"game": 1', f'"game": {game_id(board)}'.encode())
    name = "new" if b"size" in body else "move"
    url = f"{webbot.web_base}{MINIAPP_PATH}/api/{name}"
    headers = authorization(init_data(webbot.api.token, 101))
    async with http.post(url, data=body, headers=headers) as response:
        assert response.status == status
    assert await stored_game(webbot.database, 101, 101) == before


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=12,
)
# Bodies near the API's own, so the cases reach past the first field they read.
FIELDS = st.fixed_dictionaries(
    {},
    optional={
        "game": JSON | st.integers(0, 3),
        "seq": JSON | st.integers(0, 3),
        "action": JSON | st.sampled_from(sorted(engine.ACTION_CODES)),
        "size": JSON | st.sampled_from(engine.SIZES),
    },
)


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(body=JSON | FIELDS, name=st.sampled_from(["open", "move", "hint", "new", "share"]))
@example(body={"seq": 0, "action": ["left"]}, name="move")
@example(body={"size": {"5": 5}}, name="new")
async def test_any_json_body_is_answered_and_never_with_a_server_error(
    api, webbot, http, body, name
):
    if not api.find_requests("sendMessage", chat_id=101):
        await User(api, 101, "Anna").open_board()
    miniapp = webbot.process.miniapp
    miniapp.throttle = miniapp.hint_throttle = Throttle(rate=1e9, burst=1e9)
    url = f"{webbot.web_base}{MINIAPP_PATH}/api/{name}"
    headers = authorization(init_data(webbot.api.token, 101))
    async with http.post(url, data=json.dumps(body), headers=headers) as response:
        assert response.status == 200 or 400 <= response.status < 500, await response.text()


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
    unplayed = await anna_page.post("share", game=started["game"])
    assert unplayed["toast"] == "Make a move first. There’s nothing to show yet."
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
            json={"game": game},
            headers=authorization(anna_page.init),
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
    assert answer["text"].startswith("Whoa, too fast")


async def test_a_forger_naming_a_player_is_refused_before_the_hash_and_locks_nobody_out(
    api, webbot, http
):
    """Requests that claim to be Anna spend a bucket of their own, then are refused unchecked;
    Anna's own taps, her page and another player's page are served throughout."""
    anna, daan = User(api, 101, "Anna"), User(api, 102, "Daan")
    anna_board = await anna.open_board()
    daan_board = await daan.open_board()
    miniapp = webbot.process.miniapp
    miniapp.claims = Throttle(rate=1.0, burst=3, clock=lambda: 0.0)
    forged = init_data("123:" + "x" * 35, 101)  # Anna's id, signed with another bot's token
    url = f"{webbot.web_base}{MINIAPP_PATH}/api/open"

    async def forge() -> int:
        async with http.post(url, json={}, headers=authorization(forged)) as response:
            return response.status

    statuses = [await forge() for _ in range(5)]
    assert statuses == [401] * 3 + [429] * 2
    answer, _ = await anna.tap(anna_board, "⬅️", edit=False)
    assert not (answer.get("text") or "").startswith("Whoa, too fast")
    assert (await page(http, webbot, 102).post("open", game=game_id(daan_board)))["game"]


async def test_one_players_api_flood_is_refused_while_another_players_page_is_served(
    api, webbot, http
):
    anna, daan = User(api, 101, "Anna"), User(api, 102, "Daan")
    anna_board = await anna.open_board()
    daan_board = await daan.open_board()
    frozen = Throttle(rate=TAPS_PER_SECOND, burst=TAP_BURST, clock=lambda: 0.0)
    webbot.process.miniapp.throttle = frozen
    anna_page, daan_page = page(http, webbot, 101), page(http, webbot, 102)

    async def call(who: Page, game: int) -> int:
        async with http.post(
            f"{webbot.web_base}{MINIAPP_PATH}/api/open",
            json={"game": game},
            headers=authorization(who.init),
        ) as response:
            return response.status

    flood = [call(anna_page, game_id(anna_board)) for _ in range(3 * int(TAP_BURST))]
    served = [call(daan_page, game_id(daan_board)) for _ in range(5)]
    statuses = await asyncio.gather(*flood, *served)
    assert statuses[: len(flood)].count(429) == 2 * TAP_BURST
    assert statuses[len(flood) :] == [200] * 5


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


@pytest.mark.parametrize(
    ("language", "reason", "toast"),
    [
        ("en", "any other move gives up the corner", "💡 Try ➡️ right: {reason}."),
        ("nl", "met elke andere zet raak je de hoek kwijt", "💡 Probeer ➡️ naar rechts: {reason}."),
        (
            "de",
            "mit jedem anderen Zug verlierst du die Ecke",
            "💡 Schieb mal nach rechts ➡️ – {reason}.",
        ),
    ],
)
async def test_the_pages_hint_names_the_move_and_why_in_the_players_language(
    api, webbot, http, language, reason, toast
):
    anna = User(api, 101, "Anna", language)
    board = await anna.open_board()
    await put_board(webbot.database, 101, 101, CORNER)
    anna_page = page(http, webbot, 101, language=language)
    answer = await anna_page.post("hint", game=game_id(board))
    assert (answer["hint"], answer["reason"]) == ("right", reason)
    assert answer["toast"] == toast.format(reason=reason)  # the chat's own sentence
    # The chat's board marks the same move.
    await eventually(
        lambda: any(
            label.startswith("➡️") and label.endswith("💡")
            for label in buttons(api.stored_message(101, board.message_id))
        )
    )


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
    assert refused["toast"] == "Hints are off in challenges to keep things fair."
    assert refused["hint"] is None and refused["reason"] is None
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
