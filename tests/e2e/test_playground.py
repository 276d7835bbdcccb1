"""The playground in this process: its JSON API and its event stream, as the page uses them."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import aiohttp
import pytest

from bot.emulator import FakeBotApi
from bot.playground import GROUP_ID, open_playground
from bot.playground.web import STATIC
from bot.presentation.i18n import translator
from tests.support.playground import ANNA, ARROWS, DAAN, call, plain


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
            keyboard = message.get("reply_markup", {}).get("inline_keyboard", [])
            if message["from"]["id"] == bot_id and len(keyboard) > 1:  # the welcome has one row
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
    for path in sorted(STATIC.iterdir()):  # every module the page imports is served
        async with http.get(url + "static/" + path.name) as response:
            assert response.status == (404 if path.name == "index.html" else 200), path.name


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


async def test_the_playground_serves_health_and_metrics_as_a_bot_process_does(playground, http):
    async with http.get(playground.url + "healthz") as response:
        assert (response.status, await response.text()) == (200, "ok\n")
    async with http.get(playground.url + "metrics") as response:
        assert response.status == 200
        text = await response.text()
    assert "# TYPE bot2048_updates_handled_total counter" in text
    assert "process_resident_memory_bytes" in text


def _board(markup: Any) -> bool:
    """A board's keyboard: rows of arrows (the welcome's has one row, the daily's button)."""
    rows = (json.loads(markup) if isinstance(markup, str) else markup or {}).get("inline_keyboard")
    return rows is not None and len(rows) > 1


async def _move(api: FakeBotApi, board: dict[str, Any]) -> list[str]:
    """Taps the board's arrows until one moves it; the tap ids, the moving one last."""
    buttons = [b for row in board["reply_markup"]["inline_keyboard"] for b in row]
    taps = []
    for arrow in ARROWS:
        (data,) = (b["callback_data"] for b in buttons if b["text"] == arrow)
        mark = api.mark()
        taps.append(api.tap(DAAN, DAAN, board["message_id"], data))
        answer = await api.wait_request("answerCallbackQuery", callback_query_id=taps[-1])
        if "text" not in answer.params:  # moved: the board is edited
            await api.wait_request("editMessageText", message_id=board["message_id"], after=mark)
            return taps
    pytest.fail("no arrow moved the board")


async def test_a_restarted_playground_hands_out_new_ids_and_plays_on(tmp_path, monkeypatch):
    """The clock stands still: the record beside the database alone keeps the ids apart."""
    database = tmp_path / "playground.sqlite3"
    monkeypatch.setattr("bot.playground.ids.time.time", lambda: 1_767_225_600.0)
    async with open_playground(0, database, poll_timeout=1) as first:
        first.api.send_text(DAAN, DAAN, "/start")
        board = (
            await first.api.wait_request("sendMessage", chat_id=DAAN, reply_markup=_board)
        ).result
        first_taps = await _move(first.api, board)
        played = first.api.last_bot_message(DAAN)
        last_update = first.api.world.next_update_id - 1
    async with open_playground(0, database, poll_timeout=1) as second:
        sent = second.api.send_text(DAAN, DAAN, "/start")
        again = await second.api.wait_request("sendMessage", chat_id=DAAN, reply_markup=_board)
        assert sent["message_id"] > board["message_id"]
        assert again.result["message_id"] > board["message_id"]
        assert again.result["text"] == played["text"]  # the same game, restored
        second_taps = await _move(second.api, again.result)  # and a tap moves it on
        assert min(map(int, second_taps)) > max(map(int, first_taps))
        updates = [u["update_id"] for r in second.api.find_requests("getUpdates") for u in r.result]
        assert min(updates) > last_update
