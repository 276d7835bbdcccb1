"""PlayerService: names, languages and views as the player last set them, a group that
became a supergroup taking all it had along, and a player's taps spent from one budget."""

from __future__ import annotations

from bot.models import Player
from bot.services.cache import no_cache
from bot.services.challenges import ChallengeService
from bot.services.games import GameService
from bot.services.locks import ChatLocks
from bot.services.players import PlayerService, TapBudget
from bot.storage import open_storage

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


async def test_a_players_taps_are_one_budget_for_every_process_sharing_the_database(postgres):
    """Taps spent in turn through two processes' storages: the burst once, not once each.
    The refill (a tap a million seconds) adds nothing while the test runs."""
    stores = [await open_storage(postgres) for _ in range(2)]
    try:
        services = [
            PlayerService(store, ChatLocks(store), copies=no_cache, taps=TapBudget(store, 1e-6, 5))
            for store in stores
        ]
        await services[0].set_language(PLAYER, PLAYER, "nl")
        spent = [await services[n % 2].spend_tap(PLAYER) for n in range(8)]
        assert [player is not None for player in spent] == [True] * 5 + [False] * 3
        assert {player.language for player in spent if player is not None} == {"nl"}
        # Another player's taps are their own; a player without a row gets one, and a burst.
        newcomer = [await services[n % 2].spend_tap(PLAYER + 1) for n in range(6)]
        assert [player is not None for player in newcomer] == [True] * 5 + [False]
        assert newcomer[0] == Player(PLAYER + 1)
    finally:
        for store in stores:
            await store.close()


async def test_without_a_shared_budget_spending_a_tap_only_reads_the_player(storage):
    players = PlayerService(storage, ChatLocks(storage))
    await players.set_language(PLAYER, PLAYER, "de")
    spent = [await players.spend_tap(PLAYER) for _ in range(100)]
    assert {player.language for player in spent} == {"de"}
