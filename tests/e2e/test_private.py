"""Playing in a private chat, end to end: what a player sends, taps and sees, and a game the
first release saved, played on after the database is upgraded."""

from __future__ import annotations

from dataclasses import replace

import pytest

import engine
from bot.presentation.render import tile_emoji
from bot.storage import SCHEMA_VERSION, open_storage
from tests.support.boards import (
    button_data,
    buttons,
    grid,
    isolated,
    moving_code,
    replay,
    shown_board,
)
from tests.support.databases import (
    first_release_database,
    put_board,
    stored_game,
)
from tests.support.harness import RunningBot, User, eventually


def rows4(first: list[int], second: list[int] | None = None) -> list[list[int]]:
    return [first, second or [0, 0, 0, 0], [0] * 4, [0] * 4]


@pytest.mark.parametrize(
    ("language", "hello", "score_word"),
    [("en", "Hi", "Score"), ("nl", "Hoi", "Score"), ("de-CH", "Hallo", "Punkte")],
)
async def test_start_greets_in_the_players_language_and_shows_a_board(
    api, bot, language, hello, score_word
):
    anna = User(api, 101, "Anna", language)
    welcome, board_text = await anna.send("/start", replies=2)
    assert welcome.startswith(f"{hello} {isolated('Anna')}!")
    assert score_word in board_text
    board = anna.board()
    assert len(grid(board)) == 4
    assert sum(line.count(tile_emoji(2)) + line.count(tile_emoji(4)) for line in grid(board)) == 2
    assert {"⬆️", "⬅️", "➡️", "⬇️"} <= set(buttons(board))


async def test_start_again_shows_the_same_game(api, bot):
    anna = User(api, 101, "Anna")
    first = await anna.open_board()
    again = await anna.open_board()
    assert grid(again) == grid(first)


@pytest.mark.parametrize(
    ("language", "back"),
    [
        ("en", "Welcome back, {}! Here’s your game."),
        ("nl", "Welkom terug, {}! Hier is je spel."),
        ("de", "Willkommen zurück, {}! Hier ist dein Spiel."),
    ],
)
async def test_start_introduces_the_game_once_and_then_just_brings_the_board_back(
    api, bot, language, back
):
    anna = User(api, 101, "Anna", language)
    welcome, _ = await anna.send("/start", replies=2)
    assert "/rules" in welcome
    first = anna.board()
    welcome, _ = await anna.send("/start", replies=2)
    assert welcome == back.format(isolated("Anna"))
    assert grid(anna.board()) == grid(first)


@pytest.mark.parametrize(("label", "size"), [("Classic", 4), ("Large", 5), ("Huge", 6)])
async def test_new_game_menu_offers_each_size(api, bot, label, size):
    anna = User(api, 101, "Anna")
    await anna.send("/start", replies=2)
    (menu_text,) = await anna.send("/new")
    assert menu_text == "Pick a board size:"
    menu = anna.board()
    _, board = await anna.tap(menu, label)
    assert len(grid(board)) == size and all(len(line) == size for line in grid(board))
    assert f"{size}×{size}" in board.text


async def test_new_with_a_size_shortcut_and_a_bad_size(api, bot):
    anna = User(api, 101, "Anna")
    board = await anna.open_board("/new 6x6", replies=1)
    assert len(grid(board)) == 6
    (reply,) = await anna.send("/new 7")
    assert reply == "Pick a board size:"


async def test_a_move_slides_merges_and_scores(api, bot):
    anna = User(api, 101, "Anna")
    board = await anna.open_board()
    await put_board(bot.database, 101, 101, rows4([2, 2, 0, 0], [0, 4, 0, 4]))
    answer, board = await anna.tap(board, "⬅️")
    assert answer["text"] is None
    lines = grid(board)
    assert lines[0].startswith(tile_emoji(4))
    assert lines[1].startswith(tile_emoji(8))
    assert "Score: 12" in board.text and "1 move ·" in board.text
    game = await stored_game(bot.database, 101, 101)
    assert game.moves == 1 and game.score == 12
    assert sum(1 for v in game.board if v) == 3  # two merged tiles plus one spawned


