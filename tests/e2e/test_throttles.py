"""Nothing one person sends slows anyone else: every way in is throttled and bounded."""

from __future__ import annotations

import pytest

from bot.config import TELEGRAM_PACE
from bot.wiring import TAP_BURST
from tests.support.databases import count_rows
from tests.support.harness import User

GROUP = -100300400
# Taps on a group board's menus, all at once: four of the tap budget's bursts, so that the
# budget refuses taps (it lets its burst through, then TAPS_PER_SECOND), while the burst let
# through alone asks for more posts than the group's pace sends at once (TELEGRAM_PACE.burst)
# plus the two that may still wait. More taps prove nothing more: past the budget, a tap
# costs the group no post (benchmarks/tap_flood.py floods 2,000 to time it).
FLOOD_TAPS = 4 * int(TAP_BURST)


@pytest.fixture
def club(api):
    anna = User(api, 101, "Anna", "en")
    bob = User(api, 202, "Bob", "en")
    api.add_group(GROUP, "2048 Club", admins={anna.id}, members={anna.id, bob.id})
    return anna, bob


@pytest.mark.slow  # hundreds of taps
async def test_a_flood_of_board_taps_leaves_another_members_command_the_next_slot(api, bot, club):
    # Every third tap is a 🆕, which asks for a size menu: the burst's menus alone are more
    # than the group's pace lets out at once, plus the two that may wait.
    assert TELEGRAM_PACE.burst + 2 < TAP_BURST // 3
    anna, bob = club
    board = await anna.open_board("/new 4", replies=1, chat_id=GROUP)
    kinds = ("new", "new:4", "cur")  # 🆕, a size in the size menu, "My current game"
    queries = [
        api.tap(anna.id, GROUP, board.message_id, kinds[n % 3], strict=False)
        for n in range(FLOOD_TAPS)
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
