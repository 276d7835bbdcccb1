"""GameService: games started, played, undone and hinted, on real storage."""

from __future__ import annotations

import dataclasses
import random

import pytest

import engine
from bot.codecs import challenge_payload
from bot.models import NewChallenge, StoredGame
from bot.outcomes import HintStatus, TapStatus
from bot.services.cache import no_cache
from bot.services.challenges import ChallengeService
from bot.services.games import GameService, move_number
from bot.services.locks import ChatLocks
from bot.storage import Storage, open_storage
from tests.support.boards import moving_code
from tests.support.databases import count_rows, put_board


@pytest.mark.parametrize("seed", range(20))
def test_the_sequence_number_grows_with_every_action_without_an_action_log(seed):
    """Games saved before actions were logged: undo after keep going included."""
    chooser = random.Random(seed)
    rows = (1024, 1024, 0, 0) + (0,) * 12
    game = dataclasses.replace(engine.new_game(4, seed, 0.0), board=rows)
    stored = StoredGame(1, 1, 1, game, True, None, False, actions=None)
    number = move_number(stored)
    for _ in range(300):
        action = chooser.choice(["left", "left", "up", "right", "down", "undo", "keep"])
        turn = engine.act(stored.game, action, 0.0)
        if not turn.changed:
            continue
        stored = dataclasses.replace(stored, game=turn.game)
        assert move_number(stored) > number, action
        number = move_number(stored)


NOW = 1_700_000_000.0
PLAYER, OTHER, GROUP = 41, 42, -4141
TWO_TWOS = [[2, 2, 0, 0], [0] * 4, [0] * 4, [0] * 4]  # left merges them; so does right
PACKED_LEFT = [[2, 4, 0, 0], [0] * 4, [0] * 4, [0] * 4]  # left moves nothing


def games_on(storage: Storage) -> GameService:
    return GameService(storage, ChatLocks(storage), clock=lambda: NOW, new_seed=lambda: 5)


async def test_a_tap_is_saved_with_the_players_records_and_a_refused_one_changes_nothing(
    storage, database
):
    games = games_on(storage)
    board = await games.start(PLAYER, PLAYER, 4)
    await put_board(database, PLAYER, PLAYER, PACKED_LEFT)
    refused = await games.tap(PLAYER, PLAYER, board.id, "left")
    assert (refused.status, refused.outcome) == (TapStatus.APPLIED, engine.Outcome.NOTHING_MOVES)
    assert not refused.changed
    assert (await storage.game(board.id)).game.moves == 0
    assert 4 not in await storage.records(PLAYER)  # nothing played, nothing counted yet

    moved = await games.tap(PLAYER, PLAYER, board.id, "right")
    assert moved.changed and moved.stored.game.moves == 1
    assert (await storage.game(board.id)).game == moved.stored.game
    assert (await storage.records(PLAYER))[4].games_played == 1


async def test_a_move_meant_for_a_position_applies_once_however_often_it_is_sent(storage):
    games = games_on(storage)
    board = await games.start(PLAYER, PLAYER, 4)
    number = move_number(board)
    direction = engine.CODE_ACTIONS[moving_code(board.game)]
    first = await games.tap_at(PLAYER, PLAYER, board.id, direction, number)
    again = await games.tap_at(PLAYER, PLAYER, board.id, direction, number)
    assert first.changed and (again.status, again.outcome) == (first.status, first.outcome)
    assert again.stored == first.stored
    assert (await storage.game(board.id)).game.moves == 1
    after = await games.tap_at(
        PLAYER, PLAYER, board.id, engine.CODE_ACTIONS[moving_code(first.stored.game)], number + 1
    )
    assert after.changed and after.stored.game.moves == 2


async def test_a_move_meant_for_an_older_position_is_stale_and_brings_the_game_as_it_is(storage):
    games = games_on(storage)
    board = await games.start(PLAYER, PLAYER, 4)
    moved = await games.tap(PLAYER, PLAYER, board.id, engine.CODE_ACTIONS[moving_code(board.game)])
    stale = await games.tap_at(PLAYER, PLAYER, board.id, "undo", move_number(board))
    assert stale.status is TapStatus.STALE and not stale.changed
    assert stale.stored == await storage.game(board.id) == moved.stored
    refused = await games.tap_at(OTHER, OTHER, board.id, "undo", move_number(board))
    assert refused.status is TapStatus.UNKNOWN_GAME  # not in that player's chat at all


