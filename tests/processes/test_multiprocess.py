"""Two real bot processes in webhook mode behind one URL, sharing one PostgreSQL database.

The emulator plays Telegram and a load balancer at once: it delivers updates round-robin to
both processes, concurrently across chats and one at a time within a chat, as Telegram does.
So consecutive taps of one game land on different processes, and the processes race each
other for every game. The games must come out exactly as if the taps had been applied one
by one; a challenge whose end both processes have scheduled must end once.
"""

from __future__ import annotations

import asyncio
import random
import time

import aiohttp
import pytest

from bot.emulator.api import WAIT_TIMEOUT
from bot.emulator.webhook import SECRET_HEADER
from bot.storage import open_storage
from tests.support.boards import button_data, buttons, moving_code, replay, shown_board, shown_moves
from tests.support.databases import (
    RowLock,
    count_rows,
    execute_sql,
    stored_game,
    wait_until_idle,
)
from tests.support.harness import User, eventually
from tests.support.processes import SECRET, WebhookProcess

GROUP = -100777


@pytest.fixture
async def processes(api, postgres):
    pair = [WebhookProcess(api, postgres), WebhookProcess(api, postgres)]
    await asyncio.gather(*(p.start() for p in pair))
    api.webhook_targets = [p.url for p in pair]
    yield pair
    codes = await asyncio.gather(*(p.stop() for p in pair))
    assert codes == [0, 0], "a bot process did not stop cleanly"


async def test_two_processes_apply_racing_taps_exactly_like_one_by_one(api, postgres, processes):
    players = [User(api, 500 + i, f"Player {i}") for i in range(6)]
    boards = []
    for player in players:
        boards.append(await player.open_board())
    store = await open_storage(postgres)
    try:
        starts = {p.id: (await store.active_game(p.id, p.id)).game for p in players}
    finally:
        await store.close()

    rng = random.Random(2048)
    plans = {p.id: "".join(rng.choice("lurd") for _ in range(40)) for p in players}
    queries = []
    for step in range(40):  # every player bursts at once; their taps interleave
        for player, board in zip(players, boards, strict=True):
            game_id = button_data(board, "⬅️").split(":")[1]
            data = f"g:{game_id}:{plans[player.id][step]}"
            queries.append(api.tap(player.id, player.id, board.message_id, data, strict=False))

    async def all_answered() -> None:
        while any(api.world.queries[q].answer is None for q in queries):
            await asyncio.sleep(0.02)

    await asyncio.wait_for(all_answered(), timeout=60)

    store = await open_storage(postgres)
    try:
        for player in players:
            final = (await store.active_game(player.id, player.id)).game
            expected = replay(starts[player.id], plans[player.id])
            assert (final.board, final.score, final.moves, final.undos_left) == (
                expected.board,
                expected.score,
                expected.moves,
                expected.undos_left,
            ), f"player {player.id}'s game differs from the taps applied one by one"
            record = (await store.records(player.id))[4]
            assert record.best_score == expected.score and record.games_played == 1
    finally:
        await store.close()

    delivered = [d for d in api.webhook_deliveries if d.ok]
    by_target = {p.url: sum(1 for d in delivered if d.target == p.url) for p in processes}
    assert all(count > 50 for count in by_target.values()), by_target  # both really served
    assert not api.find_requests(ok=False, method=("answerCallbackQuery", "sendMessage"))


