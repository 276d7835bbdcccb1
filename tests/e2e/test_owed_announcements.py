"""What a challenge's end owes its group goes out once, whatever happens after the end is saved.

The final card and the winner are written to the outbox in the transaction that ends the
challenge. A database outage right after that commit, an end that falls inside an outage, or
a restart while Telegram holds the group back must all end with the group showing the final
card (without its Play button) and one winner message. (How processes share the outbox:
tests/unit/services/test_outbox.py.)
"""

from __future__ import annotations

import asyncio
import time

import pytest

from tests.support.boards import buttons, isolated
from tests.support.databases import Database, execute_sql
from tests.support.harness import RunningBot, User

GROUP = -100424242
FLOOD_WAIT = 12  # longer than a shutdown waits for a chat's queue


@pytest.fixture
async def outage(api, postgres, proxied):
    """A bot on a fresh PostgreSQL schema reached through a proxy the test can cut:
    (proxy, bot, the database's own URL for the test's writes during an outage)."""
    proxy, url = proxied
    bot = RunningBot(api, url)
    await bot.start()
    try:
        yield proxy, bot, postgres
    finally:
        await bot.stop()


async def challenge_bob_leads(api, database: Database) -> int:
    """A challenge in the group that Bob has joined and leads; its card's message id.

    His score is written, not played: a tap would have the card redrawn, and an edit still on
    its way could pass for the final card.
    """
    anna, bob = User(api, 101, "Anna"), User(api, 202, "Bob")
    api.add_group(GROUP, "Owed", admins={anna.id})
    api.send_text(anna.id, GROUP, "/challenge 4 1h")
    card = await api.wait_request("sendMessage", chat_id=GROUP, timeout=30)
    card_id = card.result["message_id"]
    link = buttons(api.stored_message(GROUP, card_id))["▶️ Play"]
    await bob.open_board(f"/start {link.split('start=')[1]}")
    await execute_sql(
        database, "UPDATE games SET score = 48, moves = 9 WHERE challenge_id IS NOT NULL"
    )
    return card_id


async def end_now(database: Database) -> None:
    """Move the challenge's end into the past: the bot finds it overdue."""
    past = time.time() - 1
    await execute_sql(database, "UPDATE challenges SET ends_at = ? WHERE finished = 0", past)
    await execute_sql(database, "UPDATE games SET closes_at = ? WHERE closes_at IS NOT NULL", past)


def winners(api) -> list[str]:
    texts = [m.get("text", "") for m in api.messages(GROUP) if m["from"]["id"] == api.bot_id]
    return [text for text in texts if "wins the" in text]


async def queue_done(api, user_id: int, chat_id: int) -> None:
    """Wait until the bot has sent what it had queued for the chat: a /help asked now is
    answered after it."""
    api.send_text(user_id, chat_id, "/help")
    await api.wait_request(
        "sendMessage", chat_id=chat_id, text=lambda t: t.startswith("<b>Commands"), timeout=30
    )


def assert_ended_once(api, card_id: int) -> None:
    (winner,) = winners(api)
    assert f"{isolated('Bob')} wins the Classic 4×4 challenge with 48 points" in winner
    card = api.stored_message(GROUP, card_id)
    assert "Final standings" in card.text
    assert not buttons(card), "the final card still offers its Play button"


# The bot logs the outage at ERROR whenever it reaches for the database while it is cut.
@pytest.mark.errors_expected
async def test_an_end_saved_just_before_the_database_went_away_is_announced_once(api, outage):
    proxy, _, url = outage
    card_id = await challenge_bob_leads(api, url)
    final_card = api.hold_next("editMessageText")
    await end_now(url)
    # The end is committed with what it owes; its final card is on its way: the database goes.
    await asyncio.wait_for(final_card.arrived.wait(), timeout=30)
    proxy.cut()
    final_card.release()
    await api.wait_request("editMessageText", chat_id=GROUP, message_id=card_id, timeout=30)
    proxy.restore()
    await api.wait_request("sendMessage", chat_id=GROUP, text=lambda t: "wins the" in t, timeout=30)
    await queue_done(api, 101, GROUP)
    assert_ended_once(api, card_id)


# The bot logs the outage at ERROR whenever it reaches for the database while it is cut.
@pytest.mark.errors_expected
@pytest.mark.parametrize("cut", ["reset", "black hole"])
async def test_an_end_that_falls_in_an_outage_is_announced_soon_after_it(api, outage, caplog, cut):
    """Not at the next minute's look for open challenges: within the outbox's few seconds.
    A black hole makes the catch-up job's runs hang on the database: each is cut off, said
    once, and the runs after the return do their work."""
    proxy, bot, url = outage
    card_id = await challenge_bob_leads(api, url)
    catch_up = bot.application.job_queue.get_jobs_by_name("catch-up")[0]
    (proxy.cut if cut == "reset" else proxy.black_hole)()
    await end_now(url)  # the end time passes while the bot cannot reach its database
    for _ in range(2):  # two runs of the catch-up meet the outage
        due = catch_up.next_t
        while catch_up.next_t == due:
            await asyncio.sleep(0.05)
    proxy.restore()
    winner = api.wait_request("sendMessage", chat_id=GROUP, text=lambda t: "wins the" in t)
    await asyncio.wait_for(winner, timeout=30)  # well inside the 60 s of the old catch-up
    await queue_done(api, 101, GROUP)
    assert_ended_once(api, card_id)
    said = [r.getMessage() for r in caplog.records]
    assert not [line for line in said if "maximum number of running instances" in line]
    assert len([line for line in said if "job catch-up took longer" in line]) <= 1


@pytest.mark.slow  # waits out a 12 s flood wait
async def test_a_restart_while_the_group_is_held_back_still_announces_the_end_once(api, bot):
    card_id = await challenge_bob_leads(api, bot.database)
    api.flood.block(GROUP, FLOOD_WAIT)
    mark = api.mark()
    await end_now(bot.database)
    # The end is saved and its final card refused for the flood wait: the bot is redeployed.
    await api.wait_for(
        lambda r: r.error_code == 429 and r.params.get("chat_id") == GROUP, after=mark
    )
    await bot.stop()
    await bot.start()
    await api.wait_request(
        "sendMessage", chat_id=GROUP, text=lambda t: "wins the" in t, timeout=FLOOD_WAIT + 30
    )
    await queue_done(api, 101, GROUP)
    assert_ended_once(api, card_id)