async def test_a_direction_that_moves_nothing_gets_a_toast_and_no_edit(api, bot):
    anna = User(api, 101, "Anna")
    board = await anna.open_board()
    await put_board(bot.database, 101, 101, rows4([2, 4, 0, 0]))
    answer, _ = await anna.tap(board, "⬅️", edit=False)
    assert answer["text"] == "Nothing moves that way."
    await api.quiet(0.3)
    assert (await stored_game(bot.database, 101, 101)).moves == 0


@pytest.mark.no_flood_limits  # many posts in a row: the pace would only slow it down
async def test_undo_steps_back_five_times_then_refuses(api, bot):
    anna = User(api, 101, "Anna")
    board = await anna.open_board()
    grids = [grid(board)]
    directions = ["⬅️", "⬆️", "➡️", "⬇️"]
    while len(grids) < 6:
        for arrow in directions:
            before = api.mark()
            answer, _ = await anna.tap(board, arrow, edit=False)
            if answer["text"] is None:
                await api.wait_request("editMessageText", after=before)
                board = anna.board()
                grids.append(grid(board))
                break
    captions = ["0 moves · no undos left", "1 move · 1 undo left"] + [
        f"{n} moves · {n} undos left" for n in (2, 3, 4)
    ]
    for left in (4, 3, 2, 1, 0):
        _, board = await anna.tap(board, "↩️")
        assert board.text.endswith(captions[left])  # each undo takes a move off the count too
        assert grid(board) == grids[left]
    answer, _ = await anna.tap(board, "↩️", edit=False)
    assert answer["text"] == "No undos left in this game."


async def test_replaying_an_undone_move_brings_the_same_tile(api, bot):
    anna = User(api, 101, "Anna")
    board = await anna.open_board()
    await put_board(bot.database, 101, 101, rows4([2, 2, 0, 0]))
    _, board = await anna.tap(board, "⬅️")
    after_first = grid(board)
    _, board = await anna.tap(board, "↩️")
    _, board = await anna.tap(board, "⬅️")
    assert grid(board) == after_first


async def test_win_then_keep_going(api, bot):
    anna = User(api, 101, "Anna")
    board = await anna.open_board()
    # The clock stopped at 754 s (as between two sessions): the time the win records does not
    # depend on how long the test took to get there.
    await put_board(
        bot.database,
        101,
        101,
        rows4([1024, 1024, 0, 0]),
        moves=700,
        score=18000,
        play_seconds=754,
        clock_at=None,
    )
    _, board = await anna.tap(board, "⬅️")
    assert "2048!" in board.text and "701 moves" in board.text
    assert set(buttons(board)) == {"▶️ Keep going", "🆕 New game"}
    forged_arrow = f"g:{button_data(board, '▶️').split(':')[1]}:l"
    answer, _ = await anna.tap_data(board, forged_arrow, strict=False)
    assert answer["text"] == "You made 2048! Choose “Keep going” or “New game”."
    _, board = await anna.tap(board, "▶️ Keep going")
    assert "2048!" not in board.text
    assert {"⬆️", "⬅️", "➡️", "⬇️"} <= set(buttons(board))
    (records,) = await anna.send("/best")
    assert "1 won" in records and "Fewest moves to 2048: 701" in records
    assert "Fastest 2048: 12 min 34 sec" in records


async def test_game_over_then_undo_makes_the_board_playable(api, bot):
    anna = User(api, 101, "Anna")
    board = await anna.open_board()
    # One empty cell; sliding left moves it to the corner, and a 2 or a 4 there has no pair.
    rows = [[2, 4, 2, 4], [4, 2, 4, 2], [2, 4, 2, 8], [0, 8, 16, 32]]
    game = await put_board(bot.database, 101, 101, rows)
    for seed in range(50):
        turn = engine.play(replace(game, seed=seed), "left", 1.0)
        assert turn.outcome is engine.Outcome.GAME_OVER
    _, board = await anna.tap(board, "⬅️")
    assert "Game over" in board.text
    # After a game: undo, a new one, or today's daily.
    assert set(buttons(board)) == {"↩️ Undo", "🆕 New game", "📅 Daily"}
    _, board = await anna.tap(board, "↩️")
    assert "Game over" not in board.text
    assert "⬅️" in buttons(board)