# About row locks, not the pace: a "held back" toast would pass for a refused move here.
@pytest.mark.no_flood_limits
async def test_taps_of_one_game_arriving_at_once_on_both_processes_apply_once_each(
    api, postgres, processes
):
    """Without Telegram's one-at-a-time order (a redelivery, say) taps of one game race each
    other on the two processes: row locks must still apply each of them exactly once."""
    players = [User(api, 700 + i, f"Racer {i}") for i in range(3)]
    boards = [await player.open_board() for player in players]
    api.webhook.ordered = False
    rng = random.Random(7)
    queries: dict[int, list[str]] = {p.id: [] for p in players}
    for _ in range(30):
        for player, board in zip(players, boards, strict=True):
            game_id = button_data(board, "⬅️").split(":")[1]
            data = f"g:{game_id}:{rng.choice('lurd')}"
            queries[player.id].append(
                api.tap(player.id, player.id, board.message_id, data, strict=False)
            )

    async def all_answered() -> None:
        while any(api.world.queries[q].answer is None for qs in queries.values() for q in qs):
            await asyncio.sleep(0.02)

    await asyncio.wait_for(all_answered(), timeout=60)
    store = await open_storage(postgres)
    try:
        for player in players:
            answers = [api.world.queries[q].answer for q in queries[player.id]]
            moved = sum(1 for answer in answers if not answer.get("text"))
            final = (await store.active_game(player.id, player.id)).game
            # A lost update would count fewer moves than taps that moved; a double one, more.
            assert final.moves == moved, (player.id, final.moves, moved)
            record = (await store.records(player.id))[4]
            assert record.best_score == final.score and record.games_played == 1
    finally:
        await store.close()


async def post(process: WebhookProcess, update: dict) -> int:
    async with (
        aiohttp.ClientSession() as session,
        session.post(process.url, json=update, headers={SECRET_HEADER: SECRET}) as response,
    ):
        return response.status


async def post_to_both(api, processes, update: dict) -> None:
    """One update posted to both processes at the same moment, as when Telegram's retry of
    an update races the first delivery that is still being handled. Each process answers
    once it has handled the update (what it posts is queued by then, not yet sent)."""
    assert await asyncio.gather(*(post(p, update) for p in processes)) == [200, 200]


def bot_messages(api, chat_id: int) -> list[dict]:
    """What the chat shows from the bot now."""
    return [m for m in api.messages(chat_id) if m["from"]["id"] == api.bot_id]


def help_answer(message: dict) -> bool:
    return message.get("text", "").startswith("Commands\n/start")


async def sent_by_both(api, processes, user_id: int, chat_id: int) -> None:
    """Wait until both processes have sent into the chat all they had queued for it.

    Each process gets a /help of its own there and answers it after everything it queued
    for the chat before (a chat's queue keeps its order): once both answers are in the
    chat, neither process has anything older left to send there.
    """
    answers = sum(help_answer(m) for m in bot_messages(api, chat_id))
    for process in processes:
        api.send_text(user_id, chat_id, "/help")
        assert await post(process, api.pending_updates[-1]) == 200
    await eventually(
        lambda: sum(help_answer(m) for m in bot_messages(api, chat_id)) == answers + 2,
        timeout=30,
    )


def shown_since(api, chat_id: int, before: list[dict]) -> list[dict]:
    """The bot's messages in the chat that were not there `before`, /help answers aside."""
    known = {m["message_id"] for m in before}
    return [
        m for m in bot_messages(api, chat_id) if m["message_id"] not in known and not help_answer(m)
    ]


