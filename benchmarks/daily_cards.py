"""The daily's message in a group of 500 members who all finish their daily within a minute.

Run from the repository root:

    .venv/bin/python -m benchmarks.daily_cards [--members 500] [--seconds 60] [--commands 30]

The real bot (SQLite, Telegram's pace, the production card interval) against the emulator
with Telegram's flood limits. A group opts in with `/daily on`; its members each play in the
group and start today's daily in private, all but its last move made beforehand (the day's
seed is one whose game ends in a few moves). Then, within `--seconds`, each member taps
their last move at a random moment, and `--commands` `/daily` commands in the group ask for
its standings meanwhile. Prints how many times the day's message was edited, the largest
number of sends and edits into the group in any 60 s (target: at most 20, Telegram's limit)
and the 429s anywhere (target: 0).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import tempfile
import time
from pathlib import Path

import engine
from bot.config import TELEGRAM_PACE, Config
from bot.emulator import FakeBotApi
from bot.emulator.flood import limited
from bot.models import Daily
from bot.services.daily import day_of
from bot.storage import Storage
from tests.support.boards import button_data
from tests.support.daily import losing_actions
from tests.support.harness import RunningBot, User, eventually

GROUP = -100_500_500
WINDOW = 60.0
GROUP_LIMIT = 20
START_BATCH = 25  # members starting their daily at once, before the minute
CARD_INTERVAL = Config(token="0:x").card_interval  # production's, not the tests'


def _quick_seed() -> tuple[int, list[engine.Action]]:
    """A seed whose game ends soonest among a few hundred, and the moves that end it."""
    return min(((seed, losing_actions(4, seed)) for seed in range(300)), key=lambda s: len(s[1]))


async def _fix_todays_daily(storage: Storage, seed: int) -> Daily:
    """Today's 4×4 daily on `seed`, made before anyone asks for it."""
    now = time.time()
    day, ends_at = day_of(now)
    salt = "0" * engine.SALT_HEX_DIGITS
    candidate = Daily(0, day, 4, seed, salt, engine.commitment(salt, seed, 4, day), ends_at)
    async with storage.transaction():
        return await storage.ensure_daily(candidate, now)


def _busiest_window(times: list[float]) -> int:
    """The most of `times` (sorted) in any WINDOW seconds."""
    most, first = 0, 0
    for last, at in enumerate(times):
        while at - times[first] >= WINDOW:
            first += 1
        most = max(most, last - first + 1)
    return most


async def run(members: int, seconds: float, commands: int) -> None:
    async with FakeBotApi() as api:
        with tempfile.TemporaryDirectory() as folder:
            bot = RunningBot(
                api,
                Path(folder) / "daily_cards.sqlite3",
                pace=TELEGRAM_PACE,
                card_interval=CARD_INTERVAL,
            )
            await bot.start()
            try:
                await _flood(api, bot, members, seconds, commands)
            finally:
                await bot.stop()


async def _flood(
    api: FakeBotApi, bot: RunningBot, members: int, seconds: float, commands: int
) -> None:
    runtime = bot.application.bot_data.runtime
    assert runtime is not None
    admin = User(api, 100, "Admin")
    players = [User(api, 1000 + n, f"M{n}") for n in range(members)]
    api.add_group(GROUP, "Big club", admins={admin.id}, members={p.id for p in players})
    seed, actions = _quick_seed()
    await _fix_todays_daily(runtime.storage, seed)
    now = time.time()
    async with runtime.storage.transaction():  # each has played in the group: a member
        for player in players:
            await runtime.storage.insert_game(GROUP, player.id, engine.new_game(4, 1, now), now)
    mark = api.mark()
    api.send_text(admin.id, GROUP, "/daily on")
    card = await api.wait_request(
        "sendMessage", after=mark, chat_id=GROUP, text=lambda t: "<b>Daily 2048</b>" in t
    )
    card_id = card.result["message_id"]

    print(f"{members} members start the daily (seed {seed}: {len(actions)} moves to its end)…")
    boards: list[int] = []
    for first in range(0, members, START_BATCH):
        batch = players[first : first + START_BATCH]
        boards += await asyncio.gather(*(_started(api, player) for player in batch))
    for player, game_id in zip(players, boards, strict=True):
        for action in actions[:-1]:
            await runtime.games.tap(player.id, player.id, game_id, action)

    rng = random.Random(500)
    last_code = engine.ACTION_CODES[actions[-1]]
    began = time.time()

    async def finish(player: User, game_id: int) -> None:
        await asyncio.sleep(rng.uniform(0, seconds))
        message = api.last_bot_message(player.id)
        assert message is not None
        await api.wait_answer(
            api.tap(player.id, player.id, message["message_id"], f"g:{game_id}:{last_code}")
        )

    async def ask(player: User) -> None:
        await asyncio.sleep(rng.uniform(0, seconds))
        api.send_text(player.id, GROUP, "/daily")

    flood = api.mark()
    await asyncio.gather(
        *(finish(p, g) for p, g in zip(players, boards, strict=True)),
        *(ask(rng.choice(players)) for _ in range(commands)),
    )
    tapped = time.time() - began
    # The last finish queued one more edit, up to an interval later: wait for the queue.
    while runtime.pacer.backlog()[0]:
        await asyncio.sleep(0.2)
    into_group = [
        r for r in api.log.items[mark:] if limited(r.method) and r.params.get("chat_id") == GROUP
    ]
    edits = [
        r
        for r in api.log.items[flood:]
        if r.method == "editMessageText"
        and r.params.get("chat_id") == GROUP
        and r.params.get("message_id") == card_id
        and r.ok
    ]
    refused = [r for r in api.log.items if r.error_code == 429]
    final = api.stored_message(GROUP, card_id).text
    print(
        "\n".join(
            [
                f"{members} finishes and {commands} group commands in {tapped:.1f} s",
                f"edits of the day's message: {len(edits)}",
                f"sends and edits into the group: {len(into_group)}, at most "
                f"{_busiest_window(sorted(r.time for r in into_group))} in any 60 s "
                f"(limit {GROUP_LIMIT})",
                f"429s: {len(refused)}",
                f"the message ends on: {final.splitlines()[-1]!r}",
            ]
        )
    )


async def _started(api: FakeBotApi, player: User) -> int:
    """The player's `/daily` in private; the id of their daily's game, once its board is
    there (hundreds of players at once: no one's wait may take another's reply)."""
    api.send_text(player.id, player.id, "/daily")

    def board() -> bool:
        message = api.last_bot_message(player.id)
        return message is not None and "⬅️" in str(message.get("reply_markup"))

    await eventually(board, timeout=120)
    return int(button_data(player.board(), "⬅️").split(":")[1])


if __name__ == "__main__":
    arguments = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    arguments.add_argument("--members", type=int, default=500)
    arguments.add_argument("--seconds", type=float, default=60.0)
    arguments.add_argument("--commands", type=int, default=30, help="/daily in the group")
    options = arguments.parse_args()
    asyncio.run(run(options.members, options.seconds, options.commands))
