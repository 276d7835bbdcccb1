"""The fake Bot API, driven by the real python-telegram-bot client over HTTP."""

from __future__ import annotations

import asyncio
import datetime as dt
import io
import json
import time

import aiohttp
import av
import pytest
from PIL import Image
from telegram import Bot as PtbBot
from telegram import (
    BotCommand,
    BotCommandScopeAllPrivateChats,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InlineQueryResultArticle,
    InlineQueryResultCachedPhoto,
    InputTextMessageContent,
    MenuButtonWebApp,
    Update,
    WebAppInfo,
)
from telegram.constants import ParseMode
from telegram.error import BadRequest, EndPointNotFound, Forbidden, InvalidToken, RetryAfter
from telegram.ext import ApplicationBuilder, CommandHandler, ContextTypes

from bot.emulator import BOT_WIDE_LIMITS, ApiError, FakeBotApi, FloodLimits, Upload
from bot.emulator.api import WAIT_TIMEOUT
from bot.emulator.html import HtmlParseError, parse_html

USER = 1001
GROUP = -4001
APP_URL = "https://2048.example.org/app/"


@pytest.fixture
async def api():
    api = FakeBotApi()
    await api.start()
    api.add_user(USER, "Ann", username="ann", language_code="en")
    yield api
    await api.stop()


@pytest.fixture
async def bot(api):
    async with PtbBot(api.token, base_url=api.base_url) as bot:
        yield bot


def keyboard(*data: str) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup([[InlineKeyboardButton(d.upper(), callback_data=d) for d in data]])


async def test_get_me(bot, api):
    me = await bot.get_me()
    assert me.is_bot and me.id == api.bot_id
    assert (me.first_name, me.username) == ("2048", "play2048_bot")
    assert me.can_join_groups and not me.can_read_all_group_messages
    assert not me.supports_inline_queries


async def test_send_message_html_gives_plain_text_and_entities(bot, api):
    api.send_text(USER, USER, "/start")
    html = '<b>Score</b>: 12 &amp; 😀 <i>best</i>\n<pre><code class="language-py">x</code></pre>'
    msg = await bot.send_message(USER, html, parse_mode=ParseMode.HTML, reply_markup=keyboard("l"))
    assert msg.text == "Score: 12 & 😀 best\nx"
    assert msg.from_user.id == api.bot_id and msg.chat.id == USER
    kinds = [(e.type, e.offset, e.length) for e in msg.entities]
    # The emoji is 2 UTF-16 code units, so "best" starts at 15, not 14.
    assert kinds == [("bold", 0, 5), ("italic", 15, 4), ("pre", 20, 1)]
    assert msg.entities[2].language == "py"
    assert msg.reply_markup == keyboard("l")
    stored = api.stored_message(USER, msg.message_id)
    assert stored is not None and stored.html == html and stored.text == msg.text
    assert api.last_bot_message(USER)["text"] == msg.text
    assert [m["text"] for m in api.messages(USER)] == ["/start", msg.text]


async def test_message_length_counts_utf16_units(bot, api):
    api.send_text(USER, USER, "/start")
    await bot.send_message(USER, "😀" * 2048)  # exactly 4096 UTF-16 code units
    with pytest.raises(BadRequest, match="Message is too long"):
        await bot.send_message(USER, "😀" * 2048 + "x")
    with pytest.raises(BadRequest, match="Message text is empty"):
        await bot.send_message(USER, "<b> </b>", parse_mode=ParseMode.HTML)


@pytest.mark.parametrize(
    ("html", "detail"),
    [
        ("<b>bold", 'can\'t find end tag corresponding to start tag "b"'),
        ("<b>x</i>", "unmatched end tag at byte offset 4"),
        ("2 < 3", 'unsupported start tag "" at byte offset 2'),
        ("<p>para</p>", 'unsupported start tag "p" at byte offset 0'),
        ("<span>x</span>", 'tag "span" must have class "tg-spoiler"'),
        ("fish & chips", "character '&' at byte offset 5"),
    ],
)
async def test_bad_html_is_rejected_with_telegram_wording(bot, api, html, detail):
    api.send_text(USER, USER, "/start")
    with pytest.raises(BadRequest) as caught:
        await bot.send_message(USER, html, parse_mode=ParseMode.HTML)
    # PTB strips "Bad Request: " and capitalizes Telegram's description.
    assert str(caught.value).startswith("Can't parse entities: ")
    assert detail in str(caught.value).lower()


