"""An update Telegram delivers again changes nothing the second time, on both backends.

Telegram sends an update again whenever it did not get the answer in time: the webhook's
answer was lost, a process died after committing. The services get the update's key and
apply it once; a repeat returns what the first delivery did. A process killed before its
next poll confirmed a tap is in tests/test_crash.py, one update posted to two processes at
once in tests/test_multiprocess.py.
"""

from __future__ import annotations

import asyncio

import pytest
from telegram import Update

import engine
from bot.handlers.bookkeeping import update_key
from bot.services.challenges import ChallengeService, JoinStatus, payload
from bot.services.games import GameService, TapStatus
from bot.services.locks import ChatLocks
from bot.services.players import PlayerService
from bot.services.redelivery import KEEP_SECONDS, UpdateLog
from bot.storage import open_storage
from tests.support.boards import button_data, buttons, moving_code
from tests.support.databases import count_rows, stored_game
from tests.support.harness import User, eventually
from tests.support.processes import WebhookProcess

GROUP = -4343
PLAYER = 41
NOW = 1_700_000_000.0
ARROWS = {"l": "⬅️", "r": "➡️", "u": "⬆️", "d": "⬇️"}


@pytest.fixture
async def storage(database):
    store = await open_storage(database)
    yield store
    await store.close()


def moving_direction(game: engine.Game) -> engine.Direction:
    return next(d for d in engine.DIRECTIONS if engine.play(game, d, 0.0).changed)


def test_a_delivery_is_known_by_its_query_or_message_and_an_edit_is_a_new_one():
    anna = {"id": 101, "is_bot": False, "first_name": "Anna"}
    command = {
        "message_id": 7,
        "date": 0,
        "chat": {"id": GROUP, "type": "group", "title": "Club"},
        "from": anna,
        "text": "/new 4",
    }
    first = Update.de_json({"update_id": 1, "message": command}, None)
    again = Update.de_json({"update_id": 1, "message": command}, None)
    assert update_key(first) == update_key(again) == f"m{GROUP}:7"
    # Changing "/new 4" into "/new 5" is a new command: it starts another game.
    edit = {**command, "text": "/new 5", "edit_date": 60}
    edited = Update.de_json({"update_id": 2, "edited_message": edit}, None)
    assert update_key(edited) == f"m{GROUP}:7:60"
    query = {"id": "99", "from": anna, "chat_instance": "1", "data": "g:1:l", "message": command}
    assert update_key(Update.de_json({"update_id": 3, "callback_query": query}, None)) == "q99"


async def test_a_repeated_tap_returns_the_first_result_and_changes_nothing(storage):
    games = GameService(storage, ChatLocks(storage), clock=lambda: NOW, new_seed=lambda: 5)
    board = await games.start(PLAYER, PLAYER, 4)
    direction = moving_direction(board.game)
    first = await games.tap(PLAYER, PLAYER, board.id, direction, "q1")
    again = await games.tap(PLAYER, PLAYER, board.id, direction, "q1")
    assert first.changed and first.outcome is engine.Outcome.MOVED
    assert (again.status, again.outcome) == (first.status, first.outcome)
    assert again.stored == first.stored
    saved = await storage.game(board.id)
    assert saved.game == first.stored.game and saved.game.moves == 1
    assert (await storage.records(PLAYER))[4].games_played == 1

    refused = await games.tap(PLAYER, PLAYER + 1, board.id, direction, "q2")
    assert refused.status is TapStatus.NOT_YOURS
    assert (await games.tap(PLAYER, PLAYER + 1, board.id, direction, "q2")).status is (
        TapStatus.NOT_YOURS
    )
    undone = await games.tap(PLAYER, PLAYER, board.id, "undo", "q3")
    assert (await games.tap(PLAYER, PLAYER, board.id, "undo", "q3")).outcome is undone.outcome
    saved = await storage.game(board.id)
    assert saved.game.moves == 0 and saved.game.undos_left == engine.UNDO_LIMIT - 1


async def test_one_tap_delivered_to_two_processes_at_once_applies_once(database):
    """Each tap reaches both processes (two storages on one database) at the same moment."""
    first, second = await open_storage(database), await open_storage(database)
    try:
        games = [
            GameService(first, ChatLocks(first), new_seed=lambda: 11),
            GameService(second, ChatLocks(second)),
        ]
        board = await games[0].start(PLAYER, PLAYER, 4)
        plan = ["left", "up", "right", "down"] * 5
        copies = [
            games[copy].tap(PLAYER, PLAYER, board.id, direction, f"q{n}")
            for n, direction in enumerate(plan)
            for copy in (0, 1)
        ]
        results = await asyncio.gather(*copies)
        pairs = list(zip(results[::2], results[1::2], strict=True))
        for one, other in pairs:
            assert (one.status, one.outcome) == (other.status, other.outcome)
        applied = sum(1 for one, _ in pairs if one.changed)
        assert applied > 0
        assert (await first.game(board.id)).game.moves == applied
    finally:
        await first.close()
        await second.close()


