"""Nothing one person sends slows anyone else: every way in is throttled and bounded."""

from __future__ import annotations

import pytest

from tests.support.databases import count_rows
from tests.support.harness import User

GROUP = -100300400


@pytest.fixture
def club(api):
    anna = User(api, 101, "Anna", "en")
    bob = User(api, 202, "Bob", "en")
    api.add_group(GROUP, "2048 Club", admins={anna.id}, members={anna.id, bob.id})
    return anna, bob


@pytest.mark.slow  # 2,000 taps
async def test_two_thousand_board_taps_leave_another_members_command_the_next_slot(api, bot, club):
    anna, bob = club
    board = await anna.open_board("/new 4", replies=1, chat_id=GROUP)
    kinds = ("new", "new:4", "cur")  # 🆕, a size in the size menu, "My current game"
    queries = [
        api.tap(anna.id, GROUP, board.message_id, kinds[n % 3], strict=False) for n in range(2000)
    ]
    for query in queries:
        await api.wait_answer(query, timeout=60)
    mark = api.mark()
    api.send_text(bob.id, GROUP, "/help")
    help_reply = await api.wait_request(
        "sendMessage",
        after=mark,
        chat_id=GROUP,
        text=lambda text: "/rules" in text,
        timeout=60,
    )
    posted_before = api.find_requests("sendMessage", after=mark, chat_id=GROUP)
    ahead = [r for r in posted_before if r.index < help_reply.index]
    # At most Anna's latest size menu and latest board were still waiting for the group.
    assert len(ahead) <= 2
    # A size tapped on a menu opens no game while the one opened is still unplayed.
    assert await count_rows(bot.database, "games", "owner_id = ?", anna.id) == 1