async def test_callback_data_is_limited_to_64_utf8_bytes(bot, api):
    api.send_text(USER, USER, "/start")
    await bot.send_message(USER, "ok", reply_markup=keyboard("é" * 32))  # 64 bytes
    with pytest.raises(BadRequest, match="Button_data_invalid"):
        await bot.send_message(USER, "no", reply_markup=keyboard("x" * 65))
    with pytest.raises(BadRequest, match="Button_data_invalid"):
        await bot.send_message(USER, "no", reply_markup=keyboard("é" * 33))  # 33 chars, 66 bytes
    assert api.find_requests("sendMessage", ok=False)[-1].description == (
        "Bad Request: BUTTON_DATA_INVALID"
    )


async def test_web_app_buttons_open_in_private_chats_only():
    app = InlineKeyboardMarkup([[InlineKeyboardButton("Open", web_app=WebAppInfo(APP_URL))]])
    async with FakeBotApi(inline_mode=True) as api:
        api.add_user(USER, "Ann")
        api.add_group(GROUP, "Friends", admins={USER, api.bot_id})
        api.send_text(USER, USER, "/start")
        async with PtbBot(api.token, base_url=api.base_url) as bot:
            sent = await bot.send_message(USER, "board", reply_markup=app)
            assert await bot.edit_message_text("2", USER, sent.message_id, reply_markup=app)
            with pytest.raises(BadRequest, match="Button_type_invalid"):
                await bot.send_message(GROUP, "board", reply_markup=app)
            group = await bot.send_message(GROUP, "board")
            with pytest.raises(BadRequest, match="Button_type_invalid"):
                await bot.edit_message_reply_markup(GROUP, group.message_id, reply_markup=app)
            photo = (await bot.send_photo(USER, png())).photo[-1].file_id
            with pytest.raises(BadRequest, match="Button_type_invalid"):
                await bot.send_photo(GROUP, photo, reply_markup=app)
            query_id = api.inline_query(USER, USER, "")
            with pytest.raises(BadRequest, match="Button_type_invalid"):
                await bot.answer_inline_query(
                    query_id, [InlineQueryResultCachedPhoto("card", photo, reply_markup=app)]
                )
        assert [m["text"] for m in api.messages(GROUP)] == ["board"]


async def test_a_web_app_button_needs_an_address(bot, api):
    api.send_text(USER, USER, "/start")
    for web_app, detail in (("https://x.example/", "must be an Object"), ({}, "find field")):
        markup = {"inline_keyboard": [[{"text": "Open", "web_app": web_app}]]}
        with pytest.raises(ApiError, match=f"can't parse inline keyboard button: .*{detail}"):
            await api.methods.call(
                "sendMessage", {"chat_id": USER, "text": "x", "reply_markup": markup}
            )
    assert [m["text"] for m in api.messages(USER)] == ["/start"]


async def test_a_web_app_menu_button_needs_a_label_and_an_address(bot, api):
    app = MenuButtonWebApp("2048", WebAppInfo(APP_URL))
    assert await bot.set_chat_menu_button(menu_button=app)
    for button, missing in (
        ({"type": "web_app", "web_app": {"url": APP_URL}}, "text"),
        ({"type": "web_app", "text": "2048"}, "web_app"),
        ({"type": "web_app", "text": "2048", "web_app": {}}, "url"),
    ):
        with pytest.raises(ApiError, match=f'Can\'t find field "{missing}"'):
            await api.methods.call("setChatMenuButton", {"menu_button": button})
    with pytest.raises(ApiError, match="unsupported type"):
        await api.methods.call("setChatMenuButton", {"menu_button": {"type": "app"}})
    assert api.world.default_menu_button == app.to_dict()


async def test_edit_rules(bot, api):
    api.send_text(USER, USER, "/start")
    msg = await bot.send_message(USER, "<b>1</b>", parse_mode="HTML", reply_markup=keyboard("a"))
    with pytest.raises(BadRequest, match="Message is not modified: specified new message"):
        await bot.edit_message_text(
            "<b>1</b>", USER, msg.message_id, parse_mode="HTML", reply_markup=keyboard("a")
        )
    with pytest.raises(BadRequest, match="Message to edit not found"):
        await bot.edit_message_text("x", USER, 999)
    with pytest.raises(BadRequest, match="Chat not found"):
        await bot.edit_message_text("x", 424242, msg.message_id)
    # Same text, different markup is a real change; omitting reply_markup removes it.
    edited = await bot.edit_message_reply_markup(USER, msg.message_id, reply_markup=keyboard("b"))
    assert edited.reply_markup == keyboard("b") and edited.edit_date is not None
    edited = await bot.edit_message_text("2", USER, msg.message_id)
    assert edited.text == "2" and edited.reply_markup is None and not edited.entities
    with pytest.raises(BadRequest, match="Message is not modified"):
        await bot.edit_message_reply_markup(USER, msg.message_id)
    assert await bot.delete_message(USER, msg.message_id)
    with pytest.raises(BadRequest, match="Message to delete not found"):
        await bot.delete_message(USER, msg.message_id)
    assert [m["text"] for m in api.messages(USER)] == ["/start"]