@pytest.mark.parametrize(
    ("language", "rules_title", "tips_title", "help_title"),
    [
        ("en", "How to play 2048", "Four tips", "Commands"),
        ("nl", "Zo speel je 2048", "Vier tips", "Commando’s"),
        ("de", "So spielst du 2048", "Vier Strategietipps", "Befehle"),
    ],
)
async def test_rules_tips_help_and_best_in_each_language(
    api, bot, language, rules_title, tips_title, help_title
):
    jan = User(api, 102, "Jan", language)
    (rules,) = await jan.send("/rules")
    assert rules.startswith(rules_title) and "2048" in rules and len(rules) > 1500
    (tips,) = await jan.send("/tips")
    assert tips.startswith(tips_title) and "4." in tips
    (help_text,) = await jan.send("/help")
    assert help_text.startswith(help_title) and "/new" in help_text and "/rules" in help_text
    (best,) = await jan.send("/best")
    assert "/new" in best  # no records yet: the reply says how to get some


EVERYWHERE = {
    "start",
    "new",
    "daily",
    "rules",
    "tips",
    "best",
    "stats",
    "share",
    "replay",
    "record",
    "review",
    "view",
    "language",
    "help",
}


@pytest.mark.parametrize(
    ("language", "description", "best", "group_best", "group_language"),
    [
        (
            "en",
            "How to play",
            "See your best scores and records",
            "See the group’s best scores and challenges",
            "Choose the group’s language (admins only)",
        ),
        (
            "nl",
            "Spelregels",
            "Je beste scores en records",
            "De beste scores en uitdagingen van de groep",
            "Kies de taal van de groep (beheerders)",
        ),
        (
            "de",
            "Spielregeln",
            "Deine Highscores und Rekorde",
            "Die Highscores und Herausforderungen der Gruppe",
            "Sprache der Gruppe wählen (nur Admins)",
        ),
        (
            "fr",
            "How to play",
            "See your best scores and records",
            "See the group’s best scores and challenges",
            "Choose the group’s language (admins only)",
        ),
    ],
)
async def test_command_menus_are_set_per_language_and_per_kind_of_chat(
    api, bot, language, description, best, group_best, group_language
):
    """Private chats do not list /challenge, which only works in groups; groups list it.

    /best and /language do something else in a group, and their group lines say so.
    """
    user = User(api, 103, "Lou", language)
    private = {c["command"]: c["description"] for c in api.commands_for(user.id, user.id)}
    assert private["rules"] == description and private["best"] == best
    assert set(private) == EVERYWHERE
    api.add_group(-100700, "Lou's club", admins=set(), members=[user.id])
    group = {c["command"]: c["description"] for c in api.commands_for(-100700, user.id)}
    assert set(group) == EVERYWHERE | {"challenge"}
    assert group["rules"] == description and group["best"] == group_best
    assert group["language"] == group_language and private["language"] != group_language
    (help_text,) = await user.send("/help")
    assert "/challenge" not in help_text and "/view" in help_text


async def test_language_choice_overrides_telegrams_language(api, bot):
    hans = User(api, 104, "Hans", "de")
    (prompt,) = await hans.send("/language")
    assert prompt == "Wähle deine Sprache:"
    answer, message = await hans.tap(api_message := hans.board(), "Nederlands")
    assert message.text == "Vanaf nu praat ik Nederlands met je."
    assert api_message.message_id == message.message_id and "Nederlands" in answer["text"]
    welcome, _ = await hans.send("/start", replies=2)
    assert welcome.startswith(f"Hoi {isolated('Hans')}!")


