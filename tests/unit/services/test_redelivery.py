"""An update Telegram delivers again changes nothing the second time, on both backends.

Telegram sends an update again whenever it did not get the answer in time: the webhook's
answer was lost, a process died after committing. The services get the update's key and
apply it once; a repeat returns what the first delivery did. A webhook process whose answers
are lost is in tests/processes/test_redelivery.py, a process killed before its next poll
confirmed a tap in tests/processes/test_crash.py, one update posted to two processes at once
in tests/processes/test_multiprocess.py.
"""

from __future__ import annotations

import asyncio

import engine
from bot.codecs import challenge_payload
from bot.outcomes import TapStatus
from bot.services.cache import no_cache
from bot.services.challenges import ChallengeService, JoinStatus
from bot.services.games import GameService
from bot.services.locks import ChatLocks
from bot.services.players import PlayerService
from bot.services.redelivery import KEEP_SECONDS, RECENT_TAPS, UpdateLog
from bot.storage import open_storage
from tests.support.databases import count_rows

GROUP = -4343
PLAYER = 41
NOW = 1_700_000_000.0


def moving_direction(game: engine.Game) -> engine.Direction:
    return next(d for d in engine.DIRECTIONS if engine.play(game, d, 0.0).changed)


async def test_a_repeated_tap_returns_the_first_result_and_changes_nothing(storage):
    games = GameService(storage, ChatLocks(storage), clock=lambda: NOW, new_seed=lambda: 5)
    board = await games.start(PLAYER, PLAYER, 4)
    direction = moving_direction(board.game)
    first = await games.tap(PLAYER, PLAYER, board.id, direction, "q1")
    again = await games.tap(PLAYER, PLAYER, board.id, direction, "q1")
    assert first.changed and first.outcome is engine.Outcome.MOVED
    assert (again.status, again.outcome) == (first.status, first.outcome)
    assert again.stored == first.stored
    saved = await storage.game(board.id)
    assert saved.game == first.stored.game and saved.game.moves == 1
    assert (await storage.records(PLAYER))[4].games_played == 1

    refused = await games.tap(PLAYER, PLAYER + 1, board.id, direction, "q2")
    assert refused.status is TapStatus.NOT_YOURS
    assert (await games.tap(PLAYER, PLAYER + 1, board.id, direction, "q2")).status is (
        TapStatus.NOT_YOURS
    )
    undone = await games.tap(PLAYER, PLAYER, board.id, "undo", "q3")
    assert (await games.tap(PLAYER, PLAYER, board.id, "undo", "q3")).outcome is undone.outcome
    saved = await storage.game(board.id)
    assert saved.game.moves == 0 and saved.game.undos_left == engine.UNDO_LIMIT - 1


async def test_one_tap_delivered_to_two_processes_at_once_applies_once(database):
    """Each tap reaches both processes (two storages on one database) at the same moment.

    One process may run ahead of the other by every tap here: a copy is recognised while its
    game has made fewer than RECENT_TAPS moves since.
    """
    first, second = await open_storage(database), await open_storage(database)
    try:
        # No copies of saved games: processes sharing a database keep none (build_runtime).
        games = [
            GameService(first, ChatLocks(first), new_seed=lambda: 11, copies=no_cache),
            GameService(second, ChatLocks(second), copies=no_cache),
        ]
        board = await games[0].start(PLAYER, PLAYER, 4)
        plan = (["left", "up", "right", "down"] * RECENT_TAPS)[:RECENT_TAPS]
        copies = [
            games[copy].tap(PLAYER, PLAYER, board.id, direction, f"q{n}")
            for n, direction in enumerate(plan)
            for copy in (0, 1)
        ]
        results = await asyncio.gather(*copies)
        pairs = list(zip(results[::2], results[1::2], strict=True))
        for one, other in pairs:
            assert (one.status, one.outcome) == (other.status, other.outcome)
        applied = sum(1 for one, _ in pairs if one.changed)
        assert applied > 0
        assert (await first.game(board.id)).game.moves == applied
    finally:
        await first.close()
        await second.close()