async def test_get_updates_delivers_commands_and_taps_and_offset_confirms(bot, api):
    api.send_text(USER, USER, "/start@play2048_bot now")
    sent = await bot.send_message(USER, "board", reply_markup=keyboard("left"))
    query_id = api.tap(USER, USER, sent.message_id, "left")

    updates = await bot.get_updates(timeout=0)
    assert [u.update_id for u in updates] == [updates[0].update_id, updates[0].update_id + 1]
    message = updates[0].message
    assert message.text == "/start@play2048_bot now" and message.from_user.id == USER
    command = message.entities[0]
    assert (command.type, command.offset, command.length) == ("bot_command", 0, 19)
    query = updates[1].callback_query
    assert (query.id, query.data, query.from_user.id) == (query_id, "left", USER)
    assert query.message.message_id == sent.message_id and query.chat_instance

    assert len(await bot.get_updates(timeout=0)) == 2  # unconfirmed: delivered again
    assert await bot.get_updates(offset=updates[-1].update_id + 1, timeout=0) == ()
    assert api.pending_updates == []


async def test_a_user_edit_arrives_as_an_edited_message_with_new_entities(bot, api):
    sent = api.send_text(USER, USER, "hello")
    api.edit_text(USER, USER, sent["message_id"], "/new 6")
    updates = await bot.get_updates(timeout=0)
    assert updates[0].message.text == "hello" and updates[0].edited_message is None
    edited = updates[1].edited_message
    assert (edited.message_id, edited.text) == (sent["message_id"], "/new 6")
    assert edited.edit_date is not None and edited.entities[0].type == "bot_command"
    assert [m["text"] for m in api.messages(USER)] == ["/new 6"]
    with pytest.raises(ValueError, match="cannot edit"):
        api.edit_text(USER, USER, (await bot.send_message(USER, "mine")).message_id, "x")


async def test_long_poll_returns_as_soon_as_an_update_arrives(bot, api):
    async def user_writes_later() -> None:
        await asyncio.sleep(0.2)
        api.send_text(USER, USER, "hello")

    writer = asyncio.create_task(user_writes_later())
    # A poll of an hour: only the update can end it within the test's time.
    async with asyncio.timeout(WAIT_TIMEOUT):
        updates = await bot.get_updates(timeout=3600, read_timeout=3700)
    await writer
    assert [u.message.text for u in updates] == ["hello"]
    started = time.monotonic()
    assert await bot.get_updates(offset=updates[0].update_id + 1, timeout=1) == ()
    assert time.monotonic() - started >= 0.9


async def test_answer_callback_query_once(bot, api):
    api.send_text(USER, USER, "/start")
    sent = await bot.send_message(USER, "board", reply_markup=keyboard("up"))
    query_id = api.tap(USER, USER, sent.message_id, "up")
    with pytest.raises(ValueError, match="no button"):
        api.tap(USER, USER, sent.message_id, "down")
    with pytest.raises(BadRequest, match="Message_too_long"):
        await bot.answer_callback_query(query_id, "x" * 201)
    assert await bot.answer_callback_query(query_id, "Moved!", show_alert=True)
    answer = await api.wait_answer(query_id, timeout=1)
    assert (answer["text"], answer["show_alert"]) == ("Moved!", True)
    with pytest.raises(BadRequest, match="Query is too old and response timeout expired"):
        await bot.answer_callback_query(query_id)
    with pytest.raises(BadRequest, match="Query is too old"):
        await bot.answer_callback_query("12345")


async def test_fault_injection_and_latency(bot, api):
    api.send_text(USER, USER, "/start")
    api.fail_next("sendMessage", error_code=429, retry_after=3)
    with pytest.raises(RetryAfter, match="Flood control exceeded") as flood:
        await bot.send_message(USER, "hi")
    assert flood.value.retry_after == dt.timedelta(seconds=3)
    api.fail_next("SENDMESSAGE", "Forbidden: bot was blocked by the user", error_code=403)
    with pytest.raises(Forbidden, match=r"^Forbidden: bot was blocked by the user$"):
        await bot.send_message(USER, "hi")
    assert (await bot.send_message(USER, "hi")).text == "hi"
    failed = api.find_requests("sendMessage", ok=False)
    assert [(r.error_code, r.description) for r in failed] == [
        (429, "Too Many Requests: retry after 3"),
        (403, "Forbidden: bot was blocked by the user"),
    ]
    api.delay["sendMessage"] = 0.3
    started = time.monotonic()
    await bot.send_message(USER, "slow")
    assert time.monotonic() - started >= 0.3


