"""Whole games: new_game, play, undo, keep_going and the play clock (saves: test_serialize.py).

Positions the rules single out (one merge from 2048, one move from game over) are built
directly as `engine.Game(...)` values; everything else comes from real games played with
random taps from many seeds.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

import engine
from engine import Outcome, Win

DIRECTIONS = ("up", "down", "left", "right")
T0 = 1_700_000_000.0  # an arbitrary wall-clock start, in seconds
_ = 0


def flat(rows: list[list[int]]) -> tuple[int, ...]:
    return tuple(value for row in rows for value in row)


def grid(board: tuple[int, ...], size: int) -> list[list[int]]:
    return [list(board[r * size : (r + 1) * size]) for r in range(size)]


def tiles(board: tuple[int, ...]) -> list[int]:
    return [value for value in board if value]


def game_from_rows(rows: list[list[int]], **fields) -> engine.Game:
    fields.setdefault("seed", 1)
    fields.setdefault("clock_at", T0)
    return engine.Game(size=len(rows), board=flat(rows), **fields)


def valid_directions(game: engine.Game, now: float = T0) -> list[str]:
    return [d for d in DIRECTIONS if engine.play(game, d, now).outcome is not Outcome.NOTHING_MOVES]


def play_valid(game: engine.Game, rng: random.Random, now: float) -> engine.Turn:
    return engine.play(game, rng.choice(valid_directions(game, now)), now)


def merge_points(board: tuple[int, ...]) -> int:
    """Points a board's tiles are worth if every tile was built from 2s: 2^k is worth (k-1)·2^k.

    A merge of two v into 2v raises this by exactly 2v, the tile it creates; a spawned 4 adds
    4 without scoring. So the sum of the tiles a move created is the rise of this number
    (minus 4 if the spawn was a 4), whatever the engine thinks it scored.
    """
    return sum(v * (v.bit_length() - 2) for v in board if v)


def test_merge_points_matches_the_worked_figure_in_the_rules():
    # "a 2048 built only from spawned 2s is worth 20,480 points of merges"
    assert merge_points((2048,)) == 20_480
    assert merge_points((2, 2)) == 0
    assert merge_points((4,)) == 4


# ---------------------------------------------------------------------------------------------
# A new game


@pytest.mark.parametrize("size", [4, 5, 6])
def test_new_game_has_exactly_two_tiles_each_2_or_4(size):
    for seed in range(300):
        game = engine.new_game(size, seed, T0)
        assert game.size == size
        assert len(game.board) == size * size
        assert len(tiles(game.board)) == 2
        assert set(tiles(game.board)) <= {2, 4}
        assert (game.score, game.moves, game.undos_left) == (0, 0, 5)
        assert game.history == ()
        assert game.win is None and not game.ever_won and not game.awaiting_choice
        assert not game.over


@pytest.mark.parametrize("size", [3, 7, 2, 0, -4, 8])
def test_new_game_refuses_other_sizes(size):
    with pytest.raises(ValueError):
        engine.new_game(size, 1, T0)


def test_opening_tiles_are_2_nine_times_in_ten():
    opening = [v for seed in range(2000) for v in tiles(engine.new_game(4, seed, T0).board)]
    assert len(opening) == 4000
    counts = Counter(opening)
    assert set(counts) == {2, 4}
    assert 0.07 <= counts[4] / len(opening) <= 0.13


def test_opening_tiles_land_on_every_cell_about_equally():
    where = Counter()
    for seed in range(2000):
        board = engine.new_game(4, seed, T0).board
        where.update(i for i, value in enumerate(board) if value)
    assert sorted(where) == list(range(16))
    # 4000 tiles over 16 cells: 250 each on average; allow a very wide margin.
    assert all(150 <= count <= 350 for count in where.values()), where


def test_each_valid_move_spawns_one_tile_on_an_empty_cell():
    rng = random.Random(7)
    spawned = Counter()
    for seed in range(30):
        size = (4, 5, 6)[seed % 3]
        game = engine.new_game(size, seed, T0)
        for _step in range(120):
            if game.over:
                break
            direction = rng.choice(valid_directions(game))
            slid, _gained = engine.slide(grid(game.board, size), direction)
            after = engine.play(game, direction, T0).game
            changed = [
                i for i, (a, b) in enumerate(zip(flat(slid), after.board, strict=True)) if a != b
            ]
            assert len(changed) == 1
            assert flat(slid)[changed[0]] == 0
            spawned[after.board[changed[0]]] += 1
            assert sum(after.board) - sum(game.board) == after.board[changed[0]]
            game = after if not after.awaiting_choice else engine.keep_going(after, T0).game
    assert set(spawned) == {2, 4}
    assert sum(spawned.values()) > 2000
    assert 0.07 <= spawned[4] / sum(spawned.values()) <= 0.13


# ---------------------------------------------------------------------------------------------
# Seeds: the same seed and the same taps give the same game


def _replay(size: int, seed: int, taps: list[str], start: float) -> list[tuple]:
    game = engine.new_game(size, seed, start)
    seen = [(game.board, game.score, game.moves)]
    for i, direction in enumerate(taps):
        game = engine.play(game, direction, start + i).game
        seen.append((game.board, game.score, game.moves))
    return seen


@pytest.mark.parametrize("size", [4, 5, 6])
def test_same_seed_and_taps_give_the_same_boards(size):
    rng = random.Random(size)
    taps = [rng.choice(DIRECTIONS) for _tap in range(200)]
    first = _replay(size, 12345, taps, T0)
    # A different player, at a different time of day, sees exactly the same game.
    assert _replay(size, 12345, taps, T0 + 86_400 * 3) == first
    assert first[-1][2] > 50  # the taps really played a game
    assert _replay(size, 12346, taps, T0) != first


def test_different_seeds_give_different_openings():
    # 4x4 has only ~120 ways to place two tiles, so some seeds must share an opening;
    # 100 seeds still give dozens of different ones (about 75 expected by chance).
    assert len({engine.new_game(4, seed, T0).board for seed in range(100)}) >= 60
    assert len({engine.new_game(6, seed, T0).board for seed in range(100)}) >= 85


def test_big_seeds_work():
    for seed in (0, 2**32, 2**63, 2**64 - 1):
        game = engine.new_game(6, seed, T0)
        assert len(tiles(game.board)) == 2


# ---------------------------------------------------------------------------------------------
# Invalid directions do nothing at all


def test_invalid_direction_changes_nothing():
    game = game_from_rows(
        [[2, 4, _, _], [8, _, _, _], [_, _, _, _], [_, _, _, _]],
        score=120,
        moves=9,
        play_seconds=33.0,
    )
    for direction in ("left", "up"):
        turn = engine.play(game, direction, T0 + 45)
        assert turn.outcome is Outcome.NOTHING_MOVES
        assert turn.gained == 0
        assert not turn.changed
        assert turn.game == game  # no spawn, no move counted, no history, clock untouched
    moved = engine.play(game, "right", T0 + 45)
    assert moved.outcome is Outcome.MOVED
    assert moved.game.moves == 10
    assert moved.gained == 0 and moved.game.score == 120  # sliding without merging scores 0


def test_invalid_taps_in_real_games_change_nothing():
    rng = random.Random(3)
    refused = 0
    for seed in range(20):
        game = engine.new_game(4, seed, T0)
        for _step in range(150):
            if game.over:
                break
            valid = valid_directions(game)
            for direction in DIRECTIONS:
                if direction not in valid:
                    turn = engine.play(game, direction, T0 + 5)
                    assert turn.outcome is Outcome.NOTHING_MOVES
                    assert turn.game == game
                    refused += 1
            game = play_valid(game, rng, T0).game
            if game.awaiting_choice:
                game = engine.keep_going(game, T0).game
    assert refused > 100


# ---------------------------------------------------------------------------------------------
# Undo


def _played(size: int, seed: int, count: int) -> list[engine.Game]:
    """A game and its first `count` valid moves, as the list of games after each."""
    rng = random.Random(seed)
    games = [engine.new_game(size, seed, T0)]
    for i in range(count):
        games.append(play_valid(games[-1], rng, T0 + i + 1).game)
    return games


@pytest.mark.parametrize("size", [4, 5, 6])
def test_undo_restores_the_game_before_the_last_move(size):
    games = _played(size, 21 + size, 10)
    before, after = games[-2], games[-1]
    turn = engine.undo(after, T0 + 20)
    assert turn.outcome is Outcome.UNDONE
    assert turn.changed
    back = turn.game
    assert (back.board, back.score, back.moves) == (before.board, before.score, before.moves)
    assert back.undos_left == 4
    assert len(tiles(back.board)) == len(tiles(before.board))


@pytest.mark.parametrize("seed", range(12))
def test_replaying_the_undone_move_spawns_the_same_tile(seed):
    rng = random.Random(seed)
    game = _played(4, seed, 6)[-1]
    for direction in valid_directions(game):
        first = engine.play(game, direction, T0 + 100).game
        undone = engine.undo(first, T0 + 101).game
        # Trying another move in between does not change what the original move brings.
        others = [d for d in valid_directions(undone) if d != direction]
        if others:
            detour = engine.play(undone, rng.choice(others), T0 + 102).game
            undone = engine.undo(detour, T0 + 103).game
        again = engine.play(undone, direction, T0 + 104).game
        assert (again.board, again.score, again.moves) == (first.board, first.score, first.moves)


def test_five_undos_in_a_row_then_the_sixth_is_refused():
    games = _played(4, 99, 8)
    game = games[-1]
    for steps_back in range(1, 6):
        turn = engine.undo(game, T0 + 50 + steps_back)
        assert turn.outcome is Outcome.UNDONE
        game = turn.game
        expected = games[-1 - steps_back]
        assert (game.board, game.score, game.moves) == (
            expected.board,
            expected.score,
            expected.moves,
        )
        assert game.undos_left == 5 - steps_back
    sixth = engine.undo(game, T0 + 60)
    assert sixth.outcome is Outcome.NO_UNDOS_LEFT
    assert not sixth.changed
    assert sixth.game == game
    # Playing on does not earn undos back.
    rng = random.Random(1)
    for i in range(3):
        game = play_valid(game, rng, T0 + 70 + i).game
    assert engine.undo(game, T0 + 80).outcome is Outcome.NO_UNDOS_LEFT


def test_undo_with_nothing_to_undo():
    game = engine.new_game(4, 5, T0)
    turn = engine.undo(game, T0 + 1)
    assert turn.outcome is Outcome.NOTHING_TO_UNDO
    assert turn.game == game
    games = _played(4, 5, 2)
    game = engine.undo(engine.undo(games[-1], T0 + 10).game, T0 + 11).game
    assert game.board == games[0].board
    turn = engine.undo(game, T0 + 12)
    assert turn.outcome is Outcome.NOTHING_TO_UNDO
    assert turn.game == game
    assert turn.game.undos_left == 3


def test_undos_left_over_still_reach_back_only_that_far():
    games = _played(4, 8, 3)
    game = engine.undo(engine.undo(games[-1], T0 + 5).game, T0 + 6).game  # 3 undos left
    rng = random.Random(8)
    later = [game]
    for i in range(6):
        later.append(play_valid(later[-1], rng, T0 + 10 + i).game)
    game = later[-1]
    for steps_back in range(1, 4):
        game = engine.undo(game, T0 + 30 + steps_back).game
        assert game.board == later[-1 - steps_back].board
    assert engine.undo(game, T0 + 40).outcome is Outcome.NO_UNDOS_LEFT


# One move from game over: "right" fills the last empty cell and leaves no pair, whether the
# new tile is a 2 or a 4 (the new tile lands bottom-left, between an 8 above and an 8 beside).
NEAR_GAME_OVER = [
    [8, 16, 8, 16],
    [16, 8, 16, 8],
    [8, 16, 8, 16],
    [8, 16, 8, _],
]


@pytest.mark.parametrize("seed", range(10))
def test_game_over_then_undo_makes_the_game_playable(seed):
    game = game_from_rows(NEAR_GAME_OVER, seed=seed, score=900, moves=70)
    turn = engine.play(game, "right", T0 + 3)
    assert turn.outcome is Outcome.GAME_OVER
    over = turn.game
    assert over.over
    assert not engine.can_move(grid(over.board, 4))
    assert over.moves == 71
    for direction in DIRECTIONS:
        assert engine.play(over, direction, T0 + 4).outcome is Outcome.NOTHING_MOVES
    back = engine.undo(over, T0 + 5)
    assert back.outcome is Outcome.UNDONE
    assert back.game.board == game.board
    assert (back.game.score, back.game.moves) == (900, 70)
    assert not back.game.over
    assert engine.play(back.game, "down", T0 + 6).outcome is Outcome.MOVED


def test_a_full_board_with_one_pair_left_is_not_over():
    # After "right" the bottom-left cell fills; a 4 there would match the 4 above it, a 2 not.
    rows = [
        [8, 16, 8, 16],
        [16, 8, 16, 8],
        [4, 16, 8, 16],
        [8, 16, 8, _],
    ]
    seen = {}
    for seed in range(300):
        turn = engine.play(game_from_rows(rows, seed=seed), "right", T0)
        spawned = turn.game.board[12]
        assert 0 not in turn.game.board
        seen[spawned] = turn.outcome
        if len(seen) == 2:
            break
    assert seen == {2: Outcome.GAME_OVER, 4: Outcome.MOVED}


# ---------------------------------------------------------------------------------------------
# Winning


ONE_FROM_2048 = [
    [1024, 1024, _, _],
    [_, _, _, _],
    [_, _, _, _],
    [2, _, _, _],
]


def about_to_win(**fields) -> engine.Game:
    fields = {"score": 5000, "moves": 40, "play_seconds": 300.0, **fields}
    return game_from_rows(ONE_FROM_2048, **fields)


def test_winning_move_is_reported_and_recorded():
    game = about_to_win()
    turn = engine.play(game, "left", T0 + 12)
    assert turn.outcome is Outcome.WON
    won = turn.game
    assert turn.gained == 2048
    assert won.score == 5000 + 2048
    assert won.board[0] == 2048
    assert sum(won.board) - (2048 + 2) in (2, 4)  # plus the one spawned tile
    assert won.win == Win(moves=41, play_seconds=312.0)
    assert won.awaiting_choice
    assert won.ever_won


@pytest.mark.parametrize("size", [4, 5, 6])
@pytest.mark.parametrize("direction", DIRECTIONS)
def test_a_2048_wins_on_every_board_size_and_direction(size, direction):
    rows = [[_] * size for _row in range(size)]
    middle = size // 2
    if direction in ("left", "right"):
        rows[middle][1] = rows[middle][2] = 1024
    else:
        rows[1][middle] = rows[2][middle] = 1024
    turn = engine.play(game_from_rows(rows), direction, T0)
    assert turn.outcome is Outcome.WON
    assert 2048 in turn.game.board


def test_after_the_win_moves_wait_for_the_choice():
    won = engine.play(about_to_win(), "left", T0 + 12).game
    for direction in DIRECTIONS:
        turn = engine.play(won, direction, T0 + 20)
        assert turn.outcome is Outcome.AWAITING_CHOICE
        assert not turn.changed
        assert turn.game == won


def test_keep_going_then_4096_does_not_win_again():
    two_pairs = game_from_rows(
        [[1024, 1024, _, _], [1024, 1024, _, _], [_, _, _, _], [_, _, _, _]],
        moves=40,
        play_seconds=300.0,
    )
    turn = engine.play(two_pairs, "left", T0 + 12)
    assert turn.outcome is Outcome.WON
    assert turn.gained == 2 * 2048
    won = turn.game
    turn = engine.keep_going(won, T0 + 30)
    assert turn.outcome is Outcome.KEPT_GOING
    going = turn.game
    assert going.board == won.board and going.score == won.score
    assert not going.awaiting_choice and going.kept_going
    # The two 2048s now sit one above the other in the left column.
    assert going.board[0] == going.board[4] == 2048
    turn = engine.play(going, "up", T0 + 31)
    assert turn.outcome is Outcome.MOVED
    assert turn.game.board[0] == 4096
    assert turn.gained == 4096
    assert turn.game.win == Win(moves=41, play_seconds=312.0)
    assert turn.game.ever_won
    assert not turn.game.awaiting_choice


def test_a_second_2048_after_keep_going_does_not_win_again():
    game = game_from_rows(
        [[2048, _, _, _], [_, _, _, _], [_, _, _, _], [1024, 1024, _, _]],
        moves=300,
        win=Win(200, 900.0),
        kept_going=True,
        ever_won=True,
    )
    turn = engine.play(game, "left", T0)
    assert turn.outcome is Outcome.MOVED
    assert turn.game.win == Win(200, 900.0)


def test_keep_going_without_a_win_is_refused():
    fresh = engine.new_game(4, 1, T0)
    turn = engine.keep_going(fresh, T0 + 1)
    assert turn.outcome is Outcome.NOT_WON
    assert turn.game == fresh
    won = engine.play(about_to_win(), "left", T0 + 12).game
    going = engine.keep_going(won, T0 + 13).game
    again = engine.keep_going(going, T0 + 14)
    assert again.outcome is Outcome.NOT_WON
    assert again.game == going


def test_undoing_the_winning_move_unwins_but_the_game_still_counts_as_won():
    before = about_to_win()
    won = engine.play(before, "left", T0 + 12).game
    turn = engine.undo(won, T0 + 13)
    assert turn.outcome is Outcome.UNDONE
    back = turn.game
    assert back.board == before.board
    assert (back.score, back.moves) == (5000, 40)
    assert back.win is None
    assert not back.awaiting_choice
    assert back.ever_won
    # Moves are allowed again, and the same winning move brings the same board.
    assert engine.play(back, "down", T0 + 14).outcome is Outcome.MOVED
    again = engine.play(back, "left", T0 + 14)
    assert again.outcome is Outcome.WON
    assert again.game.board == won.board


def test_undo_after_keep_going_keeps_the_win_and_the_choice():
    won = engine.play(about_to_win(), "left", T0 + 12).game
    going = engine.keep_going(won, T0 + 20).game
    moved = engine.play(going, "down", T0 + 21).game
    back = engine.undo(moved, T0 + 22).game
    assert back.board == going.board
    assert back.win == Win(moves=41, play_seconds=312.0)
    assert back.kept_going and not back.awaiting_choice
    assert engine.play(back, "down", T0 + 23).outcome is Outcome.MOVED


# ---------------------------------------------------------------------------------------------
# The play clock


def test_clock_counts_gaps_between_actions_up_to_the_idle_cap():
    cap = engine.IDLE_CAP_SECONDS
    assert 0 < cap < 3600
    game = engine.new_game(4, 4, T0)
    rng = random.Random(4)
    now = T0 + 10
    game = play_valid(game, rng, now).game
    assert game.play_seconds == 10.0
    now += 3600  # the phone went into a pocket for an hour
    game = play_valid(game, rng, now).game
    assert game.play_seconds == 10.0 + cap
    now += 2.5
    game = play_valid(game, rng, now).game
    assert game.play_seconds == 12.5 + cap
    now -= 30  # the server clock stepped back: no negative play time
    game = play_valid(game, rng, now).game
    assert game.play_seconds == 12.5 + cap


def test_clock_stops_while_awaiting_the_choice_and_restarts_on_keep_going():
    cap = engine.IDLE_CAP_SECONDS
    game = about_to_win(clock_at=T0)
    won = engine.play(game, "left", T0 + 3600).game  # a long gap before the win is capped too
    assert won.win == Win(41, 300.0 + cap)
    assert won.play_seconds == 300.0 + cap
    refused = engine.play(won, "down", T0 + 3610).game
    assert refused.play_seconds == 300.0 + cap
    going = engine.keep_going(won, T0 + 3630).game  # 30 s of deciding do not count
    assert going.play_seconds == 300.0 + cap
    moved = engine.play(going, "down", T0 + 3637).game
    assert moved.play_seconds == 307.0 + cap
    assert moved.win == Win(41, 300.0 + cap)


def test_undo_never_winds_the_clock_back():
    games = _played(4, 11, 4)
    last = games[-1]
    back = engine.undo(last, T0 + 4 + 5).game
    assert back.play_seconds == last.play_seconds + 5
    rng = random.Random(0)
    later = play_valid(back, rng, T0 + 4 + 7).game
    assert later.play_seconds == last.play_seconds + 7


def test_undoing_the_win_restarts_the_stopped_clock():
    won = engine.play(about_to_win(), "left", T0 + 12).game
    back = engine.undo(won, T0 + 40).game  # the 28 s spent looking at the win do not count
    assert back.play_seconds == 312.0
    moved = engine.play(back, "down", T0 + 44).game
    assert moved.play_seconds == 316.0


# ---------------------------------------------------------------------------------------------
# Score


@pytest.mark.parametrize("seed", range(15))
def test_score_is_the_sum_of_the_tiles_created(seed):
    size = (4, 5, 6)[seed % 3]
    rng = random.Random(seed)
    game = engine.new_game(size, seed, T0)
    fours = tiles(game.board).count(4)
    for _step in range(400):
        if game.over:
            break
        before = game
        turn = play_valid(game, rng, T0)
        game = turn.game
        spawned = sum(game.board) - sum(before.board)
        assert spawned in (2, 4)
        fours += spawned == 4
        created = merge_points(game.board) - merge_points(before.board) - (4 if spawned == 4 else 0)
        assert turn.gained == created
        assert game.score == before.score + created
        if game.awaiting_choice:
            game = engine.keep_going(game, T0).game
    assert game.moves > 50
    assert game.score == merge_points(game.board) - 4 * fours