async def test_a_double_tap_on_a_language_is_answered_twice_and_changes_it_once(api, bot):
    hans = User(api, 104, "Hans", "de")
    await hans.send("/language")
    prompt = hans.board()
    data = buttons(prompt)["Nederlands"]
    first = api.tap(104, 104, prompt.message_id, data)
    second = api.tap(104, 104, prompt.message_id, data)
    for query in (first, second):
        assert "Nederlands" in (await api.wait_answer(query))["text"]
    await eventually(lambda: len(api.find_requests("editMessageText", chat_id=104)) == 2)
    await api.quiet(0.3)  # the second edit found the work done: no apology, nothing else
    assert api.stored_message(104, prompt.message_id).text == "Vanaf nu praat ik Nederlands met je."


async def test_numbers_view_is_switched_and_remembered(api, bot):
    anna = User(api, 101, "Anna")
    await anna.open_board()
    await put_board(bot.database, 101, 101, rows4([65536, 2, 0, 0]))
    notice, _ = await anna.send("/view", replies=2)
    assert notice == "Number view is on. /view switches back to emoji."
    board = anna.board()
    assert "<pre>" in board.html and "65536" in board.text
    _, board = await anna.tap(board, "⬇️")
    assert "<pre>" in board.html  # moves keep the chosen view
    notice, emoji_board = await anna.send("/view", replies=2)
    assert notice == "Emoji view is on. /view switches back to numbers."
    assert tile_emoji(65536) in emoji_board


async def test_restart_in_the_middle_of_a_game_keeps_everything(api, bot):
    anna = User(api, 101, "Anna")
    board = await anna.open_board()
    await put_board(bot.database, 101, 101, rows4([2, 2, 0, 0]))
    _, board = await anna.tap(board, "⬅️")
    before = await stored_game(bot.database, 101, 101)
    await bot.restart()
    assert await stored_game(bot.database, 101, 101) == before
    _, board = await anna.tap(board, "↩️")  # the button from before the restart still works
    assert grid(board)[0].startswith(tile_emoji(2) + tile_emoji(2))
    assert (await stored_game(bot.database, 101, 101)).moves == 0


async def test_a_tap_on_a_replaced_games_board_leaves_the_new_game_alone(api, bot):
    anna = User(api, 101, "Anna")
    old_board = await anna.open_board()
    new_board = await anna.open_board("/new 4", replies=1)
    current = await stored_game(bot.database, 101, 101)
    answer, old_board = await anna.tap(old_board, "⬅️", edit=False)
    assert answer["text"] == "This game has ended. Tap “My current game” to carry on."
    await api.wait_request("editMessageReplyMarkup", message_id=old_board.message_id)
    old_board = anna.api.stored_message(101, old_board.message_id)
    assert list(buttons(old_board)) == ["▶️ My current game"]
    assert await stored_game(bot.database, 101, 101) == current
    await anna.tap(old_board, "▶️ My current game", edit=False)
    await api.wait_request("sendMessage", chat_id=101)
    assert grid(anna.board()) == grid(new_board)


@pytest.mark.parametrize(
    "data",
    [
        "garbage",
        "g:999999:l",  # no such game
        "g:1:x",  # no such action
        "g:12345678901234567890:l",  # absurdly large id
        "g:-1:l",
        "g:1:l" + "x" * 59,  # as long as Telegram allows
        "new:7",
        "lang:fr",
        "lang:de",  # a real language, but this board offers no such button
        "\x00\x01",
        # A pattern ending in `$` also matches before a final newline.
        "g:1:l\n",
        "new\n",
        "new:5\n",
        "lang:en\n",
        "cur\n",
    ],
)
async def test_forged_buttons_get_a_clear_answer_and_change_nothing(api, bot, data):
    anna = User(api, 101, "Anna")
    board = await anna.open_board()
    before = await stored_game(bot.database, 101, 101)
    answer, _ = await anna.tap_data(board, data, strict=False)
    assert answer["text"]
    assert await stored_game(bot.database, 101, 101) == before
    assert api.stored_message(101, board.message_id).text == board.text
    welcome, _ = await anna.send("/start", replies=2)
    assert welcome.startswith(f"Welcome back, {isolated('Anna')}!")  # still her own language