async def test_a_held_request_is_overtaken_by_a_later_one(bot, api):
    api.send_text(USER, USER, "/start")
    held = api.hold_next("sendMessage")
    first = asyncio.create_task(bot.send_message(USER, "first"))
    await asyncio.wait_for(held.arrived.wait(), timeout=WAIT_TIMEOUT)
    second = await bot.send_message(USER, "second")
    assert not first.done()
    held.release()
    assert (await first).message_id > second.message_id
    assert [r.params["text"] for r in api.find_requests("sendMessage")] == ["second", "first"]


class Clock:
    """The flood model's time, moved by hand: a minute of flood wait passes at once."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
async def flooded():
    """An emulator enforcing Telegram's flood limits on a hand-moved clock, and a client."""
    clock = Clock()
    async with FakeBotApi(flood=FloodLimits(), clock=clock) as api:
        api.add_user(USER, "Ann")
        api.add_user(2002, "Bo")
        api.add_group(GROUP, "Club", admins={USER, api.bot_id})
        for chat in (USER, 2002):
            api.send_text(chat, chat, "/start")
        async with PtbBot(api.token, base_url=api.base_url) as bot:
            yield api, bot, clock


async def test_a_private_chat_takes_a_burst_then_one_message_a_second(flooded):
    api, bot, clock = flooded
    sent = [await bot.send_message(USER, f"{n}") for n in range(8)]
    with pytest.raises(RetryAfter) as flood:
        await bot.edit_message_text("edited", USER, sent[0].message_id)
    assert flood.value.retry_after == dt.timedelta(seconds=1)
    refused = [r for r in api.requests if r.error_code == 429]
    assert [(r.method, r.description) for r in refused] == [
        ("editMessageText", "Too Many Requests: retry after 1")
    ]
    assert api.stored_message(USER, sent[0].message_id).text == "0"  # the edit did not happen
    # Other chats and callback answers go on during the flood wait.
    assert await bot.send_message(2002, "elsewhere")
    query = api.tap(USER, USER, sent[0].message_id, "tap", strict=False)
    assert await bot.answer_callback_query(query, "answered")
    clock.now += 1
    for _ in range(5):  # one a second, for as long as it lasts
        assert await bot.send_message(USER, "paced")
        clock.now += 1


async def test_a_group_takes_twenty_messages_a_minute(flooded):
    _, bot, clock = flooded
    for n in range(8):
        await bot.send_message(GROUP, f"{n}")
    with pytest.raises(RetryAfter) as flood:
        await bot.send_message(GROUP, "too many")
    assert flood.value.retry_after == dt.timedelta(seconds=3)  # a message every 3 s refills
    clock.now += 3
    assert await bot.send_message(GROUP, "one more")
    with pytest.raises(RetryAfter):
        await bot.send_message(GROUP, "and another")
    clock.now += 60
    for n in range(8):  # a quiet minute refilled the burst, no more
        await bot.send_message(GROUP, f"again {n}")
    with pytest.raises(RetryAfter):
        await bot.send_message(GROUP, "too many")


async def test_the_bot_wide_limit_takes_a_burst_then_thirty_messages_a_second_in_all(flooded):
    api, bot, clock = flooded
    users = range(3000, 3050)
    for user in users:
        api.add_user(user, f"U{user}")
        api.send_text(user, user, "/start")
    for user in users[:40]:  # one message a chat: inside every chat's own limit
        await bot.send_message(user, "at once, without the bot-wide limit")
    api.flood.on(BOT_WIDE_LIMITS)
    for user in users[:10]:
        await bot.send_message(user, "a burst")
    with pytest.raises(RetryAfter) as flood:
        await bot.send_message(users[10], "one too many")
    assert flood.value.retry_after == dt.timedelta(seconds=1)
    clock.now += 0.5
    with pytest.raises(RetryAfter):  # the refused chat waits its retry_after out
        await bot.send_message(users[10], "too soon")
    assert await bot.send_message(users[11], "another chat, the bot's bucket refilled")
    clock.now += 1
    for user in users[20:50]:  # thirty a second, each in its thirtieth of a second
        assert await bot.send_message(user, "paced")
        clock.now += 1 / 30
    assert await bot.send_message(users[10], "after its wait")
    assert len([r for r in api.requests if r.error_code == 429]) == 2


