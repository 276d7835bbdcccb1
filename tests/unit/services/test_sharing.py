"""SharingService: which game a player shares, pictures sent again by file id, and duels: a
friend gets the same tiles, races the game as it stood when shared, and both hear the result
once."""

from __future__ import annotations

import engine
from bot.codecs import challenge_payload, duel_payload
from bot.models import ObligationKind, StoredGame
from bot.services.challenges import ChallengeService
from bot.services.games import GameService
from bot.services.locks import ChatLocks
from bot.services.outbox import Outbox
from bot.services.sharing import DuelStatus, SharingService, rival_state
from bot.storage import Storage
from tests.support.boards import moving_code
from tests.support.databases import put_board

NOW = 1_700_000_000.0
ANNA, BOB = 71, 72
GROUP = -100710071
NO_MOVE_LEFT = [[2, 4, 2, 4], [4, 2, 4, 2], [2, 4, 2, 4], [4, 2, 4, 2]]


class OneProcess:
    """The game and sharing services of one process, its outbox held under one name."""

    def __init__(self, storage: Storage) -> None:
        locks = ChatLocks(storage)
        self.games = GameService(storage, locks, clock=lambda: NOW, new_seed=lambda: 9)
        self.outbox = Outbox(storage, lambda: NOW, "this process")
        self.sharing = SharingService(storage, locks, self.games, lambda: NOW, self.outbox)
        self.challenges = ChallengeService(storage, locks, lambda: NOW, outbox=self.outbox)


async def played_on(games: GameService, stored: StoredGame, moves: int) -> StoredGame:
    """The game after `moves` more moves by its owner."""
    for _ in range(moves):
        direction = engine.CODE_ACTIONS[moving_code(stored.game)]
        stored = (await games.tap(stored.chat_id, stored.owner_id, stored.id, direction)).stored
    return stored


async def played(games: GameService, chat_id: int, user_id: int, moves: int) -> StoredGame:
    """A new game of `user_id`'s in `chat_id`, with `moves` moves made."""
    return await played_on(games, await games.start(chat_id, user_id, 4), moves)


async def test_the_game_shared_is_the_running_one_once_it_has_a_move(storage):
    services = OneProcess(storage)
    older = await played(services.games, ANNA, ANNA, 3)
    fresh = await services.games.start(ANNA, ANNA, 4)
    assert (await services.sharing.subject(ANNA, ANNA)).id == older.id  # nothing to show yet
    await services.games.tap(ANNA, ANNA, fresh.id, engine.CODE_ACTIONS[moving_code(fresh.game)])
    assert (await services.sharing.subject(ANNA, ANNA)).id == fresh.id
    assert (await services.sharing.latest_anywhere(ANNA)).id == fresh.id
    assert await services.sharing.subject(BOB, BOB) is None


async def test_a_picture_sent_once_is_sent_again_by_its_file_id(storage):
    sharing = OneProcess(storage).sharing
    assert await sharing.file_id("card:1:abc") is None
    await sharing.remember_file(ANNA, "card:1:abc", "AgADBAAD")
    assert await sharing.file_id("card:1:abc") == "AgADBAAD"


async def test_a_duel_gives_the_friend_the_same_tiles_to_beat_the_game_as_shared(storage):
    services = OneProcess(storage)
    shared = await played(services.games, ANNA, ANNA, 4)
    link = duel_payload(shared)
    started = await services.sharing.start_duel(link, BOB)
    assert started.status is DuelStatus.STARTED
    entry = started.entry
    assert (entry.chat_id, entry.owner_id) == (BOB, BOB)
    assert (
        entry.game.seed == shared.game.seed
        and entry.game.board == engine.new_game(4, shared.game.seed, NOW).board
    )
    assert started.target.board == shared.game.board and started.target.moves == 4
    assert (await services.sharing.start_duel(link, BOB)).entry.id == entry.id  # tapped again

    await played_on(services.games, shared, 3)  # Anna plays on: the duel's target stays
    rival, target = await services.sharing.duel_target(entry)
    assert rival == ANNA and target.board == shared.game.board
    assert target == rival_state(await storage.game(shared.id), len(shared.actions))


async def test_a_duel_on_ones_own_game_starts_nothing(storage):
    services = OneProcess(storage)
    shared = await played(services.games, ANNA, ANNA, 2)
    own = await services.sharing.start_duel(duel_payload(shared), ANNA)
    assert own.status is DuelStatus.OWN and own.entry is None
    assert (await storage.active_game(ANNA, ANNA)).id == shared.id


async def test_a_forged_duel_link_starts_nothing(storage, database):
    services = OneProcess(storage)
    shared = await played(services.games, ANNA, ANNA, 2)
    link = duel_payload(shared)
    game_id, actions, token = link[1:].split("_")
    for forged in (
        f"d{game_id}_{actions}_{'a' * 8}",  # a token guessed
        f"d{game_id}_{int(actions) + 1}_{token}",  # beyond the game's log
        f"d{int(game_id) + 50}_{actions}_{token}",  # no such game
        "d1_1",
    ):
        assert (await services.sharing.start_duel(forged, BOB)).status is DuelStatus.INVALID
    await put_board(database, ANNA, ANNA, NO_MOVE_LEFT)  # set by hand: the game has no log
    assert duel_payload(await storage.game(shared.id)) is None
    assert (await services.sharing.start_duel(link, BOB)).status is DuelStatus.INVALID
    assert await storage.active_game(BOB, BOB) is None


async def test_a_running_challenges_entry_is_no_duel_until_the_challenge_ends(storage):
    services = OneProcess(storage)
    challenge = await services.challenges.create(GROUP, "Club", "en", ANNA, 4, 3600)
    entry = (await services.challenges.join(challenge_payload(challenge), ANNA)).entry
    await played_on(services.games, entry, 2)
    link = duel_payload(await storage.game(entry.id))
    assert await services.sharing.in_running_challenge(entry)
    refused = await services.sharing.start_duel(link, BOB)
    assert refused.status is DuelStatus.CHALLENGE_RUNNING
    await services.challenges.finish(challenge)
    assert (await services.sharing.start_duel(link, BOB)).status is DuelStatus.STARTED


async def test_a_finished_duel_is_told_to_both_players_once(storage, database):
    services = OneProcess(storage)
    shared = await played(services.games, ANNA, ANNA, 3)
    entry = (await services.sharing.start_duel(duel_payload(shared), BOB)).entry
    assert not await services.sharing.finish_duel(entry)  # still being played: nothing owed
    await put_board(database, BOB, BOB, NO_MOVE_LEFT)
    over = await storage.game(entry.id)
    assert over.game.over
    assert await services.sharing.finish_duel(over)
    assert not await services.sharing.finish_duel(over)  # told once
    owed = await services.outbox.take_due()
    assert sorted((o.kind, o.chat_id, o.subject_id) for o in owed) == [
        (ObligationKind.DUEL_RESULT, ANNA, entry.id),
        (ObligationKind.DUEL_RESULT, BOB, entry.id),
    ]
    result = await services.sharing.duel_result(entry.id)
    assert (result.rival.id, result.entry.id) == (shared.id, entry.id)
    assert result.target.board == shared.game.board
    assert await services.sharing.duel_result(shared.id) is None  # a game that duels nothing