async def test_one_update_posted_to_both_processes_at_once_applies_once(api, postgres, processes):
    """The group and the private chat show what each update causes once, however many
    processes handle it: the delivery that loses the update's claim posts nothing."""
    anna, bob = User(api, 811, "Anna"), User(api, 812, "Bob")
    api.add_group(GROUP, "Racers", admins={anna.id})
    board = await anna.open_board()
    await bob.open_board()
    start = await stored_game(postgres, anna.id, anna.id)
    await api.methods.call("deleteWebhook", {})  # the test posts each update itself

    async def twice(user_id: int, chat_id: int, text: str) -> list[dict]:
        """`text` sent once, delivered to both processes: what the chat shows for it."""
        before = bot_messages(api, chat_id)
        api.send_text(user_id, chat_id, text)
        await post_to_both(api, processes, api.pending_updates[-1])
        await sent_by_both(api, processes, user_id, chat_id)
        return shown_since(api, chat_id, before)

    # A tap: applied once, and the board it edits stays the one board in the chat.
    code = moving_code(start)
    before = bot_messages(api, anna.id)
    data = f"g:{button_data(board, '⬅️').split(':')[1]}:{code}"
    query = api.tap(anna.id, anna.id, board.message_id, data)
    await post_to_both(api, processes, api.pending_updates[-1])
    assert api.world.queries[query].answer is not None
    saved, once = await stored_game(postgres, anna.id, anna.id), replay(start, code)
    assert (saved.board, saved.moves, saved.score) == (once.board, once.moves, once.score)
    await sent_by_both(api, processes, anna.id, anna.id)
    assert shown_since(api, anna.id, before) == []
    shown = api.stored_message(anna.id, board.message_id).text
    assert (shown_board(shown), shown_moves(shown)) == (once.board, 1)

    # /share: one picture, and one note that the emulated bot has no inline mode.
    picture, note = await twice(anna.id, anna.id, "/share")
    assert "photo" in picture
    assert note["text"].startswith("To share this picture, forward it")

    # /new 5: one new game, one board.
    shown = await twice(anna.id, anna.id, "/new 5")
    assert len(shown) == 1, shown
    (new_board,) = shown
    assert await count_rows(postgres, "games", "owner_id = ? AND size = 5", anna.id) == 1
    assert len(shown_board(new_board["text"])) == 25

    # /new: one size menu, and a size tapped in it (in a group: the board is posted anew).
    (menu,) = await twice(anna.id, GROUP, "/new")
    assert menu["text"] == "Pick a board size:"
    before = bot_messages(api, GROUP)
    menu_message = api.stored_message(GROUP, menu["message_id"])
    api.tap(anna.id, GROUP, menu["message_id"], buttons(menu_message)["Large 5×5"])
    await post_to_both(api, processes, api.pending_updates[-1])
    await sent_by_both(api, processes, anna.id, GROUP)
    (group_board,) = shown_since(api, GROUP, before)
    assert len(shown_board(group_board["text"])) == 25

    # /view: the view switches once; one notice, one board.
    notice, view_board = await twice(anna.id, anna.id, "/view")
    assert notice["text"].startswith("Number view is on.")
    assert await count_rows(postgres, "players", "user_id = ? AND view = 'numbers'", anna.id)
    assert shown_moves(view_board["text"]) == 0

    # /challenge: one challenge, one card, which the challenge keeps.
    (card,) = await twice(anna.id, GROUP, "/challenge")
    assert await count_rows(postgres, "challenges") == 1
    assert await count_rows(postgres, "challenges", "message_id = ?", card["message_id"]) == 1
    link = buttons(api.stored_message(GROUP, card["message_id"]))["▶️ Play"]

    # Joining by the card's link: one entry, one welcome, one board.
    joined, entry_board = await twice(bob.id, bob.id, f"/start {link.split('start=')[1]}")
    assert joined["text"].startswith("You’ve joined the challenge")
    assert (
        await count_rows(postgres, "games", "owner_id = ? AND challenge_id IS NOT NULL", bob.id)
        == 1
    )
    assert shown_moves(entry_board["text"]) == 0