async def test_every_send_and_edit_fails_until_the_flood_wait_is_over(flooded):
    api, bot, clock = flooded
    board = await bot.send_message(USER, "board")
    api.flood.block(USER, 30)
    for waited, left in ((0, 30), (9, 21), (20.5, 1)):  # whole seconds, rounded up
        clock.now += waited
        with pytest.raises(RetryAfter) as flood:
            await bot.edit_message_text(f"after {waited}", USER, board.message_id)
        assert flood.value.retry_after == dt.timedelta(seconds=left)
    assert api.flood.remaining(USER) == 0.5
    clock.now += 0.5
    assert api.flood.remaining(USER) == 0
    assert (await bot.edit_message_text("caught up", USER, board.message_id)).text == "caught up"
    assert await bot.send_message(2002, "never waited")


async def test_flood_limits_switch_on_and_off_at_run_time(flooded):
    api, bot, clock = flooded
    api.flood.off()
    for n in range(30):
        await bot.send_message(USER, f"{n}")
    api.flood.block(USER, 2)  # a forced flood wait applies with the limits off, too
    with pytest.raises(RetryAfter):
        await bot.send_message(USER, "blocked")
    clock.now += 2
    api.flood.on(FloodLimits(burst=2, retry_after=10))
    await bot.send_message(USER, "1")
    await bot.send_message(USER, "2")
    with pytest.raises(RetryAfter) as flood:
        await bot.send_message(USER, "3")
    assert flood.value.retry_after == dt.timedelta(seconds=10)  # the test's fixed flood wait
    with pytest.raises(ValueError, match="at least one second"):
        api.flood.block(USER, 0)
    with pytest.raises(ValueError, match="whole number of seconds"):
        FloodLimits(retry_after=0)


async def test_a_flood_wait_has_telegrams_wire_format(flooded):
    api, _, _ = flooded
    api.flood.block(USER, 7)
    async with (
        aiohttp.ClientSession() as http,
        http.post(
            f"{api.base_url}{api.token}/sendMessage", json={"chat_id": USER, "text": "hi"}
        ) as resp,
    ):
        assert resp.status == 429
        assert await resp.json() == {
            "ok": False,
            "error_code": 429,
            "description": "Too Many Requests: retry after 7",
            "parameters": {"retry_after": 7},
        }


async def test_commands_per_scope_and_language(bot, api):
    await bot.set_my_commands([BotCommand("new", "New game")])
    await bot.set_my_commands([BotCommand("new", "Neues Spiel")], language_code="de")
    scope = BotCommandScopeAllPrivateChats()
    await bot.set_my_commands([BotCommand("play", "Spielen")], scope=scope, language_code="de")
    api.add_user(2002, "Bernd", language_code="de")
    api.add_group(GROUP, "2048 fans", admins=set(), members={USER, 2002})
    assert api.commands_for(2002, 2002) == [{"command": "play", "description": "Spielen"}]
    assert api.commands_for(GROUP, 2002) == [{"command": "new", "description": "Neues Spiel"}]
    assert api.commands_for(USER, USER) == [{"command": "new", "description": "New game"}]
    with pytest.raises(BadRequest, match="Bot_command_invalid"):
        await bot.set_my_commands([BotCommand("NewGame", "x")])
    with pytest.raises(BadRequest, match="Command description must be non-empty"):
        await bot.set_my_commands([BotCommand("new", " ")])
    assert await bot.set_my_commands([], scope=scope, language_code="de")
    assert api.commands_for(2002, 2002) == [{"command": "new", "description": "Neues Spiel"}]


async def test_private_chat_and_group_membership(bot, api):
    with pytest.raises(Forbidden, match="bot can't initiate conversation with a user"):
        await bot.send_message(USER, "hi")
    with pytest.raises(BadRequest, match="Chat not found"):
        await bot.send_message(424242, "hi")
    api.add_user(2002, "Bernd")
    api.add_group(GROUP, "2048 fans", admins={2002, api.bot_id}, creator=USER)
    statuses = {
        uid: (await bot.get_chat_member(GROUP, uid)).status for uid in (USER, 2002, api.bot_id)
    }
    assert statuses == {USER: "creator", 2002: "administrator", api.bot_id: "administrator"}
    api.add_user(3003, "Carl")
    assert (await bot.get_chat_member(GROUP, 3003)).status == "left"
    # Privacy mode: only commands for this bot reach it; everything is still stored.
    api.send_text(3003, GROUP, "hello all")
    api.send_text(3003, GROUP, "/start@other_bot")
    api.send_text(3003, GROUP, "/challenge")
    updates = await bot.get_updates(timeout=0)
    assert [u.message.text for u in updates] == ["/challenge"]
    assert (await bot.get_chat_member(GROUP, 3003)).status == "member"
    assert len(api.messages(GROUP)) == 3
    assert await bot.send_chat_action(GROUP, "typing")


