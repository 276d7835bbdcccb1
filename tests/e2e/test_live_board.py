"""One live board per game: the board a player sees last always shows the game as it is."""

from __future__ import annotations

from bot.presentation.render import tile_emoji
from tests.support.boards import button_data, buttons, grid, shown_moves
from tests.support.databases import execute_sql, put_board
from tests.support.harness import User

MERGE_LEFT = [[2, 2, 0, 0], [0] * 4, [0] * 4, [0] * 4]


async def test_a_newer_board_takes_the_buttons_off_the_older_one(api, bot):
    anna = User(api, 101, "Anna")
    old = await anna.open_board()
    new = await anna.open_board()
    assert new.message_id != old.message_id
    await api.wait_request("editMessageReplyMarkup", message_id=old.message_id)
    assert buttons(api.stored_message(101, old.message_id)) == {}
    assert "⬅️" in buttons(api.stored_message(101, new.message_id))


async def test_a_tap_on_an_older_board_moves_the_game_on_its_newest_board(api, bot):
    anna = User(api, 101, "Anna")
    old = await anna.open_board()
    left = button_data(old, "⬅️")
    await put_board(bot.database, 101, 101, MERGE_LEFT)
    new = await anna.open_board()
    await api.wait_request("editMessageReplyMarkup", message_id=old.message_id)
    # A client that has not refetched the old message still shows its arrows, and sends the tap.
    query = api.tap(101, 101, old.message_id, left, strict=False)
    answer = await api.wait_answer(query)
    assert answer["text"] == "Your game continues on the newest board below."
    await api.wait_request("editMessageText", message_id=new.message_id)
    newest = api.stored_message(101, new.message_id)
    assert shown_moves(newest.text) == 1
    assert grid(newest)[0].startswith(tile_emoji(4))
    assert "⬅️" in buttons(newest)
    # Within the chat's pace: Telegram refused nothing (no 429).
    edits = ("sendMessage", "editMessageText", "editMessageReplyMarkup")
    assert not api.find_requests(edits, ok=False)


async def test_view_posts_the_only_live_board(api, bot):
    anna = User(api, 101, "Anna")
    old = await anna.open_board()
    new = await anna.open_board("/view")
    await api.wait_request("editMessageReplyMarkup", message_id=old.message_id)
    assert buttons(api.stored_message(101, old.message_id)) == {}
    assert "<pre>" in new.html and "⬅️" in buttons(new)


async def test_an_older_board_still_showing_arrows_loses_them_when_tapped(api, bot):
    """A board posted before boards were taken off (or whose edit Telegram lost) still has
    arrows: its tap moves the game on the game's board, and the arrows go."""
    anna = User(api, 101, "Anna")
    first = await anna.open_board()
    await put_board(bot.database, 101, 101, MERGE_LEFT)
    second = await anna.open_board()
    await api.wait_request("editMessageReplyMarkup", message_id=first.message_id)
    # Make the first board the game's board again: the second is now an older one with arrows.
    await execute_sql(bot.database, "UPDATE games SET message_id = ?", first.message_id)
    mark = api.mark()
    answer, _ = await anna.tap(second, "⬅️", edit=False)
    assert answer["text"] == "Your game continues on the newest board below."
    await api.wait_request("editMessageText", message_id=first.message_id, after=mark)
    await api.wait_request("editMessageReplyMarkup", message_id=second.message_id, after=mark)
    assert buttons(api.stored_message(101, second.message_id)) == {}
    assert shown_moves(api.stored_message(101, first.message_id).text) == 1
