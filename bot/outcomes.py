"""What the services answer: the result types the chat and the Mini App present, of a game
and of a player's statistics.

Both ways of playing show the same result the same way (bot/presentation/toasts.py), so the
results are plain values here, below the services that make them and the presentation that
words them.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

import engine
from bot.models import DailyPlace, PlayedScore, PlayTotals, Record, StoredGame
from engine.solver.reasons import Reason


class TapStatus(StrEnum):
    APPLIED = "applied"  # the engine ran; see the outcome (which may be a refusal)
    UNKNOWN_GAME = "unknown_game"  # no such game: forged or from a wiped database
    NOT_YOURS = "not_yours"  # someone else's board
    OLD_GAME = "old_game"  # a finished or replaced game
    CHALLENGE_OVER = "challenge_over"  # a challenge entry after the challenge's end
    STALE = "stale"  # a move meant for an earlier position: the game has moved on since
    THROTTLED = "throttled"  # over the game's moves' budget, which every process shares


@dataclass(frozen=True, slots=True)
class MoveEffects:
    """What a committed move changes beyond its own board, for the chat to show."""

    challenge_id: int | None = None  # a challenge whose standings may have moved
    duel_over: StoredGame | None = None  # a duel's game that the move ended
    daily_over: StoredGame | None = None  # a daily attempt that the move ended


@dataclass(frozen=True, slots=True)
class TapResult:
    status: TapStatus
    stored: StoredGame | None = None
    outcome: engine.Outcome | None = None

    @property
    def changed(self) -> bool:
        return self.outcome is not None and self.outcome.changes_game

    @property
    def effects(self) -> MoveEffects:
        """Nothing unless the move changed the game; a move that did may owe more."""
        stored = self.stored
        if not self.changed or stored is None:
            return MoveEffects()
        over = self.outcome is engine.Outcome.GAME_OVER
        return MoveEffects(
            stored.challenge_id,
            stored if over and stored.duel_of is not None else None,
            stored if over and stored.daily_id is not None else None,
        )


@dataclass(frozen=True, slots=True)
class Access:
    """Whether a player may play a game from a chat: the game if so, else why not."""

    stored: StoredGame | None = None
    refused: TapResult | None = None  # a refusal, answered as a tap on the game would be


class HintStatus(StrEnum):
    SHOWN = "shown"  # on the board now: `stored.shown_hint`
    HINTS_OFF = "hints_off"  # a challenge entry, where everyone plays alone
    NOT_NOW = "not_now"  # the game waits for keep going or a new game, or is over: `outcome`
    NO_MOVE = "no_move"  # the search found no move
    MOVED_ON = "moved_on"  # the game moved on while the search ran: ask again
    REFUSED = "refused"  # not this player's game to ask about: `refused`


@dataclass(frozen=True, slots=True)
class HintResult:
    status: HintStatus
    stored: StoredGame | None = None
    outcome: engine.Outcome | None = None
    refused: TapResult | None = None
    reason: Reason | None = None  # SHOWN: why the move is good, when the board shows it


@dataclass(frozen=True, slots=True)
class Streaks:
    """Days in a row (UTC) with a daily played: the run still alive, and the longest ever."""

    current: int = 0
    longest: int = 0


@dataclass(frozen=True, slots=True)
class PlayerStats:
    records: dict[int, Record]  # by board size, for the sizes played
    totals: PlayTotals
    streaks: Streaks
    best_daily: DailyPlace | None
    last_daily: DailyPlace | None
    recent: list[PlayedScore]  # the latest games, oldest first, for the chart

    @property
    def games_played(self) -> int:
        return sum(record.games_played for record in self.records.values())

    @property
    def games_won(self) -> int:
        return sum(record.games_won for record in self.records.values())

    @property
    def best_score(self) -> int:
        return max((record.best_score for record in self.records.values()), default=0)