async def test_repeated_commands_create_nothing_new_and_switch_nothing_back(storage, database):
    locks = ChatLocks(storage)
    games = GameService(storage, locks, clock=lambda: NOW, new_seed=lambda: 9)
    challenges = ChallengeService(storage, locks, clock=lambda: NOW)
    players = PlayerService(storage, locks)

    started = await games.start(GROUP, PLAYER, 6, f"m{GROUP}:10")
    again = await games.start(GROUP, PLAYER, 6, f"m{GROUP}:10")
    assert again == started and await count_rows(database, "games") == 1
    assert (await games.start(GROUP, PLAYER, 6, f"m{GROUP}:11")).id != started.id

    challenge = await challenges.create(GROUP, "Club", "en", PLAYER, 4, 3600, f"m{GROUP}:12")
    assert challenge is not None
    repeated = await challenges.create(GROUP, "Club", "en", PLAYER, 4, 3600, f"m{GROUP}:12")
    assert repeated == challenge and len(await storage.open_challenges(GROUP)) == 1

    joined = await challenges.join(payload(challenge), PLAYER, f"m{PLAYER}:13")
    rejoined = await challenges.join(payload(challenge), PLAYER, f"m{PLAYER}:13")
    assert joined.status is rejoined.status is JoinStatus.JOINED
    assert rejoined.entry == joined.entry and await storage.challenge_players(challenge.id) == 1
    later = await challenges.join(payload(challenge), PLAYER, f"m{PLAYER}:14")
    assert later.status is JoinStatus.ALREADY_IN

    # /view switches the view shown when it arrives: a repeat would switch it back.
    assert await players.set_view(PLAYER, PLAYER, "numbers", f"m{PLAYER}:15") == "numbers"
    assert await players.set_view(PLAYER, PLAYER, "emoji", f"m{PLAYER}:15") == "numbers"
    assert (await storage.player(PLAYER)).view == "numbers"

    board = await games.start(PLAYER, PLAYER, 4)
    hinted = await games.save_hint(board, "left", "q16")
    again_hinted = await games.save_hint(board, "up", "q16")  # a search may differ
    assert hinted.shown_hint == again_hinted.shown_hint == "left"
    saved = await storage.game(board.id)
    assert (saved.shown_hint, saved.hints_used) == ("left", 1)
    assert (await storage.records(PLAYER))[4].hints_used == 1


async def test_keys_are_kept_as_long_as_telegram_may_deliver_again(storage, database):
    clock = [NOW]
    games = GameService(storage, ChatLocks(storage), clock=lambda: clock[0], new_seed=lambda: 5)
    board = await games.start(PLAYER, PLAYER, 4)
    game = board.game
    for key in ("q-old-1", "q-old-2"):
        direction = moving_direction(game)
        game = (await games.tap(PLAYER, PLAYER, board.id, direction, key)).stored.game
    clock[0] = NOW + KEEP_SECONDS - 60
    await games.tap(PLAYER, PLAYER, board.id, "undo", "q-recent")
    assert await count_rows(database, "deliveries") == 3

    forgotten = await UpdateLog(storage, clock=lambda: NOW + KEEP_SECONDS + 1).forget_old()
    assert forgotten == 2
    assert await count_rows(database, "deliveries", "key = ?", "q-recent") == 1
    # The undo delivered again is still recognised: it does not undo a second move.
    await games.tap(PLAYER, PLAYER, board.id, "undo", "q-recent")
    saved = (await storage.game(board.id)).game
    assert (saved.moves, saved.undos_left) == (1, engine.UNDO_LIMIT - 1)


async def delivered_twice(api, update_id: int) -> None:
    """Wait until the update was posted again and the bot answered that second post."""
    await eventually(
        lambda: (
            sum(1 for d in api.webhook_deliveries if d.update_id == update_id) == 2
            and api.webhook_deliveries[-1].ok
        ),
    )


async def test_updates_delivered_again_after_a_lost_answer_apply_once(api, database):
    """One webhook process; every answer below is lost once, so Telegram posts it again."""
    process = WebhookProcess(api, database)
    await process.start()
    api.webhook_targets = [process.url]
    try:
        anna, bob = User(api, 101, "Anna"), User(api, 202, "Bob")
        api.add_group(GROUP, "Club", admins={anna.id})

        api.lose_webhook_answers()
        api.send_text(anna.id, anna.id, "/new 6")
        await delivered_twice(api, api.pending_updates[-1]["update_id"])

        # Replies go out in the chat's turn, after the update is answered.
        def boards() -> list[dict]:
            return [m for m in api.messages(anna.id) if m.get("text", "").startswith("2048 ·")]

        await eventually(lambda: len(boards()) == 2)
        # The board is shown again, of the one game it started (the older board then loses
        # its buttons: one live board per game).
        assert await count_rows(database, "games", "owner_id = ?", anna.id) == 1
        board = api.stored_message(anna.id, boards()[-1]["message_id"])

        arrow = ARROWS[moving_code(await stored_game(database, anna.id, anna.id))]
        api.lose_webhook_answers()
        query = api.tap(anna.id, anna.id, board.message_id, button_data(board, arrow))
        await delivered_twice(api, api.pending_updates[-1]["update_id"])
        await api.wait_answer(query)
        assert (await stored_game(database, anna.id, anna.id)).moves == 1

        api.lose_webhook_answers()
        api.send_text(anna.id, GROUP, "/challenge 5 1h")
        await delivered_twice(api, api.pending_updates[-1]["update_id"])
        await eventually(lambda: bool(api.messages(GROUP)))
        await asyncio.sleep(0.3)  # a second card would be posted (and deleted) by now
        cards = [m for m in api.messages(GROUP) if m["from"]["id"] == api.bot_id]
        assert len(cards) == 1 and await count_rows(database, "challenges") == 1
        link = buttons(api.stored_message(GROUP, cards[0]["message_id"]))["▶️ Play"]

        api.lose_webhook_answers()
        api.send_text(bob.id, bob.id, f"/start {link.split('?start=')[1]}")
        await delivered_twice(api, api.pending_updates[-1]["update_id"])
        await eventually(  # the same answer, of the one entry
            lambda: (
                len([m for m in api.messages(bob.id) if "joined the challenge" in m["text"]]) == 2
            )
        )
        assert await count_rows(database, "games", "owner_id = ?", bob.id) == 1
    finally:
        assert await process.stop() == 0
