"""What the bot writes into buttons and links, and reads back from them and from players.

Telegram echoes a button's `callback_data` and a deep link's `/start` payload back verbatim,
but a modified client can send anything, so every format written here has one strict parser
beside it: each handler is registered for the exact pattern built here (anything else goes to
the unknown-button handler), and each parser refuses what its pattern rejects. The arguments
players type (a board size, a challenge's duration, what to replay) are read here too, in any
of the bot's languages.
"""

from __future__ import annotations

import base64
import hashlib
import re
from dataclasses import dataclass
from typing import Literal

import engine
from bot.config import LANGUAGES
from bot.models import Action, Challenge, StoredGame

# ----- button data ------------------------------------------------------------------------

# A board button: an action on the game, asking for a hint, or switching between the emoji
# and the numbers view (neither changes the game).
GameAction = Action | Literal["hint", "view"]
# The game's own action letters (the replay alphabet), plus one each for hint and view.
_ACTION_CODES: dict[GameAction, str] = {**engine.ACTION_CODES, "hint": "h", "view": "v"}
_CODE_ACTIONS = {code: action for action, code in _ACTION_CODES.items()}

# `\Z`, not `$`: python-telegram-bot tests a pattern with re.match, and `$` also matches
# before a final newline, so "new\n" would reach a parser that refuses it.
GAME_PATTERN = rf"^g:[1-9]\d{{0,14}}:[{''.join(_CODE_ACTIONS)}]\Z"
NEW_PATTERN = rf"^new(:({'|'.join(map(str, engine.SIZES))}))?\Z"
LANGUAGE_PATTERN = rf"^lang:({'|'.join(LANGUAGES)})\Z"
CURRENT_PATTERN = r"^cur\Z"
CURRENT_BOARD = "cur"
DAILY_PATTERN = rf"^daily:({'|'.join(map(str, engine.SIZES))})\Z"
REMIND_OFF_PATTERN = r"^remind:off\Z"
# A finished game's 🔎: its id and how many actions it had, so a button from before an undo
# (the game has changed since) is told apart from one for the game as it stands. At most
# 3 + 15 + 1 + 7 = 26 bytes, well under Telegram's 64.
REVIEW_PATTERN = r"^rv:[1-9]\d{0,14}:(0|[1-9]\d{0,6})\Z"


@dataclass(frozen=True, slots=True)
class GameTap:
    game_id: int
    action: GameAction


def game_tap(game_id: int, action: GameAction) -> str:
    return f"g:{game_id}:{_ACTION_CODES[action]}"


def parse_game_tap(data: str | None) -> GameTap:
    if data is None or not re.fullmatch(GAME_PATTERN, data):
        raise ValueError(f"not a board button: {data!r}")
    _, game_id, code = data.split(":")
    return GameTap(int(game_id), _CODE_ACTIONS[code])


def new_game(size: int | None = None) -> str:
    return "new" if size is None else f"new:{size}"


def parse_new_game(data: str | None) -> int | None:
    """The chosen board size, or None for "show me the size menu"."""
    if data is None or not re.fullmatch(NEW_PATTERN, data):
        raise ValueError(f"not a new-game button: {data!r}")
    return int(data[4:]) if ":" in data else None


def daily_button(size: int) -> str:
    return f"daily:{size}"


def parse_daily_button(data: str | None) -> int:
    """The board size of the daily a button opens."""
    if data is None or not re.fullmatch(DAILY_PATTERN, data):
        raise ValueError(f"not a daily button: {data!r}")
    return int(data[6:])


def remind_off_button() -> str:
    """The button under a daily's reminder that switches the reminders off."""
    return "remind:off"


@dataclass(frozen=True, slots=True)
class ReviewTap:
    game_id: int
    actions: int


def review_button(game_id: int, actions: int) -> str:
    return f"rv:{game_id}:{actions}"


def parse_review_button(data: str | None) -> ReviewTap:
    if data is None or not re.fullmatch(REVIEW_PATTERN, data):
        raise ValueError(f"not a review button: {data!r}")
    _, game_id, actions = data.split(":")
    return ReviewTap(int(game_id), int(actions))


def language(code: str) -> str:
    return f"lang:{code}"


