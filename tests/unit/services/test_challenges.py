"""`/challenge` arguments as people type them, in English, Dutch and German alike."""

from __future__ import annotations

import pytest

from bot.services.challenges import DEFAULT_DURATION, ChallengeArgsError, parse_challenge_args

MINUTE, HOUR, DAY = 60, 3600, 86400


@pytest.mark.parametrize(
    ("typed", "size", "seconds"),
    [
        ("", 4, DEFAULT_DURATION),
        ("5", 5, DEFAULT_DURATION),
        ("6x6", 6, DEFAULT_DURATION),
        # English
        ("5 2h", 5, 2 * HOUR),
        ("6 2 hours", 6, 2 * HOUR),
        ("1 hour", 4, HOUR),
        ("30 min", 4, 30 * MINUTE),
        ("45 minutes", 4, 45 * MINUTE),
        ("3 days", 4, 3 * DAY),
        # Dutch
        ("2u", 4, 2 * HOUR),
        ("5 2 uur", 5, 2 * HOUR),
        ("3 uren", 4, 3 * HOUR),
        ("10 minuten", 4, 10 * MINUTE),
        ("1 minuut", 4, MINUTE),
        ("2 dagen", 4, 2 * DAY),
        # German, with or without the abbreviation's full stop, in any case
        ("2 Std", 4, 2 * HOUR),
        ("6 2 Std.", 6, 2 * HOUR),
        ("30 Min", 4, 30 * MINUTE),
        ("30 Min.", 4, 30 * MINUTE),
        ("2 Stunden", 4, 2 * HOUR),
        ("1 Tag", 4, DAY),
        ("5 7 Tage", 5, 7 * DAY),
        # the size may come after the duration, and the unit may be glued to the number
        ("2h 5", 5, 2 * HOUR),
        ("30min 6", 6, 30 * MINUTE),
        ("10080m", 4, 7 * DAY),
    ],
)
def test_durations_are_read_as_people_type_them(typed, size, seconds):
    assert parse_challenge_args(typed.split()) == (size, seconds)


@pytest.mark.parametrize(
    "typed",
    [
        "9",  # no such board
        "4 5",  # two sizes
        "2h 30 min",  # two durations
        "2",  # a number without a unit is not a duration
        "2 weeks",  # a unit no language here uses
        "2x",
        "0 min",  # shorter than a minute
        "8d",  # longer than a week
        "10081 minuten",
        "1,5 uur",
    ],
)
def test_anything_else_is_refused(typed):
    with pytest.raises(ChallengeArgsError):
        parse_challenge_args(typed.split())
