"""Group chat texts: leaderboards and challenge cards, escaped and length-capped."""

from __future__ import annotations

from datetime import UTC, datetime

from babel.dates import format_skeleton
from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.models import Challenge, Standing
from bot.presentation.i18n import Translator
from bot.presentation.names import group_name, player_name
from bot.presentation.render import size_name


def end_time(t: Translator, timestamp: float) -> str:
    moment = datetime.fromtimestamp(timestamp, UTC)
    day = format_skeleton("MMMd", moment, tzinfo=UTC, locale=t.language)
    clock = format_skeleton("Hm", moment, tzinfo=UTC, locale=t.language)
    return f"{day} {clock} UTC"


def standing_line(t: Translator, standing: Standing) -> str:
    return t._(
        "{rank}. {name}: {score} · top tile {tile} · {moves}",
        rank=standing.rank,
        name=player_name(t, standing.name, standing.user_id),
        score=t.number(standing.score),
        tile=standing.highest,
        moves=t.ngettext("{n} move", "{n} moves", standing.moves),
    )


def _ranking(t: Translator, standings: list[Standing], limit: int, asker: int | None) -> list[str]:
    lines = [standing_line(t, s) for s in standings if s.rank <= limit]
    own = [s for s in standings if s.rank > limit and s.user_id == asker]
    if own:
        lines += ["…", standing_line(t, own[0])]
    return lines


def group_leaderboard(
    t: Translator,
    chat_id: int,
    title: str,
    boards: dict[int, list[Standing]],
    limit: int,
    asker: int,
) -> str:
    """/best in a group: the top players per board size, and the asker's place if lower."""
    if not any(boards.values()):
        return t._("Nobody has a score in this group yet. /new starts a board.")
    blocks = [t._("<b>Best in {title}</b>", title=group_name(t, title, chat_id))]
    for size, standings in boards.items():
        if standings:
            lines = [f"<b>{size_name(t, size)}</b>", *_ranking(t, standings, limit, asker)]
            blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def challenge_card(
    t: Translator, challenge: Challenge, standings: list[Standing], players: int, limit: int
) -> str:
    head = "🏆 " + t._("<b>2048 challenge</b> · {size}", size=size_name(t, challenge.size))
    if challenge.finished:
        lines = [head, t._("🏁 <b>Final ranking</b>")]
    else:
        lines = [
            head,
            t._("Ends {time}.", time=end_time(t, challenge.ends_at)),
            t._("Same tiles for everyone. Tap Play to get your board in a private chat with me."),
        ]
    lines.append("")
    if standings:
        lines += _ranking(t, standings, limit, None)
        lines.append(t.ngettext("{n} player", "{n} players", players))
    elif challenge.finished:
        lines.append(t._("Nobody played this challenge."))
    else:
        lines.append(t._("No one has played yet. Be the first!"))
    return "\n".join(lines)


def challenge_keyboard(t: Translator, link: str) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup([[InlineKeyboardButton("▶️ " + t._("Play"), url=link)]])


def winner_text(t: Translator, challenge: Challenge, winner: Standing | None) -> str:
    if winner is None:
        return t._(
            "The {size} challenge is over, and nobody played.", size=size_name(t, challenge.size)
        )
    name = "<b>" + player_name(t, winner.name, winner.user_id) + "</b>"
    return t._(
        "🏆 {name} wins the {size} challenge with {score} points!",
        name=name,
        size=size_name(t, challenge.size),
        score=t.number(winner.score),
    )
