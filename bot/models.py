"""What the storage hands out: plain frozen records, the same for every backend."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

import engine

# What a player can do to a game: the four moves, one undo, or keep going after 2048.
Action = engine.Action


class View(StrEnum):
    """How a player's boards are drawn: emoji tiles, or the numbers themselves."""

    EMOJI = "emoji"
    NUMBERS = "numbers"

    @property
    def other(self) -> View:
        """The view a switch leads to."""
        return View.NUMBERS if self is View.EMOJI else View.EMOJI


@dataclass(frozen=True, slots=True)
class Player:
    user_id: int
    name: str = ""
    language: str | None = None  # chosen with /language
    view: View = View.EMOJI
    telegram_language: str | None = None  # the app's language, as Telegram last reported it


@dataclass(frozen=True, slots=True)
class StoredGame:
    id: int
    chat_id: int
    owner_id: int
    game: engine.Game
    active: bool
    message_id: int | None
    played_counted: bool
    challenge_id: int | None = None
    # A challenge entry takes no moves from this moment on, even before the end job runs.
    closes_at: float | None = None
    hints_used: int = 0
    # The direction the last hint suggested, shown on the board until the next move.
    shown_hint: str | None = None
    # engine.ACTION_CODES letters of every action so far; None for games saved before
    # actions were recorded, which have no replay.
    actions: str | None = ""
    duel_of: int | None = None  # the game this one duels (same seed)
    duel_actions: int | None = None  # ... as it stood after this many of its actions
    duel_reported: bool = False
    daily_id: int | None = None  # the day's daily puzzle this game is a player's attempt at
    # The keys of the game's last moves with what each did, one "key outcome" a line: a
    # redelivered tap is recognised here (bot/services/redelivery.py).
    taps: str = ""
    # Raised by every move saved: a move computed from an older revision is not saved.
    revision: int = 0


@dataclass(frozen=True, slots=True)
class Record:
    size: int
    best_score: int = 0
    games_played: int = 0
    games_won: int = 0
    highest_tile: int = 0
    fewest_moves_to_win: int | None = None
    fastest_win_seconds: float | None = None
    hints_used: int = 0


@dataclass(frozen=True, slots=True)
class NewChallenge:
    """A challenge as its creator sets it up, before the storage numbers it."""

    chat_id: int
    chat_title: str
    language: str  # the card's language when the group has not chosen one
    creator_id: int
    size: int
    seed: int
    token: str
    ends_at: float
    # The seed's commitment, published on the card, and the salt that makes it unsearchable,
    # kept secret until the end; None for challenges made before commitments were published.
    salt: str | None = None
    commitment: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Challenge(NewChallenge):
    """A challenge as the storage keeps it: numbered, with its card once posted, and closed
    once it has finished."""

    id: int
    message_id: int | None
    finished: bool


@dataclass(frozen=True, slots=True)
class Daily:
    """One UTC day's puzzle on one board size: the same seed for everyone who plays it.

    `commitment` is published from the start; `seed` and `salt` stay on the server until
    the day has ended (`ends_at`), then anyone may check them against it.
    """

    id: int
    day: str  # the UTC date, as YYYY-MM-DD
    size: int
    seed: int
    salt: str
    commitment: str
    ends_at: float


@dataclass(frozen=True, slots=True)
class GroupDaily:
    """An opted-in group's card for one daily: its message once posted, and whether the day
    has been closed for the group (its final card and winner owed)."""

    chat_id: int
    daily_id: int
    message_id: int | None
    finished: bool


@dataclass(frozen=True, slots=True)
class Standing:
    """One line of a leaderboard; ties are broken by highest tile, fewer moves, then time."""

    rank: int
    user_id: int
    name: str
    score: int
    highest: int
    moves: int


@dataclass(frozen=True, slots=True)
class DailyPlace:
    """Where a player finished (or stands, while the day runs) in one daily."""

    day: str  # the UTC date, as YYYY-MM-DD
    size: int
    rank: int
    players: int  # how many were ranked in it


@dataclass(frozen=True, slots=True)
class PlayTotals:
    """Everything a player has played, summed over all their games."""

    moves: int
    play_seconds: float


@dataclass(frozen=True, slots=True)
class PlayedScore:
    """One of a player's games, as /stats charts it: its board size, score and highest tile."""

    size: int
    score: int
    highest: int


@dataclass(frozen=True, slots=True)
class FirstOutcome:
    """What the first delivery of an update did, for a later delivery of it to repeat."""

    outcome: str
    created_id: int | None = None


class ObligationKind(StrEnum):
    """What an obligation asks for; the outbox's rows hold the values."""

    CARD = "card"  # post a new challenge's card, and remember the message
    FINAL_CARD = "final_card"  # show an ended challenge's final ranking on its card
    WINNER = "winner"  # announce an ended challenge's winner in its group
    DUEL_RESULT = "duel_result"  # tell one of a finished duel's two players how it went
    # An opted-in group's daily (the subject is the daily; the chat, the group):
    DAILY_CARD = "daily_card"  # post the day's card, and remember the message
    DAILY_FINAL_CARD = "daily_final_card"  # show the day's final ranking on its card
    DAILY_WINNER = "daily_winner"  # announce the day's winner among the group's members
    DAILY_REMINDER = "daily_reminder"  # tell a player the day's daily is open (subject: day)


@dataclass(frozen=True, slots=True)
class Obligation:
    """An announcement owed to a chat, as the outbox keeps it until it is sent.

    `kind` says what to send; `subject_id` is what it is about (a challenge, a duel's game),
    read afresh when it is sent; `reply_to` the message it answers.
    """

    id: int
    kind: ObligationKind
    chat_id: int
    subject_id: int
    reply_to: int | None = None


@dataclass(frozen=True, slots=True)
class SendAsk:
    """A chat's next send, to reserve at its pace in the statement that saves a move, so the
    move's redraw needs no round trip of its own for it: seconds between two sends at the
    full pace, the burst, and the seconds a slowed pace takes to double back."""

    chat_id: int
    interval: float
    burst: float
    recovery: float


@dataclass(frozen=True, slots=True)
class MoveSaved:
    """What the statement that saved a move knows besides: the player's best score on the
    board size now, and, if it reserved the chat's next send, the seconds until that send may
    go and until the chat's flood wait ends (either may be zero or less: go now)."""

    best: int
    send: tuple[float, float] | None = None