async def test_a_refused_move_leaves_its_position_free_for_the_next_one(storage, database):
    games = games_on(storage)
    board = await games.start(PLAYER, PLAYER, 4)
    await put_board(database, PLAYER, PLAYER, PACKED_LEFT)
    number = move_number(await storage.game(board.id))
    assert not (await games.tap_at(PLAYER, PLAYER, board.id, "left", number)).changed
    moved = await games.tap_at(PLAYER, PLAYER, board.id, "right", number)
    assert moved.changed and moved.stored.game.board[2:4] == (2, 4)


async def test_a_size_tapped_in_the_menu_keeps_an_unplayed_game_of_that_size(storage):
    games = games_on(storage)
    first = await games.start(PLAYER, PLAYER, 5, keep_unplayed=True)
    assert (await games.start(PLAYER, PLAYER, 5, keep_unplayed=True)).id == first.id
    other_size = await games.start(PLAYER, PLAYER, 6, keep_unplayed=True)
    assert other_size.id != first.id and other_size.game.size == 6
    await games.tap(
        PLAYER, PLAYER, other_size.id, engine.CODE_ACTIONS[moving_code(other_size.game)]
    )
    played_on = await games.start(PLAYER, PLAYER, 6, keep_unplayed=True)
    assert played_on.id != other_size.id  # a game with a move is not thrown away unasked
    assert not (await storage.game(other_size.id)).active


async def test_the_running_game_comes_back_and_only_a_player_without_one_gets_a_new_one(storage):
    games = games_on(storage)
    started = await games.current_or_start(PLAYER, PLAYER)
    assert started.game.size == engine.SIZES[0]
    assert (await games.current_or_start(PLAYER, PLAYER)).id == started.id
    large = await games.start(PLAYER, PLAYER, 5)
    assert (await games.current_or_start(PLAYER, PLAYER)).id == large.id
    assert (await games.current_or_start(GROUP, PLAYER)).id not in (started.id, large.id)


async def test_a_hint_is_kept_only_for_the_position_it_was_searched_on(storage):
    games = games_on(storage)
    board = await games.start(PLAYER, PLAYER, 4)
    moved = await games.tap(PLAYER, PLAYER, board.id, engine.CODE_ACTIONS[moving_code(board.game)])
    assert await games.save_hint(board, "left") is None  # the game moved on meanwhile
    assert (await storage.game(board.id)).hints_used == 0

    hinted = await games.save_hint(moved.stored, "up")
    assert (hinted.shown_hint, hinted.hints_used) == ("up", 1)
    again = await games.save_hint(moved.stored, "down")  # asked again: the same hint
    assert (again.shown_hint, again.hints_used) == ("up", 1)
    assert (await storage.records(PLAYER))[4].hints_used == 1
    after = await games.tap(
        PLAYER, PLAYER, board.id, engine.CODE_ACTIONS[moving_code(moved.stored.game)]
    )
    assert after.stored.shown_hint is None  # the next move takes it off the board
    assert (await storage.game(board.id)).shown_hint is None


async def test_a_hint_for_a_game_that_was_replaced_is_dropped(storage):
    games = games_on(storage)
    board = await games.start(PLAYER, PLAYER, 4)
    await games.start(PLAYER, PLAYER, 4)
    assert await games.save_hint(board, "left") is None
    assert (await storage.game(board.id)).hints_used == 0
    assert 4 not in await storage.records(PLAYER)


async def test_a_redraw_shows_the_game_as_committed(storage):
    games = games_on(storage)
    board = await games.start(PLAYER, PLAYER, 4)
    moved = await games.tap(PLAYER, PLAYER, board.id, engine.CODE_ACTIONS[moving_code(board.game)])
    assert await games.saved(board.id) == moved.stored == await storage.game(board.id)
    await games.link_message(moved.stored, 777)  # another write in the chat since the tap
    assert (await games.saved(board.id)).message_id == 777
    assert await games.saved(board.id + 1000) is None