async def test_a_slow_edit_overtaken_by_the_other_process_does_not_leave_an_old_board(
    api, postgres, processes
):
    """Each process redraws with what the database holds. When one process's edit is slow and
    lands after the other process drew a newer move, the board must still end up current."""
    anna = User(api, 801, "Anna")
    board = await anna.open_board()
    game_id = button_data(board, "⬅️").split(":")[1]
    store = await open_storage(postgres)
    try:
        game = (await store.active_game(anna.id, anna.id)).game
    finally:
        await store.close()
    codes = []
    for _ in range(2):
        codes.append(moving_code(game))
        game = replay(game, codes[-1])

    delivered = len(api.webhook_deliveries)
    held = api.hold_next("editMessageText")
    await api.wait_answer(api.tap(anna.id, anna.id, board.message_id, f"g:{game_id}:{codes[0]}"))
    await asyncio.wait_for(held.arrived.wait(), timeout=WAIT_TIMEOUT)  # move 1 is on its slow way
    mark = api.mark()
    await api.wait_answer(api.tap(anna.id, anna.id, board.message_id, f"g:{game_id}:{codes[1]}"))
    await eventually(lambda: len(api.webhook_deliveries) == delivered + 2)
    targets = {d.target for d in api.webhook_deliveries[delivered:]}
    assert len(targets) == 2, "both taps went to the same process"
    await api.wait_request("editMessageText", after=mark, chat_id=anna.id)
    held.release()  # the board of move 1 now lands after the board of move 2
    await eventually(lambda: len(api.find_requests("editMessageText", after=mark)) >= 2)

    shown = lambda: api.stored_message(anna.id, board.message_id).text  # noqa: E731
    await eventually(lambda: shown_board(shown()) == game.board)
    assert shown_moves(shown()) == 2


async def test_a_request_without_the_right_secret_is_refused(api, processes):
    update = {
        "update_id": 999_999,
        "message": {
            "message_id": 1,
            "date": 0,
            "chat": {"id": 42, "type": "private", "first_name": "Mallory"},
            "from": {"id": 42, "is_bot": False, "first_name": "Mallory"},
            "text": "/start",
        },
    }
    async with aiohttp.ClientSession() as session:
        for headers in ({SECRET_HEADER: "wrong-secret"}, {}):
            for process in processes:
                async with session.post(process.url, json=update, headers=headers) as response:
                    assert response.status == 403
    # Nothing was handled: the bot sent nothing to chat 42 (its menus and descriptions, set in
    # the background after the start, may still be on their way).
    introduction = ("setMyCommands", "setMyDescription", "setMyShortDescription")
    reads = ("getUpdates", "getMyDescription", "getMyShortDescription")
    await api.quiet(0.5, ignore=(*introduction, *reads))
    assert not api.find_requests(chat_id=42)


async def test_a_challenge_both_processes_scheduled_ends_once(api, postgres, processes):
    anna, bob = User(api, 601, "Anna"), User(api, 602, "Bob")
    api.add_group(GROUP, "Racers", admins={anna.id})
    api.send_text(anna.id, GROUP, "/challenge 4 1h")
    card = await api.wait_request("sendMessage", chat_id=GROUP)
    link = buttons(api.stored_message(GROUP, card.result["message_id"]))["▶️ Play"]
    payload = link.split("start=")[1]
    board = await bob.open_board(f"/start {payload}")
    for arrow in ("⬅️", "➡️", "⬆️", "⬇️"):
        _, board = await bob.tap(board, arrow, edit=False)
    # Both processes schedule the end at start-up: make it due, and restart both while the
    # challenge's row is locked, so that neither can end it before both are trying to.
    for process in processes:
        assert await process.stop() == 0
    due = time.time()
    await execute_sql(postgres, "UPDATE challenges SET ends_at = ? WHERE finished = 0", due)
    await execute_sql(
        postgres, "UPDATE games SET closes_at = ? WHERE challenge_id IS NOT NULL", due
    )
    mark = api.mark()
    async with RowLock(postgres, "SELECT id FROM challenges") as lock:
        await asyncio.gather(*(p.start() for p in processes))
        racing = await lock.waiters(2)  # both processes are ending it: let them race
    api.webhook_targets = [p.url for p in processes]
    winner = await api.wait_request(
        "sendMessage", after=mark, chat_id=GROUP, text=lambda t: "wins" in t, timeout=60
    )
    assert "Bob" in winner.params["text"]
    await wait_until_idle(postgres, racing)  # the other process has found it ended, too
    endings = api.find_requests(
        "sendMessage", chat_id=GROUP, text=lambda t: "wins" in t or "nobody took part" in t
    )
    assert len(endings) == 1
    finals = api.find_requests(
        "editMessageText", chat_id=GROUP, text=lambda t: "Final standings" in t
    )
    assert len(finals) == 1