async def test_wire_format_details():
    async with FakeBotApi() as api, aiohttp.ClientSession() as http:
        api.add_user(USER, "Ann")
        api.send_text(USER, USER, "/start")
        root = api.base_url + api.token
        async with http.post(
            f"{root}/sendmessage",
            json={"chat_id": USER, "text": "<i>j</i>", "parse_mode": "HTML"},
        ) as resp:
            body = await resp.json()
        assert body["ok"] and body["result"]["entities"] == [
            {"type": "italic", "offset": 0, "length": 1}
        ]
        async with http.get(f"{root}/getMe?unused=1") as resp:
            assert (await resp.json())["result"]["username"] == "play2048_bot"
        markup = json.dumps({"inline_keyboard": [[{"text": "plain"}]]})
        async with http.post(
            f"{root}/sendMessage", data={"chat_id": str(USER), "text": "t", "reply_markup": markup}
        ) as resp:
            assert resp.status == 400
            assert (await resp.json())["description"] == (
                "Bad Request: can't parse inline keyboard button: "
                "Text buttons are unallowed in the inline keyboard"
            )
        async with http.post(f"{api.base_url}123:wrong/getMe") as resp:
            assert resp.status == 401
            assert await resp.json() == {
                "ok": False,
                "error_code": 401,
                "description": "Unauthorized",
            }
        # No such method, and two real ones the emulator does not implement.
        for method in ("sendFancyThing", "sendSticker", "getChat"):
            async with http.post(f"{root}/{method}", data={"chat_id": str(USER)}) as resp:
                assert resp.status == 404
                assert await resp.json() == {
                    "ok": False,
                    "error_code": 404,
                    "description": "Not Found",
                }
        async with http.post(f"{root}/sendMessage", data={"chat_id": "-5", "text": "t"}) as resp:
            assert (await resp.json())["description"] == "Bad Request: chat not found"


async def test_wrong_token_and_unknown_method_through_ptb(bot, api):
    with pytest.raises(InvalidToken, match="was rejected by the server"):
        async with PtbBot("123456:nope", base_url=api.base_url):
            pass
    with pytest.raises(EndPointNotFound):
        await bot.do_api_request("sendFancyThing", api_kwargs={"chat_id": USER})


async def test_waiting_helpers_and_events(bot, api):
    events = api.subscribe()
    api.send_text(USER, USER, "/start")
    first = await bot.send_message(USER, "one")
    await bot.send_message(USER, "two")
    await bot.edit_message_text("uno", USER, first.message_id)
    # Consecutive waits after one user action return consecutive requests.
    assert (await api.wait_request("sendMessage", chat_id=USER)).params["text"] == "one"
    assert (await api.wait_request("sendMessage", chat_id=USER)).params["text"] == "two"
    edit = await api.wait_request(("sendMessage", "editMessageText"), text=lambda t: "u" in t)
    assert edit.method == "editMessageText" and edit.result["text"] == "uno"
    with pytest.raises(TimeoutError, match="no matching Bot API request"):
        await api.wait_request("sendMessage", timeout=0.1)
    mark = api.mark()
    await api.quiet(0.05)
    await bot.send_message(USER, "three")
    assert (await api.wait_request("sendMessage", after=mark)).params["text"] == "three"
    with pytest.raises(AssertionError, match="expected no Bot API calls"):
        await asyncio.gather(api.quiet(0.2), bot.send_message(USER, "noise"))
    kinds = [events.get_nowait()["type"] for _ in range(events.qsize())]
    assert kinds == ["message", "message", "message", "edit", "message", "message"]


async def test_application_end_to_end(api):
    async def echo(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        await update.message.reply_text(f"echo: {' '.join(context.args)}")

    app = ApplicationBuilder().token(api.token).base_url(api.base_url).build()
    app.add_handler(CommandHandler("echo", echo))
    await app.initialize()
    await app.start()
    await app.updater.start_polling(poll_interval=0, timeout=1)
    try:
        api.send_text(USER, USER, "/echo hi there")
        reply = await api.wait_request("sendMessage", chat_id=USER)
        assert reply.params["text"] == "echo: hi there"
        assert api.last_bot_message(USER)["text"] == "echo: hi there"
    finally:
        await app.updater.stop()
        await app.stop()
        await app.shutdown()
    assert api.pending_updates == []  # the final getUpdates confirmed the handled update


def test_html_parser_units():
    parsed = parse_html("<blockquote expandable>a</blockquote> <a href='x.org'>b</a>")
    assert parsed.entities == [
        {"type": "expandable_blockquote", "offset": 0, "length": 1},
        {"type": "text_link", "offset": 2, "length": 1, "url": "http://x.org"},
    ]
    assert parse_html("&lt;&#x27;&#39;&quot;&gt;").text == "<''\">"
    assert parse_html("<code><b>x</b>y</code>").entities == [
        {"type": "code", "offset": 0, "length": 2}
    ]
    assert parse_html('<tg-emoji emoji-id="5368324170671202286">👍</tg-emoji>').entities[0][
        "custom_emoji_id"
    ] == ("5368324170671202286")
    with pytest.raises(HtmlParseError, match="byte offset 3"):
        parse_html("é <br>")  # offsets are UTF-8 bytes: 'é' is 2 bytes


# ----- photos, animations and inline mode ----------------------------------------------------


def png(width: int = 120, height: int = 80) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), (237, 194, 46)).save(buffer, "PNG")
    return buffer.getvalue()


