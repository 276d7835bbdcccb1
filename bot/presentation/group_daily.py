"""What a group reads of its daily: the day's message with its standings, the final ranking
and the winner, and the answers to `/daily on` and `/daily off`."""

from __future__ import annotations

from bot.models import Daily, Standing
from bot.presentation import fairness
from bot.presentation.daily import day_name, heading
from bot.presentation.i18n import Translator
from bot.presentation.leaderboards import standing_line
from bot.presentation.names import player_name

CARD_TOP = 10  # the group's leaders shown; the count below says how many played


def _standings(t: Translator, standings: list[Standing], nobody: str) -> list[str]:
    if not standings:
        return [nobody]
    lines = [standing_line(t, standing) for standing in standings[:CARD_TOP]]
    return [*lines, t.ngettext("{n} player", "{n} players", len(standings))]


def group_card(t: Translator, daily: Daily, standings: list[Standing], *, final: bool) -> str:
    """The day's message in an opted-in group: today's standings among its members, and
    the commitment; once the day is over, the final ranking and the seed revealed."""
    if final:
        return "\n".join(
            [
                heading(t, daily),
                t._("🏁 <b>Final ranking</b>"),
                "",
                *_standings(t, standings, t._("Nobody here played this daily.")),
                "",
                fairness.revealed(t, daily.seed, daily.salt, daily.commitment),
            ]
        )
    return "\n".join(
        [
            heading(t, daily),
            t._(
                "Everyone gets the same tiles today: one attempt each, in a private chat with me. "
                "Your score at midnight UTC is final."
            ),
            fairness.daily_commitment(t, daily.commitment),
            "",
            *_standings(t, standings, t._("No one here has played today's daily yet.")),
        ]
    )


def group_winner(t: Translator, daily: Daily, winner: Standing | None) -> str:
    day = day_name(t, daily.day)
    if winner is None:
        return t._("The {day} daily is over, and nobody here played it.", day=day)
    return t._(
        "📅 {name} wins the {day} daily in this group with {score} points!",
        name="<b>" + player_name(t, winner.name, winner.user_id) + "</b>",
        day=day,
        score=t.number(winner.score),
    )


def switched_on(t: Translator) -> str:
    return t._(
        "The daily is on in this group: today's standings are below, and I'll post each new "
        "day's at midnight UTC. /daily off stops them."
    )


def already_on(t: Translator) -> str:
    return t._("The daily is already on in this group. /daily off stops it.")


def switched_off(t: Translator) -> str:
    return t._(
        "The daily is off in this group: no more daily standings here. /daily on starts it again."
    )


def already_off(t: Translator) -> str:
    return t._("The daily is already off in this group. /daily on starts it.")


def admins_only(t: Translator) -> str:
    return t._("Only the group's admins can switch the daily on or off.")


def groups_only(t: Translator) -> str:
    return t._("/daily on and /daily off are for groups: send them in the group.")
