"""Group chat texts: leaderboards and challenge cards, escaped and length-capped."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from babel.dates import format_skeleton, format_time, get_timezone_gmt, get_timezone_name
from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.models import Challenge, Standing
from bot.presentation import fairness
from bot.presentation.i18n import Translator
from bot.presentation.limits import fit_blocks
from bot.presentation.names import group_name, player_name
from bot.presentation.render import size_name


def end_time(t: Translator, timestamp: float, zone: ZoneInfo) -> str:
    """A challenge's end on the group's clock (`group_zone`), zone named: "Nov 30 at 12:53 AM UTC"
    (the reader's locale picks a 12- or 24-hour clock).

    Worded in the reader's language (a player joining from a private chat may read another
    language than the group's), but always on the group's clock, so everyone sees one moment.
    """
    moment = datetime.fromtimestamp(timestamp, zone)
    return t._(
        "{day} at {time} {zone}",
        day=format_skeleton("MMMd", moment, tzinfo=zone, locale=t.language),
        time=format_time(moment, "short", tzinfo=zone, locale=t.language),
        zone=zone_abbreviation(t, moment),
    )


def zone_abbreviation(t: Translator, moment: datetime) -> str:
    """The zone as the reader's language writes it: MEZ in German, CET in Dutch and English.

    CLDR has the language's own abbreviation where it has one (German, Dutch); where it has
    none (English for Central Europe) the zone's usual one from the tz database is what
    people write, rather than an offset such as GMT+01:00. An offset is the last resort.
    """
    name = get_timezone_name(moment, "short", locale=t.language)
    if name.isalpha():
        return name
    usual = moment.tzname() or ""
    return usual if usual.isalpha() else get_timezone_gmt(moment, locale=t.language)


def standing_line(t: Translator, standing: Standing) -> str:
    return t._(
        "{rank}. {name}: {score} · highest tile {tile} · {moves}",
        rank=standing.rank,
        name=player_name(t, standing.name, standing.user_id),
        score=t.number(standing.score),
        tile=t.tile(standing.highest),
        moves=t.ngettext("{n} move", "{n} moves", standing.moves),
    )


def _ranking(t: Translator, standings: list[Standing], limit: int, asker: int | None) -> list[str]:
    lines = [standing_line(t, s) for s in standings if s.rank <= limit]
    own = [s for s in standings if s.rank > limit and s.user_id == asker]
    if own:
        lines += ["…", standing_line(t, own[0])]
    return lines


# Telegram's supergroup ids are -100 followed by the id its t.me/c/ links use.
_SUPERGROUP_BASE = 10**12


def card_link(challenge: Challenge) -> str | None:
    """A link to the challenge's card, for members: only a supergroup's messages have one."""
    if challenge.message_id is None or challenge.chat_id > -_SUPERGROUP_BASE:
        return None
    return f"https://t.me/c/{-challenge.chat_id - _SUPERGROUP_BASE}/{challenge.message_id}"


def _running(t: Translator, challenge: Challenge, standings: list[Standing], zone: ZoneInfo) -> str:
    """A running challenge in /best: its leaders, and where to join."""
    lines = [
        "🏆 " + t._("<b>Live challenge</b> · {size}", size=size_name(t, challenge.size)),
        t._("Ends {time}.", time=end_time(t, challenge.ends_at, zone)),
    ]
    lines += [standing_line(t, s) for s in standings] or [
        t._("No one has played yet. Be the first!")
    ]
    link = card_link(challenge)
    if link is not None:
        lines.append(
            t._('To join, tap “Play” on <a href="{link}">the challenge message</a>.', link=link)
        )
    else:  # a basic group's messages have no link: say where the message is
        lines.append(t._("To join, tap “Play” on the challenge message above."))
    return "\n".join(lines)


def _past(t: Translator, finished: list[tuple[Challenge, Standing | None]], zone: ZoneInfo) -> str:
    """The last challenges that ended, each with its winner."""
    lines = ["🏁 " + t._("<b>Past challenges</b>")]
    for challenge, winner in finished:
        day = format_skeleton(
            "MMMd", datetime.fromtimestamp(challenge.ends_at, zone), tzinfo=zone, locale=t.language
        )
        size = size_name(t, challenge.size)
        if winner is None:
            lines.append(t._("{day} · {size}: nobody took part", day=day, size=size))
        else:
            lines.append(
                t._(
                    "{day} · {size}: {name} won with {score} points",
                    day=day,
                    size=size,
                    name=player_name(t, winner.name, winner.user_id),
                    score=t.number(winner.score),
                )
            )
    return "\n".join(lines)


def group_leaderboard(
    t: Translator,
    chat_id: int,
    title: str,
    boards: dict[int, list[Standing]],
    limit: int,
    asker: int,
    running: list[tuple[Challenge, list[Standing]]],
    finished: list[tuple[Challenge, Standing | None]],
    zone: ZoneInfo,
) -> str:
    """/best in a group: the top players per board size (and the asker's place if lower),
    then the group's running challenges with their leaders, then the last winners; their
    days and times on the group's clock."""
    if not any(boards.values()) and not running and not finished:
        return t._("Nobody has a score in this group yet. /new starts a board.")
    blocks = [t._("<b>Best in {title}</b>", title=group_name(t, title, chat_id))]
    for size, standings in boards.items():
        if standings:
            lines = [f"<b>{size_name(t, size)}</b>", *_ranking(t, standings, limit, asker)]
            blocks.append("\n".join(lines))
    blocks += [_running(t, challenge, standings, zone) for challenge, standings in running]
    if finished:
        blocks.append(_past(t, finished, zone))
    # Long names and many challenges can outgrow one message: the past goes first.
    return fit_blocks(blocks)


def challenge_card(
    t: Translator,
    challenge: Challenge,
    standings: list[Standing],
    players: int,
    limit: int,
    zone: ZoneInfo,
) -> str:
    head = "🏆 " + t._("<b>2048 challenge</b> · {size}", size=size_name(t, challenge.size))
    if challenge.finished:
        lines = [head, t._("🏁 <b>Final ranking</b>")]
    else:
        lines = [
            head,
            t._("Ends {time}.", time=end_time(t, challenge.ends_at, zone)),
            t._("Same tiles for everyone. Tap “Play” to get your board in a private chat with me."),
        ]
        if challenge.commitment is not None:
            lines.append(fairness.challenge_commitment(t, challenge.commitment))
    lines.append("")
    if standings:
        lines += _ranking(t, standings, limit, None)
        lines.append(t.ngettext("{n} player", "{n} players", players))
    elif challenge.finished:
        lines.append(t._("Nobody played this challenge."))
    else:
        lines.append(t._("No one has played yet. Be the first!"))
    if challenge.finished and challenge.salt is not None and challenge.commitment is not None:
        lines += ["", fairness.revealed(t, challenge.seed, challenge.salt, challenge.commitment)]
    return "\n".join(lines)


def challenge_keyboard(t: Translator, link: str) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup([[InlineKeyboardButton("▶️ " + t._("Play"), url=link)]])


def winner_text(t: Translator, challenge: Challenge, winner: Standing | None) -> str:
    if winner is None:
        return t._(
            "The {size} challenge is over, and nobody took part.", size=size_name(t, challenge.size)
        )
    name = "<b>" + player_name(t, winner.name, winner.user_id) + "</b>"
    return t._(
        "🏆 {name} wins the {size} challenge with {score} points!",
        name=name,
        size=size_name(t, challenge.size),
        score=t.number(winner.score),
    )