def mp4(frames: int = 10, fps: int = 5) -> bytes:
    buffer = io.BytesIO()
    with av.open(buffer, "w", format="mp4") as container:
        stream = container.add_stream("libx264", rate=fps)
        stream.width, stream.height, stream.pix_fmt = 64, 48, "yuv420p"
        for index in range(frames):
            image = Image.new("RGB", (64, 48), (index * 20, 100, 50))
            container.mux(stream.encode(av.VideoFrame.from_image(image)))
        container.mux(stream.encode(None))
    return buffer.getvalue()


async def test_send_photo_uploads_once_then_resends_by_file_id(bot, api):
    api.send_text(USER, USER, "/start")
    picture = png(300, 200)
    first = await bot.send_photo(USER, picture, caption="<b>2048</b> card", parse_mode="HTML")
    assert isinstance(api.find_requests("sendPhoto")[-1].params["photo"], Upload)
    assert first.caption == "2048 card" and first.caption_entities[0].type == "bold"
    assert first.text is None
    sizes = first.photo
    assert [(s.width, s.height) for s in sizes] == [(90, 60), (300, 200)]
    assert len({s.file_id for s in sizes}) == 2
    assert api.file_bytes(sizes[-1].file_id) == picture

    again = await bot.send_photo(USER, sizes[-1].file_id)
    assert api.find_requests("sendPhoto")[-1].params["photo"] == sizes[-1].file_id
    assert [s.file_id for s in again.photo] == [s.file_id for s in sizes]
    assert api.stored_message(USER, again.message_id).media == {
        "photo": [s.to_dict() for s in sizes]
    }

    with pytest.raises(BadRequest, match="Wrong file identifier"):
        await bot.send_photo(USER, "AgACAgIAAxkDAAIno-such-file")
    with pytest.raises(BadRequest, match="Image_process_failed"):
        await bot.send_photo(USER, b"not a picture at all")
    with pytest.raises(BadRequest, match="Photo_invalid_dimensions"):
        await bot.send_photo(USER, png(2100, 100))
    with pytest.raises(BadRequest, match="Message caption is too long"):
        await bot.send_photo(USER, sizes[-1].file_id, caption="x" * 1025)
    with pytest.raises(BadRequest, match="There is no text in the message to edit"):
        await bot.edit_message_text("text", chat_id=USER, message_id=first.message_id)
    edited = await bot.edit_message_reply_markup(USER, first.message_id, reply_markup=keyboard("a"))
    assert edited.photo and edited.reply_markup == keyboard("a")


async def test_send_animation_reports_the_videos_size_and_length(bot, api):
    api.send_text(USER, USER, "/start")
    sent = await bot.send_animation(USER, mp4(frames=10, fps=5), filename="replay.mp4")
    animation = sent.animation
    assert (animation.width, animation.height) == (64, 48)
    assert animation.duration == dt.timedelta(seconds=2)
    assert animation.mime_type == "video/mp4" and animation.file_name == "replay.mp4"
    resent = await bot.send_animation(USER, animation.file_id)
    assert resent.animation.file_id == animation.file_id
    with pytest.raises(BadRequest, match="Can't use file of type animation as photo"):
        await bot.send_photo(USER, animation.file_id)


async def test_inline_queries_need_inline_mode():
    async with FakeBotApi() as api:
        api.add_user(USER, "Ann")
        async with PtbBot(api.token, base_url=api.base_url) as bot:
            assert not (await bot.get_me()).supports_inline_queries
        with pytest.raises(ValueError, match="inline mode is off"):
            api.inline_query(USER, USER, "")


