"""What players read of their statistics: /stats in private, and its one line in a group."""

from __future__ import annotations

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

import engine
from bot import codecs
from bot.models import DailyPlace
from bot.outcomes import PlayerStats
from bot.presentation.daily import day_name, streak_line
from bot.presentation.i18n import Translator
from bot.presentation.render import record_lines, size_name


def stats_link(bot_username: str) -> str:
    """The link that opens the player's private chat with the bot on their full /stats."""
    return codecs.deep_link(bot_username, codecs.STATS_PAYLOAD)


def stats_link_keyboard(t: Translator, link: str) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(
        [[InlineKeyboardButton("📊 " + t._("All your statistics"), url=link)]]
    )


def _which(t: Translator, place: DailyPlace) -> str:
    """ "Classic 4×4, Dec 2": which daily a place was in."""
    return t._("{size}, {day}", size=size_name(t, place.size), day=day_name(t, place.day))


def _daily_lines(t: Translator, stats: PlayerStats) -> list[str]:
    lines = [streak_line(t, stats.streaks)]
    best, last = stats.best_daily, stats.last_daily
    if best is not None:
        lines.append(
            t.ngettext(
                "Best daily rank: #{rank} of {n} player ({daily})",
                "Best daily rank: #{rank} of {n} players ({daily})",
                best.players,
                rank=t.number(best.rank),
                daily=_which(t, best),
            )
        )
    if last is not None:
        lines.append(
            t.ngettext(
                "Last daily: #{rank} of {n} player ({daily})",
                "Last daily: #{rank} of {n} players ({daily})",
                last.players,
                rank=t.number(last.rank),
                daily=_which(t, last),
            )
        )
    return lines


def stats_text(t: Translator, stats: PlayerStats) -> str:
    """/stats in a private chat: each board size played, everything in all, the dailies."""
    if not stats.records:
        return t._(
            "No statistics yet. Play a game with /new or today's daily with /daily, and they "
            "will show up here."
        )
    blocks = [t._("📊 <b>Your statistics</b>")]
    for size in engine.SIZES:
        record = stats.records.get(size)
        if record is not None:
            lines = record_lines(t, record, win_rate=True)
            blocks.append("\n".join([f"<b>{size_name(t, size)}</b>", *lines]))
    totals = stats.totals
    blocks.append(
        "\n".join(
            [
                t._("<b>All games</b>"),
                t.ngettext(
                    "{n} move in all, {time} of play",
                    "{n} moves in all, {time} of play",
                    totals.moves,
                    time=t.play_time(totals.play_seconds),
                ),
            ]
        )
    )
    blocks.append("\n".join([t._("📅 <b>Dailies</b>"), *_daily_lines(t, stats)]))
    return "\n\n".join(blocks)


def group_line(t: Translator, name: str, stats: PlayerStats) -> str:
    """/stats in a group: the asker's one line; the rest is for their private chat."""
    if not stats.records:
        return t._("{name} hasn't played a game yet.", name=name)
    line = t._(
        "{name}: {games}, best score {score}",
        name=name,
        games=t.ngettext("{n} game played", "{n} games played", stats.games_played),
        score=t.number(stats.best_score),
    )
    if stats.streaks.current:
        line += " · 🔥 " + t.ngettext(
            "daily streak of {n} day", "daily streak of {n} days", stats.streaks.current
        )
    return line
