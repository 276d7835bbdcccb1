"""A player tapping while a group floods the bot with commands: a test's check, a benchmark's
figures."""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass

from bot.emulator import FakeBotApi
from tests.support.boards import button_data
from tests.support.harness import User

GROUP = -100777000
COMMANDS = 300


@dataclass(frozen=True)
class GroupFlood:
    waited: list[float]  # seconds from each tap to its answer
    group_posts: int  # the group's replies sent by the time the last tap was answered
    seconds: float  # from the first command to the last answer


async def taps_during_a_group_flood(api: FakeBotApi, taps: int = 20) -> GroupFlood:
    """300 commands in a busy group, then `taps` taps by a player in her private chat."""
    members = [User(api, 500 + n, f"M{n}") for n in range(10)]
    api.add_group(GROUP, "Busy", admins={members[0].id}, members={m.id for m in members})
    anna = User(api, 101, "Anna")
    board = await anna.open_board()
    game_id = button_data(board, "⬅️").split(":")[1]
    mark = api.mark()
    for n in range(COMMANDS):
        api.send_text(members[n % 10].id, GROUP, ("/help", "/rules", "/best")[n % 3])
    began = time.time()  # the emulator's clock: it stamps each request with time.time()
    rng = random.Random(300)
    waited = []
    answered = began
    for _ in range(taps):
        sent = time.time()
        query = api.tap(
            101, 101, board.message_id, f"g:{game_id}:{rng.choice('lurd')}", strict=False
        )
        await api.wait_answer(query)
        (answer,) = api.find_requests("answerCallbackQuery", callback_query_id=query)
        waited.append(answer.time - sent)
        answered = answer.time
        await asyncio.sleep(0.1)  # a fast human's pace
    posts = len(api.find_requests("sendMessage", after=mark, chat_id=GROUP))
    return GroupFlood(waited, posts, answered - began)