async def test_another_players_game_id_cannot_be_played_from_my_chat(api, bot):
    anna = User(api, 101, "Anna")
    bob = User(api, 202, "Bob")
    anna_board = await anna.open_board()
    bob_board = await bob.open_board()
    anna_game = await stored_game(bot.database, 101, 101)
    annas_left = button_data(anna_board, "⬅️")
    answer, _ = await bob.tap_data(bob_board, annas_left, strict=False)
    assert "no longer available" in answer["text"]
    assert await stored_game(bot.database, 101, 101) == anna_game


async def test_unknown_commands_and_chatter_get_a_pointer(api, bot):
    anna = User(api, 101, "Anna", "nl")
    (reply,) = await anna.send("/fly")
    assert "/help" in reply and reply.startswith("Dat commando ken ik niet")
    (reply,) = await anna.send("x" * 4096)
    assert "/start" in reply


async def test_editing_a_message_into_a_command_runs_nothing(api, bot):
    anna = User(api, 101, "Anna")
    (_, _) = await anna.send("/start", replies=2)
    game = await stored_game(bot.database, 101, 101)
    chatter = api.send_text(anna.id, anna.id, "hello")
    await api.wait_request("sendMessage", chat_id=anna.id)
    for text in ("/new 6", "/fly", "hello again"):
        api.edit_text(anna.id, anna.id, chatter["message_id"], text)
        await eventually(lambda: not api.pending_updates)
        await api.quiet(0.5)
    assert await stored_game(bot.database, 101, 101) == game


async def test_a_first_release_database_is_upgraded_and_its_game_plays_on(api, database):
    game = engine.new_game(4, 5, 1000.0)
    while game.score == 0:
        game = replay(game, moving_code(game))
    await first_release_database(database, game)

    store = await open_storage(database)
    try:
        assert await store.schema_version() == SCHEMA_VERSION
        old = await store.active_game(42, 42)
        assert old.game == game
        assert old.actions is None  # saved before actions were logged: it has no replay
        record = (await store.records(42))[4]
        # The best score is the best game's as its board holds it now: the 900 that no saved
        # game holds (points an undo took back) counts nowhere once the database is upgraded.
        assert (record.best_score, record.games_played, record.hints_used) == (game.score, 3, 0)
        (standing,) = await store.group_leaderboard(42, 4, 10, asker=42)
        assert (standing.score, standing.highest, standing.moves) == (
            game.score,
            max(game.board),
            game.moves,
        )
    finally:
        await store.close()

    bot = RunningBot(api, database)
    await bot.start()
    try:
        anna = User(api, 42, "Anna")
        board = await anna.open_board()
        assert shown_board(board.text) == game.board
        game_id = button_data(board, "⬅️").split(":")[1]
        await anna.tap_data(board, f"g:{game_id}:{moving_code(game)}")
        assert (await stored_game(database, 42, 42)).moves == game.moves + 1
    finally:
        await bot.stop()


async def test_the_centre_of_the_arrows_switches_to_numbers_and_back(api, bot):
    anna = User(api, 101, "Anna")
    board = await anna.open_board()
    answer, board = await anna.tap(board, "🔢")
    assert answer["text"] == "Number view is on."
    assert "<pre>" in board.html and "🎨" in buttons(board)
    code = moving_code(await stored_game(bot.database, 101, 101))
    _, board = await anna.tap(board, {"l": "⬅️", "r": "➡️", "u": "⬆️", "d": "⬇️"}[code])
    assert "<pre>" in board.html  # moves keep the view the button chose
    answer, board = await anna.tap(board, "🎨")
    assert answer["text"] == "Emoji view is on."
    assert "<pre>" not in board.html and "🔢" in buttons(board)
