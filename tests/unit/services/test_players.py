"""PlayerService: names, languages and views as the player last set them, and a group that
became a supergroup taking all it had along."""

from __future__ import annotations

from bot.services.challenges import ChallengeService
from bot.services.games import GameService
from bot.services.locks import ChatLocks
from bot.services.players import PlayerService

PLAYER = 51
BASIC, SUPER = -5100, -1_000_000_005_100


async def test_a_renamed_player_is_known_by_the_new_name_and_their_apps_language(storage):
    players = PlayerService(storage, ChatLocks(storage))
    await players.remember_name(PLAYER, PLAYER, "Anna", "de")
    assert (await players.player(PLAYER)).name == "Anna"
    await players.remember_name(PLAYER, PLAYER, "Anneke", "nl")
    player = await players.player(PLAYER)
    assert (player.name, player.telegram_language) == ("Anneke", "nl")
    assert (await storage.player(PLAYER)).name == "Anneke"


async def test_a_chosen_language_and_view_apply_from_the_next_update_on(storage):
    players = PlayerService(storage, ChatLocks(storage))
    before = await players.player(PLAYER)  # read, and kept for the next update
    assert (before.language, before.view) == (None, "emoji")
    await players.set_language(PLAYER, PLAYER, "nl")
    assert await players.set_view(PLAYER, PLAYER, "numbers") == "numbers"
    after = await players.player(PLAYER)
    assert (after.language, after.view) == ("nl", "numbers")
    stored = await storage.player(PLAYER)
    assert (stored.language, stored.view) == ("nl", "numbers")


async def test_a_groups_language_is_the_groups_alone(storage):
    players = PlayerService(storage, ChatLocks(storage))
    await players.set_chat_language(BASIC, "de")
    assert await players.chat_language(BASIC) == "de"
    assert await players.chat_language(SUPER) is None
    assert (await players.player(PLAYER)).language is None


async def test_an_upgraded_group_takes_its_games_challenges_and_language_once(storage):
    locks = ChatLocks(storage)
    players = PlayerService(storage, locks)
    games = GameService(storage, locks, new_seed=lambda: 3)
    board = await games.start(BASIC, PLAYER, 5)
    challenge = await ChallengeService(storage, locks).create(BASIC, "Club", "en", PLAYER, 4, 3600)
    assert challenge is not None
    await players.set_chat_language(BASIC, "de")

    moved = await players.move_group(BASIC, SUPER)
    assert [c.id for c in moved] == [challenge.id] and moved[0].chat_id == SUPER
    assert (await storage.active_game(SUPER, PLAYER)).id == board.id
    assert await storage.active_game(BASIC, PLAYER) is None
    assert await players.chat_language(SUPER) == "de"
    assert [c.id for c in await storage.open_challenges(SUPER)] == [challenge.id]
    assert await players.move_group(BASIC, SUPER) == []  # the second notice moves nothing
    assert (await storage.active_game(SUPER, PLAYER)).id == board.id