async def test_repeated_commands_create_nothing_new_and_switch_nothing_back(storage, database):
    locks = ChatLocks(storage)
    games = GameService(storage, locks, clock=lambda: NOW, new_seed=lambda: 9)
    challenges = ChallengeService(storage, locks, clock=lambda: NOW)
    players = PlayerService(storage, locks)

    started = await games.start(GROUP, PLAYER, 6, f"m{GROUP}:10")
    again = await games.start(GROUP, PLAYER, 6, f"m{GROUP}:10")
    assert again == started and await count_rows(database, "games") == 1
    assert (await games.start(GROUP, PLAYER, 6, f"m{GROUP}:11")).id != started.id

    challenge = await challenges.create(GROUP, "Club", "en", PLAYER, 4, 3600, f"m{GROUP}:12")
    assert challenge is not None
    repeated = await challenges.create(GROUP, "Club", "en", PLAYER, 4, 3600, f"m{GROUP}:12")
    assert repeated == challenge and len(await storage.open_challenges(GROUP)) == 1

    joined = await challenges.join(challenge_payload(challenge), PLAYER, f"m{PLAYER}:13")
    rejoined = await challenges.join(challenge_payload(challenge), PLAYER, f"m{PLAYER}:13")
    assert joined.status is rejoined.status is JoinStatus.JOINED
    assert rejoined.entry == joined.entry and await storage.challenge_players(challenge.id) == 1
    later = await challenges.join(challenge_payload(challenge), PLAYER, f"m{PLAYER}:14")
    assert later.status is JoinStatus.ALREADY_IN

    # /view switches the view shown when it arrives: a repeat would switch it back.
    assert await players.set_view(PLAYER, PLAYER, "numbers", f"m{PLAYER}:15") == "numbers"
    assert await players.set_view(PLAYER, PLAYER, "emoji", f"m{PLAYER}:15") == "numbers"
    assert (await storage.player(PLAYER)).view == "numbers"

    board = await games.start(PLAYER, PLAYER, 4)
    hinted = await games.save_hint(board, "left", "q16")
    again_hinted = await games.save_hint(board, "up", "q16")  # a search may differ
    assert hinted.shown_hint == again_hinted.shown_hint == "left"
    saved = await storage.game(board.id)
    assert (saved.shown_hint, saved.hints_used) == ("left", 1)
    assert (await storage.records(PLAYER))[4].hints_used == 1


async def test_keys_are_kept_as_long_as_telegram_may_deliver_again(storage, database):
    clock = [NOW]
    games = GameService(storage, ChatLocks(storage), clock=lambda: clock[0], new_seed=lambda: 5)
    await games.start(PLAYER, PLAYER, 4, f"m{PLAYER}:1")
    await games.start(PLAYER, PLAYER, 6, f"m{PLAYER}:2")
    clock[0] = NOW + KEEP_SECONDS - 60
    recent = await games.start(PLAYER, PLAYER, 5, f"m{PLAYER}:3")
    assert await count_rows(database, "deliveries") == 3

    forgotten = await UpdateLog(storage, clock=lambda: NOW + KEEP_SECONDS + 1).forget_old()
    assert forgotten == 2
    assert await count_rows(database, "deliveries", "key = ?", f"m{PLAYER}:3") == 1
    # The /new delivered again is still recognised: it starts no third game.
    assert await games.start(PLAYER, PLAYER, 5, f"m{PLAYER}:3") == recent
    assert await count_rows(database, "games") == 3


async def test_a_tap_is_recognised_by_its_games_row_and_writes_no_row_of_its_own(storage, database):
    """The game's row keeps its last moves' keys: a tap costs the update of that row alone."""
    games = GameService(storage, ChatLocks(storage), clock=lambda: NOW, new_seed=lambda: 5)
    board = await games.start(PLAYER, PLAYER, 4)
    game, applied = board.game, []
    for n in range(RECENT_TAPS + 4):
        result = await games.tap(PLAYER, PLAYER, board.id, moving_direction(game), f"q{n}")
        assert result.changed
        game = result.stored.game
        applied.append(result)
    assert await count_rows(database, "deliveries") == 0

    oldest_kept = len(applied) - RECENT_TAPS
    for n in (oldest_kept, len(applied) - 1):
        again = await games.tap(PLAYER, PLAYER, board.id, "undo", f"q{n}")
        assert (again.status, again.outcome) == (TapStatus.APPLIED, applied[n].outcome)
    saved = (await storage.game(board.id)).game
    assert (saved.moves, saved.undos_left) == (len(applied), engine.UNDO_LIMIT)
    assert await count_rows(database, "deliveries") == 0


async def test_what_an_update_makes_the_bot_post_goes_out_from_one_delivery_alone(database):
    """Two processes (two storages on one database) handle the same update: one posts."""
    first, second = await open_storage(database), await open_storage(database)
    try:
        here, there = UpdateLog(first), UpdateLog(second)
        assert await here.first_to_post(f"m{GROUP}:7")
        assert await here.first_to_post(f"m{GROUP}:7")  # the same delivery's next post
        assert not await there.first_to_post(f"m{GROUP}:7")
        assert await there.first_to_post("q99")  # another update: whoever asks first
        assert not await here.first_to_post("q99")
    finally:
        await first.close()
        await second.close()
