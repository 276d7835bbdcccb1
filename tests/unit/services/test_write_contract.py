"""The write contract, on both backends: services take the chat's lock and one transaction,
storage never commits on its own, and misuse fails at once with a clear error, never a hang."""

from __future__ import annotations

import asyncio

import pytest

import engine
from bot.codecs import challenge_payload
from bot.services.challenges import ChallengeService, JoinStatus
from bot.services.games import GameService
from bot.services.locks import ChatLocks
from bot.services.players import PlayerService
from bot.storage import TransactionError

GROUP = -4242
PLAYER = 31


async def test_a_write_outside_a_transaction_is_refused_and_changes_nothing(storage):
    with pytest.raises(TransactionError, match="inside transaction"):
        await storage.set_language(PLAYER, "nl")
    with pytest.raises(TransactionError, match="inside transaction"):
        await storage.set_chat_language(GROUP, "de")
    assert (await storage.player(PLAYER)).language is None
    assert await storage.chat_language(GROUP) is None


async def test_a_nested_transaction_fails_at_once_and_the_outer_one_still_commits(storage):
    async with asyncio.timeout(5), storage.transaction():
        await storage.set_language(PLAYER, "de")
        with pytest.raises(TransactionError, match="do not nest"):
            async with storage.transaction():
                await storage.set_view(PLAYER, "numbers")
    player = await storage.player(PLAYER)
    assert (player.language, player.view) == ("de", "emoji")


async def test_every_service_method_runs_concurrently_with_taps(storage):
    """Taps on one board race every writing service method, in that chat and in others."""
    locks = ChatLocks(storage)
    games = GameService(storage, locks, new_seed=lambda: 4)
    players = PlayerService(storage, locks)
    challenges = ChallengeService(storage, locks)
    board = await games.start(PLAYER, PLAYER, 4)
    challenge = await challenges.create(GROUP, "Club", "en", PLAYER, 4, 3600)
    assert challenge is not None
    taps = [
        games.tap(PLAYER, PLAYER, board.id, direction)
        for direction in ("left", "up", "right", "down") * 10
    ]
    others = [
        games.start(PLAYER + 1, PLAYER + 1, 5),
        games.current_or_start(PLAYER + 2, PLAYER + 2),
        games.current_or_start(PLAYER, PLAYER),
        games.link_message(board, 777),
        games.save_hint(board, "left"),
        players.remember_name(PLAYER, PLAYER, "Renamed"),
        players.set_language(PLAYER, PLAYER, "nl"),
        players.set_view(PLAYER, PLAYER, "numbers"),
        players.set_chat_language(GROUP, "de"),
        challenges.create(GROUP, "Club", "en", PLAYER + 1, 5, 600),
        challenges.set_card(challenge, 555),
        challenges.join(challenge_payload(challenge), PLAYER),
        challenges.join(challenge_payload(challenge), PLAYER + 1),
    ]
    async with asyncio.timeout(30):
        tap_results, _ = await asyncio.gather(asyncio.gather(*taps), asyncio.gather(*others))
    applied = [r for r in tap_results if r.changed]

    saved = await storage.game(board.id)
    assert saved.game.moves == len(applied)  # every applied tap is in the saved game, once
    assert saved.message_id == 777
    player = await storage.player(PLAYER)
    assert (player.name, player.language, player.view) == ("Renamed", "nl", "numbers")
    assert await storage.chat_language(GROUP) == "de"
    assert (await storage.challenge(challenge.id)).message_id == 555
    assert await storage.challenge_players(challenge.id) == 2
    assert (await storage.active_game(PLAYER + 1, PLAYER + 1)).game.size == 5
    assert (await storage.active_game(PLAYER + 2, PLAYER + 2)).game.size == 4
    assert len([c for c in await storage.open_challenges() if c.chat_id == GROUP]) == 2
    finished = await asyncio.gather(challenges.finish(challenge), challenges.finish(challenge))
    assert sum(f is not None for f in finished) == 1
    assert (
        await challenges.join(challenge_payload(challenge), PLAYER + 5)
    ).status is JoinStatus.ENDED
    records = (await storage.records(PLAYER))[4]
    assert records.games_played == 1 and records.best_score == saved.game.score
    assert engine.from_dict(engine.to_dict(saved.game)) == saved.game
