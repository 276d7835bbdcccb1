"""One game of 2048: moves, score, win and game over, undo and the play clock.

Games are immutable values; every action returns a `Turn` holding the next game and what
happened, so the caller (the bot) can save the new game before it shows anything.
The caller passes the time in (seconds, e.g. `time.time()`), so no rule reads a clock.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

from engine.board import Board, Direction, has_move, move
from engine.spawn import spawn

SIZES = (4, 5, 6)
UNDO_LIMIT = 5
SEED_LIMIT = 1 << 64  # seeds are 64-bit, so every seed fits the save format
WIN_TILE = 2048
# A gap between two actions counts as play for at most this long: a player who puts the
# phone away for an hour has not played for an hour. One minute is ample thinking time for
# one move, and short enough that lunch breaks do not inflate the "fastest 2048" record.
IDLE_CAP_SECONDS = 60.0


class Outcome(StrEnum):
    """What an action did; the bot turns each into a board edit or a short toast."""

    MOVED = "moved"
    WON = "won"  # the move created the game's first 2048; the player must choose now
    GAME_OVER = "game_over"  # the move left no valid move
    NOTHING_MOVES = "nothing_moves"  # invalid direction: nothing changed at all
    AWAITING_CHOICE = "awaiting_choice"  # moves are refused until keep going / new game
    UNDONE = "undone"
    NO_UNDOS_LEFT = "no_undos_left"
    NOTHING_TO_UNDO = "nothing_to_undo"
    KEPT_GOING = "kept_going"
    NOT_WON = "not_won"  # "keep going" on a game that is not waiting for that choice

    @property
    def changes_game(self) -> bool:
        """True for outcomes that produce a new game state the caller must save and show."""
        return self in _CHANGING


_CHANGING = frozenset(
    {Outcome.MOVED, Outcome.WON, Outcome.GAME_OVER, Outcome.UNDONE, Outcome.KEPT_GOING}
)


@dataclass(frozen=True, slots=True)
class Win:
    """The moment the game was won: the clock stops here for the records."""

    moves: int
    play_seconds: float


@dataclass(frozen=True, slots=True)
class Snapshot:
    """What one undo restores: the state just before a move."""

    board: Board
    score: int
    moves: int
    win: Win | None
    kept_going: bool


@dataclass(frozen=True, slots=True)
class Game:
    size: int
    seed: int
    board: Board
    score: int = 0
    moves: int = 0
    undos_left: int = UNDO_LIMIT
    history: tuple[Snapshot, ...] = ()
    win: Win | None = None
    kept_going: bool = False
    # True once the game has ever been won, even if the winning move was undone later:
    # a game counts as won at most once in a player's records.
    ever_won: bool = False
    play_seconds: float = 0.0
    # When the clock last ran; None while it is stopped (a win awaiting the player's choice).
    clock_at: float | None = None

    @property
    def highest(self) -> int:
        return max(self.board)

    @property
    def awaiting_choice(self) -> bool:
        return self.win is not None and not self.kept_going

    @property
    def over(self) -> bool:
        return not has_move(self.board, self.size)

    def rows(self) -> list[list[int]]:
        n = self.size
        return [list(self.board[r * n : (r + 1) * n]) for r in range(n)]


@dataclass(frozen=True, slots=True)
class Turn:
    game: Game
    outcome: Outcome
    gained: int = 0

    @property
    def changed(self) -> bool:
        return self.outcome.changes_game


def new_game(size: int, seed: int, now: float) -> Game:
    """A fresh game with its two opening tiles; `seed` decides every tile it will ever get."""
    if size not in SIZES:
        raise ValueError(f"board size must be one of {SIZES}, not {size!r}")
    if not 0 <= seed < SEED_LIMIT:
        raise ValueError(f"a seed is a whole number from 0 to 2**64 - 1, not {seed!r}")
    board: Board = (0,) * (size * size)
    board = spawn(spawn(board, seed, 0), seed, 1)
    return Game(size=size, seed=seed, board=board, clock_at=now)


def _clock(game: Game, now: float) -> float:
    if game.clock_at is None:
        return game.play_seconds
    return game.play_seconds + min(max(now - game.clock_at, 0.0), IDLE_CAP_SECONDS)


def play(game: Game, direction: Direction, now: float) -> Turn:
    if game.awaiting_choice:
        return Turn(game, Outcome.AWAITING_CHOICE)
    after, gained = move(game.board, game.size, direction)
    if after == game.board:
        return Turn(game, Outcome.NOTHING_MOVES)
    moves = game.moves + 1
    after = spawn(after, game.seed, moves + 1)
    snapshot = Snapshot(game.board, game.score, game.moves, game.win, game.kept_going)
    history = (*game.history, snapshot)[-game.undos_left :] if game.undos_left else ()
    played = _clock(game, now)
    won_now = game.win is None and max(after) >= WIN_TILE
    next_game = replace(
        game,
        board=after,
        score=game.score + gained,
        moves=moves,
        history=history,
        play_seconds=played,
        clock_at=None if won_now else now,
        win=Win(moves, played) if won_now else game.win,
        ever_won=game.ever_won or won_now,
    )
    if won_now:
        outcome = Outcome.WON
    elif next_game.over:
        outcome = Outcome.GAME_OVER
    else:
        outcome = Outcome.MOVED
    return Turn(next_game, outcome, gained)


def undo(game: Game, now: float) -> Turn:
    """Step back one move; works on a game-over board and can un-win the winning move."""
    if game.undos_left == 0:
        return Turn(game, Outcome.NO_UNDOS_LEFT)
    if not game.history:
        return Turn(game, Outcome.NOTHING_TO_UNDO)
    last = game.history[-1]
    restored = replace(
        game,
        board=last.board,
        score=last.score,
        moves=last.moves,
        win=last.win,
        kept_going=last.kept_going,
        undos_left=game.undos_left - 1,
        history=game.history[:-1],
        play_seconds=_clock(game, now),
    )
    restored = replace(restored, clock_at=None if restored.awaiting_choice else now)
    return Turn(restored, Outcome.UNDONE)


def keep_going(game: Game, now: float) -> Turn:
    """The player chose to play on after 2048: same board, the clock runs again."""
    if not game.awaiting_choice:
        return Turn(game, Outcome.NOT_WON)
    return Turn(replace(game, kept_going=True, clock_at=now), Outcome.KEPT_GOING)