def parse_language(data: str | None) -> str:
    if data is None or not re.fullmatch(LANGUAGE_PATTERN, data):
        raise ValueError(f"not a language button: {data!r}")
    return data[5:]


# ----- deep links and their /start payloads ----------------------------------------------

_CHALLENGE_PAYLOAD = re.compile(r"c([1-9]\d{0,14})_([A-Za-z0-9]{8})")
_DUEL_PAYLOAD = re.compile(r"d([1-9]\d{0,14})_(\d{1,7})_([a-z2-7]{8})")
_DAILY_PAYLOAD = re.compile(rf"daily(\d{{4}})(\d\d)(\d\d)_([{''.join(map(str, engine.SIZES))}])")


def deep_link(bot_username: str, payload: str) -> str:
    """A link that opens the bot's private chat and sends `/start <payload>` there."""
    return f"https://t.me/{bot_username}?start={payload}"


def challenge_payload(challenge: Challenge) -> str:
    """A challenge's payload: short, URL-safe, and not guessable from the id alone."""
    return f"c{challenge.id}_{challenge.token}"


def parse_challenge_payload(text: str) -> tuple[int, str] | None:
    """The challenge's id and token, for the service to check; None if it is no such link."""
    match = _CHALLENGE_PAYLOAD.fullmatch(text)
    return None if match is None else (int(match.group(1)), match.group(2))


def duel_token(game_id: int, seed: int, actions: int) -> str:
    """Eight letters only someone who saw the link can know: the seed is never shown."""
    digest = hashlib.blake2b(f"duel:{game_id}:{seed}:{actions}".encode(), digest_size=5).digest()
    return base64.b32encode(digest).decode().lower()


def duel_payload(stored: StoredGame) -> str | None:
    """The payload of a duel on the game as it stands; None without an action log."""
    if stored.actions is None:
        return None
    actions = len(stored.actions)
    return f"d{stored.id}_{actions}_{duel_token(stored.id, stored.game.seed, actions)}"


def parse_duel_payload(text: str) -> tuple[int, int, str] | None:
    """The shared game's id, how many of its actions count, and the token to check."""
    match = _DUEL_PAYLOAD.fullmatch(text)
    return None if match is None else (int(match[1]), int(match[2]), match[3])


def daily_payload(day: str, size: int) -> str:
    """A day's daily of one size: `day` is its UTC date, YYYY-MM-DD."""
    return f"daily{day.replace('-', '')}_{size}"


# The /start payload of the link from a group's /stats to the player's full statistics.
STATS_PAYLOAD = "stats"


def is_daily_payload(text: str) -> bool:
    """Whether a /start payload is meant as a daily's, well formed or not (then refused)."""
    return text.startswith("daily")


def parse_daily_payload(text: str) -> tuple[str, int] | None:
    """The day (YYYY-MM-DD) and board size of a daily's link; None if it is no such link."""
    match = _DAILY_PAYLOAD.fullmatch(text)
    return None if match is None else (f"{match[1]}-{match[2]}-{match[3]}", int(match[4]))


# ----- inline queries ----------------------------------------------------------------------

_SHARE_QUERY = re.compile(r"#([1-9]\d{0,14})")


def share_query(game_id: int) -> str:
    """What a game's 📤 types after the bot's name in the chat picked: the game, by its id."""
    return f"#{game_id}"


def parse_share_query(text: str) -> int | None:
    """The game a query names; None for any other text (a player typing `@bot` themselves)."""
    match = _SHARE_QUERY.fullmatch(text.strip())
    return None if match is None else int(match[1])


# ----- what players type -------------------------------------------------------------------

DEFAULT_DURATION = 24 * 3600
MIN_DURATION = 60
MAX_DURATION = 7 * 24 * 3600
# Units as players type them in English, Dutch and German; every language accepts all of them.
_UNIT_SECONDS = {
    **dict.fromkeys(("m", "min", "mins", "minute", "minutes", "minuut", "minuten"), 60),
    **dict.fromkeys(
        ("h", "hr", "hrs", "hour", "hours", "u", "uur", "uren", "std", "stunde", "stunden"), 3600
    ),
    **dict.fromkeys(("d", "day", "days", "dag", "dagen", "tag", "tage", "tagen"), 86400),
}
# A duration ("2h", "2 uur", "30 Min.") or any other word; matched on the lowercased arguments.
_ARGUMENT = re.compile(r"(?P<amount>\d{1,9}) ?(?P<unit>[^\W\d_]+)\.?(?=\s|$)|(?P<word>\S+)")