async def test_the_best_score_follows_the_board_and_an_undo_takes_its_points_back(
    storage, database
):
    games = games_on(storage)
    board = await games.start(PLAYER, PLAYER, 4)
    await put_board(database, PLAYER, PLAYER, TWO_TWOS)
    assert await games.best_score(PLAYER, 4) == 0
    merged = await games.tap(PLAYER, PLAYER, board.id, "left")
    assert merged.stored.game.score == 4
    assert await games.best_score(PLAYER, 4) == 4 == await storage.best_score(PLAYER, 4)
    await games.tap(PLAYER, PLAYER, board.id, "undo")
    assert await games.best_score(PLAYER, 4) == 0 == await storage.best_score(PLAYER, 4)
    assert await games.best_score(PLAYER, 5) == 0


async def test_a_hint_is_given_only_on_the_players_own_game_outside_challenges(storage):
    games = games_on(storage)
    board = await games.start(PLAYER, PLAYER, 4)
    await games.save_hint(board, "left")  # on the board already: the answer, no second search
    shown = await games.hint(PLAYER, PLAYER, board.id)
    assert shown.status is HintStatus.SHOWN and shown.stored.shown_hint == "left"
    mine = await games.start(GROUP, PLAYER, 4)
    refused = await games.hint(GROUP, OTHER, mine.id)
    assert refused.status is HintStatus.REFUSED and refused.refused.status is TapStatus.NOT_YOURS
    async with storage.transaction():
        challenge = await storage.insert_challenge(
            NewChallenge(GROUP, "Club", "en", OTHER, 4, 77, "abcdefgh", NOW + 3600), NOW
        )
    challenges = ChallengeService(storage, ChatLocks(storage), clock=lambda: NOW)
    entry = await challenges.join(challenge_payload(challenge), OTHER)
    hinted = await games.hint(OTHER, OTHER, entry.entry.id)
    assert hinted.status is HintStatus.HINTS_OFF


@pytest.mark.parametrize("processes", [1, 3])
async def test_a_games_moves_have_one_budget_however_many_processes_apply_them(database, processes):
    """A script's taps spread over processes (storages on one database) get no more moves
    than through one: the budget is counted in the game's row."""
    clock = [NOW]
    stores = [await open_storage(database) for _ in range(processes)]
    try:
        games = [
            GameService(
                s,
                ChatLocks(s),
                clock=lambda: clock[0],
                new_seed=lambda: 5,
                copies=no_cache,  # as every process keeps none with others beside it
                move_budget=(10.0, 60.0),
            )
            for s in stores
        ]
        board = await games[0].start(7, 7, 6)

        async def flood(taps: int) -> list[TapStatus]:
            statuses = []
            for n in range(taps):
                game = (await stores[0].game(board.id)).game
                direction = next(d for d in engine.DIRECTIONS if engine.play(game, d, 0.0).changed)
                result = await games[n % processes].tap(7, 7, board.id, direction, f"q{n}")
                statuses.append(result.status)
            return statuses

        first = await flood(80)
        assert first.count(TapStatus.APPLIED) == 60  # the burst
        assert first[60:] == [TapStatus.THROTTLED] * 20
        clock[0] += 1.0
        assert (await flood(15)).count(TapStatus.APPLIED) == 10  # a second's refill
        assert (await stores[0].game(board.id)).game.moves == 70
    finally:
        for store in stores:
            await store.close()


async def test_a_hint_already_on_the_board_is_the_answer_without_a_write(storage, database):
    """💡 again on the same position: the hint shown is the answer, with no search and
    nothing saved (no transaction, no record of the tap), as it counts no second hint."""
    games = games_on(storage)  # no search service: a search would fail
    board = await games.start(PLAYER, PLAYER, 4)
    hinted = await games.save_hint(board, "up", "hint-1")
    assert hinted is not None and hinted.shown_hint == "up"
    keys = await count_rows(database, "deliveries")

    again = await games.hint(PLAYER, PLAYER, board.id, "hint-2")
    assert again.status is HintStatus.SHOWN and again.stored.shown_hint == "up"
    assert again.stored.hints_used == 1 == (await storage.game(board.id)).hints_used
    assert await count_rows(database, "deliveries") == keys