async def test_an_inline_answer_is_chosen_and_posted_via_the_bot():
    async with FakeBotApi(inline_mode=True) as api:
        api.add_user(USER, "Ann")
        api.add_user(USER + 1, "Ben")
        api.add_group(GROUP, "Friends", admins={USER}, members={USER + 1})
        async with PtbBot(api.token, base_url=api.base_url) as bot:
            assert (await bot.get_me()).supports_inline_queries
            api.send_text(USER, USER, "/start")
            photo = (await bot.send_photo(USER, png())).photo[-1].file_id
            query_id = api.inline_query(USER, GROUP, "duel")
            update = (await bot.get_updates(timeout=0))[-1]
            assert update.inline_query.query == "duel"
            assert update.inline_query.chat_type == "group"
            assert update.inline_query.from_user.id == USER
            play = InlineKeyboardMarkup([[InlineKeyboardButton("▶️", url="https://t.me/b?start=x")]])
            with pytest.raises(BadRequest, match="Result_id_duplicate"):
                await bot.answer_inline_query(
                    query_id,
                    [
                        InlineQueryResultCachedPhoto("1", photo),
                        InlineQueryResultCachedPhoto("1", photo),
                    ],
                )
            await bot.answer_inline_query(
                query_id,
                [
                    InlineQueryResultCachedPhoto(
                        "card", photo, caption="Beat me", reply_markup=play
                    ),
                    InlineQueryResultArticle(
                        "text", "Just text", InputTextMessageContent("<i>hi</i>", parse_mode="HTML")
                    ),
                ],
                is_personal=True,
                cache_time=0,
            )
            with pytest.raises(BadRequest, match="Query is too old"):
                await bot.answer_inline_query(query_id, [])
        answer = await api.wait_inline_answer(query_id)
        assert [r["id"] for r in answer["results"]] == ["card", "text"] and answer["is_personal"]
        posted = api.choose_inline_result(query_id, "card")
        assert posted["via_bot"]["id"] == api.bot_id and posted["from"]["id"] == USER
        assert posted["chat"]["id"] == GROUP and posted["caption"] == "Beat me"
        assert posted["photo"][-1]["file_id"] == photo
        assert posted["reply_markup"] == play.to_dict()
        article = api.choose_inline_result(query_id, "text")
        assert article["text"] == "hi" and article["entities"][0]["type"] == "italic"


async def test_a_prepared_inline_message_is_kept_for_its_user_as_the_bot_api_describes():
    async with FakeBotApi() as api:
        api.add_user(USER, "Ann")
        async with PtbBot(api.token, base_url=api.base_url) as bot:
            api.send_text(USER, USER, "/start")
            photo = (await bot.send_photo(USER, png())).photo[-1].file_id
            before = time.time()
            prepared = await bot.save_prepared_inline_message(
                USER,
                InlineQueryResultCachedPhoto("card", photo, caption="Beat me"),
                allow_user_chats=True,
                allow_group_chats=True,
            )
            with pytest.raises(BadRequest, match="User_id_invalid"):
                await bot.save_prepared_inline_message(
                    USER + 1, InlineQueryResultCachedPhoto("card", photo)
                )
            with pytest.raises(BadRequest, match="Wrong file identifier"):
                await bot.save_prepared_inline_message(
                    USER, InlineQueryResultCachedPhoto("card", "no-such-file")
                )
        assert prepared.id and prepared.expiration_date.timestamp() > before
        kept = api.world.prepared_messages[prepared.id]
        assert kept.user_id == USER and kept.allowed == {"user", "group"}
        assert kept.result["photo_file_id"] == photo and kept.result["caption"] == "Beat me"


async def test_a_switch_inline_button_starts_a_query_in_the_chosen_chat():
    async with FakeBotApi(inline_mode=True) as api:
        api.add_user(USER, "Ann")
        api.add_group(GROUP, "Friends", admins={USER})
        async with PtbBot(api.token, base_url=api.base_url) as bot:
            api.send_text(USER, USER, "/start")
            share = InlineKeyboardMarkup(
                [[InlineKeyboardButton("📤", switch_inline_query="card 4")]]
            )
            sent = await bot.send_message(USER, "won", reply_markup=share)
            query_id = api.switch_inline(USER, USER, sent.message_id, GROUP)
            update = (await bot.get_updates(timeout=0))[-1]
            assert update.inline_query.id == query_id
            assert update.inline_query.query == "card 4"


async def test_the_emulator_refuses_descriptions_over_telegrams_limits(api):
    for method, field, limit in (
        ("setMyDescription", "description", 512),
        ("setMyShortDescription", "short_description", 120),
    ):
        assert await api.methods.call(method, {field: "x" * limit, "language_code": "nl"})
        with pytest.raises(ApiError, match="too long"):
            await api.methods.call(method, {field: "x" * (limit + 1)})