def parse_size(word: str) -> int | None:
    """A board size as players type it: `5`, `5x5` and `5×5` all mean the 5×5 board."""
    head, _, tail = word.lower().replace("×", "x").partition("x")
    if not head.isdigit() or (tail and tail != head):
        return None
    size = int(head)
    return size if size in engine.SIZES else None


class ChallengeArgsError(ValueError):
    """`/challenge` arguments that cannot be understood or are out of range."""


def parse_challenge_args(args: list[str]) -> tuple[int, int]:
    """`/challenge`, `/challenge 5`, `/challenge 2 uur`, `/challenge 6 30 Min` → (size, seconds).

    Telegram splits "2 uur" into two arguments, so the words are read as one line: a number
    directly followed by a unit is a duration, whatever the language of the chat.
    """
    sizes: list[int] = []
    durations: list[int] = []
    for match in _ARGUMENT.finditer(" ".join(args).lower()):
        if match["word"] is not None:
            if (size := parse_size(match["word"])) is None:
                raise ChallengeArgsError(f"not a size or duration: {match['word']!r}")
            sizes.append(size)
        elif (unit := _UNIT_SECONDS.get(match["unit"])) is not None:
            durations.append(int(match["amount"]) * unit)
        else:
            raise ChallengeArgsError(f"not a unit of time: {match['unit']!r}")
    if len(sizes) > 1 or len(durations) > 1:
        raise ChallengeArgsError("more than one size or duration")
    duration = durations[0] if durations else DEFAULT_DURATION
    if not MIN_DURATION <= duration <= MAX_DURATION:
        raise ChallengeArgsError("duration out of range")
    return (sizes[0] if sizes else engine.SIZES[0]), duration


@dataclass(frozen=True, slots=True)
class DailyAsk:
    """What `/daily` asks for: to play today's daily of a size, its rankings (`top`), or to
    switch a group's daily on or off (`switch`)."""

    size: int = engine.SIZES[0]
    top: bool = False
    switch: bool | None = None


_SWITCHES = {"on": True, "off": False}


def parse_daily_args(args: list[str]) -> DailyAsk | None:
    """`/daily`, `/daily 5`, `/daily top`, `/daily top 6`, `/daily on`, `/daily off`; None
    for anything else."""
    words = [word.lower() for word in args]
    if len(words) == 1 and words[0] in _SWITCHES:
        return DailyAsk(switch=_SWITCHES[words[0]])
    top = words[:1] == ["top"]
    rest = words[1:] if top else words
    if len(rest) > 1:
        return None
    size = parse_size(rest[0]) if rest else engine.SIZES[0]
    return None if size is None else DailyAsk(size, top)


@dataclass(frozen=True, slots=True)
class ReplayAsk:
    """What `/replay` asks for: this chat's game (`best` False), or the best of a size."""

    best: bool = False
    size: int | None = None  # with `best`: None for the size of the game at hand


def parse_replay_args(args: list[str]) -> ReplayAsk | None:
    """`/replay`, `/replay best`, `/replay best 5`; None for anything else."""
    words = [word.lower() for word in args]
    if not words:
        return ReplayAsk()
    if words[0] != "best" or len(words) > 2:
        return None
    if len(words) == 1:
        return ReplayAsk(best=True)
    size = parse_size(words[1])
    return None if size is None else ReplayAsk(best=True, size=size)


def asks_reminder(args: list[str]) -> bool:
    """Whether `/daily` is asked about its reminder: `/daily remind …`."""
    return bool(args) and args[0].lower() == "remind"


def parse_remind_args(args: list[str]) -> bool | None:
    """`/daily remind` (True: on), `/daily remind off` (False); None for anything else."""
    words = [word.lower() for word in args]
    if words == ["remind"]:
        return True
    return False if words == ["remind", "off"] else None
