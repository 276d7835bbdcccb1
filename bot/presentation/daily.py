"""What players read of the daily puzzle: the day's name, the commitment, the results."""

from __future__ import annotations

from datetime import date

from babel.dates import format_skeleton
from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot import codecs
from bot.models import Daily, Standing, StoredGame
from bot.outcomes import Streaks
from bot.presentation import fairness
from bot.presentation.i18n import Translator
from bot.presentation.leaderboards import standing_line
from bot.presentation.render import size_name


def day_name(t: Translator, day: str) -> str:
    """A daily's UTC date as the reader's language writes it: "Dec 2", "2 dec.", "2. Dez."."""
    return format_skeleton("MMMd", date.fromisoformat(day), locale=t.language)


def daily_link(bot_username: str, day: str, size: int) -> str:
    """A link that opens the player's private chat with the bot on that day's daily."""
    return codecs.deep_link(bot_username, codecs.daily_payload(day, size))


def daily_link_keyboard(t: Translator, link: str) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup([[InlineKeyboardButton("📅 " + t._("Play the daily"), url=link)]])


def heading(t: Translator, daily: Daily) -> str:
    return t._(
        "📅 <b>Daily 2048</b> · {size} · {day}",
        size=size_name(t, daily.size),
        day=day_name(t, daily.day),
    )


def _told(t: Translator, daily: Daily, *lines: str) -> str:
    """The daily's heading, what there is to say, and its commitment below."""
    return "\n".join([heading(t, daily), *lines, fairness.daily_commitment(t, daily.commitment)])


def started(t: Translator, daily: Daily, seconds_left: float) -> str:
    return _told(
        t,
        daily,
        t._(
            "Everyone gets the same tiles today. One attempt, five undos, no hints. Your "
            "score at midnight UTC (in {time}) is final.",
            time=t.countdown(seconds_left),
        ),
    )


def resumed(t: Translator, daily: Daily, seconds_left: float) -> str:
    return _told(
        t,
        daily,
        t._(
            "Picking up your daily where you left off: it's one attempt a day. Your score at "
            "midnight UTC (in {time}) is final.",
            time=t.countdown(seconds_left),
        ),
    )


def result_line(t: Translator, entry: StoredGame) -> str:
    game = entry.game
    return t.ngettext(
        "Your result: {score} points in {n} move.",
        "Your result: {score} points in {n} moves.",
        game.moves,
        score=t.number(game.score),
    )


def finished(
    t: Translator,
    daily: Daily,
    entry: StoredGame,
    seconds_left: float,
    rank: tuple[int, int] | None,
    streaks: Streaks,
) -> str:
    # A stuck board with undos left is not the end of the attempt: saying it is would
    # contradict the ↩️ under the board.
    told = (
        t._(
            "No tile can move in your daily. Undo a move to play on, or wait for the next "
            "daily: it opens at midnight UTC, in {time}.",
            time=t.countdown(seconds_left),
        )
        if entry.game.undos_left
        else t._(
            "You've played today's daily: one attempt a day. The next one opens at "
            "midnight UTC, in {time}.",
            time=t.countdown(seconds_left),
        )
    )
    return _told(
        t,
        daily,
        told,
        result_line(t, entry),
        *([rank_line(t, rank)] if rank is not None else []),
        streak_line(t, streaks),
    )


def streak_line(t: Translator, streaks: Streaks) -> str:
    """The daily streak running now, and the longest one so far: after a daily, and in
    /stats."""
    if streaks.longest == 0:
        return t._("No daily streak yet: /daily starts today's.")
    longest = t.ngettext("Longest: {n} day.", "Longest: {n} days.", streaks.longest)
    if streaks.current == 0:
        return t._("No daily streak running: today's daily starts a new one.") + " " + longest
    running = t.ngettext(
        "Daily streak: {n} day in a row.", "Daily streak: {n} days in a row.", streaks.current
    )
    return f"🔥 {running} {longest}"


def old(t: Translator, daily: Daily | None, entry: StoredGame | None) -> str:
    """A link to a day gone by: that day's result, if the player played it."""
    lines = [t._("That daily is over. /daily starts today's.")]
    if daily is not None:
        played = [] if entry is None else [result_line(t, entry)]
        seed = fairness.revealed(t, daily.seed, daily.salt, daily.commitment)
        lines = [heading(t, daily), *played, seed, *lines]
    return "\n".join(lines)


def invalid(t: Translator) -> str:
    return t._("This daily link doesn't work. /daily starts today's.")


def in_private(t: Translator) -> str:
    return t._("The daily is played in a private chat with me: tap below to open it.")


def daily_board(t: Translator, daily: Daily | None, *, over: bool) -> tuple[str, str | None] | None:
    """A daily's board: its title, and the banner once its day has ended (None if no daily)."""
    if daily is None:
        return None
    title = t._("{day} daily", day=day_name(t, daily.day))
    return title, ("🏁 " + t._("This daily has ended. Your score is final.")) if over else None


def rank_line(t: Translator, rank: tuple[int, int]) -> str:
    """ "#1,234 of 5,678": the player's place among everyone who played the daily."""
    place, players = rank
    return t.ngettext(
        "You're #{rank} of {n} player.",
        "You're #{rank} of {n} players.",
        players,
        rank=t.number(place),
    )


def _lines(t: Translator, standings: list[Standing], asker: int, limit: int) -> list[str]:
    lines = [standing_line(t, standing) for standing in standings[:limit]]
    own = [s for s in standings[limit:] if s.user_id == asker]
    return lines + (["…", standing_line(t, own[0])] if own else [])


def world_ranking(
    t: Translator,
    size: int,
    opened: bool,
    top: list[Standing],
    rank: tuple[int, int] | None,
    yesterday: list[Standing] | None,
) -> str:
    """`/daily top`: today's world top, the reader's place, and yesterday's final results,
    which count most just after midnight, before anyone has opened today's daily."""
    nobody = (
        t._("No one has played it yet.")
        if opened
        else t._("No one has played today's daily yet. /daily starts it.")
    )
    blocks = [
        "\n".join(
            [
                t._("🌍 <b>Today's daily worldwide</b> · {size}", size=size_name(t, size)),
                *([standing_line(t, s) for s in top] or [nobody]),
                *([rank_line(t, rank)] if rank is not None else []),
            ]
        )
    ]
    if yesterday is not None:
        final = [standing_line(t, s) for s in yesterday] or [t._("Nobody played it.")]
        blocks.append("\n".join([t._("🏁 <b>Yesterday's final results</b>"), *final]))
    return "\n\n".join(blocks)


def group_ranking(t: Translator, standings: list[Standing], asker: int, limit: int) -> str:
    """`/daily` in a group: today's standings among the group's players who played it."""
    lines = _lines(t, standings, asker, limit) or [t._("No one here has played today's daily yet.")]
    return "\n".join([t._("📅 <b>Today's daily in this group</b>"), *lines])
