"""Challenges: `/challenge` arguments as people type them in English, Dutch and German, and
ChallengeService on real storage: three running at most, one seed for all, joins and ends."""

from __future__ import annotations

from collections.abc import Callable

import pytest

import engine
from bot.codecs import (
    DEFAULT_DURATION,
    ChallengeArgsError,
    challenge_payload,
    parse_challenge_args,
)
from bot.services.challenges import MAX_OPEN_PER_GROUP, ChallengeService, JoinStatus
from bot.services.locks import ChatLocks
from bot.storage import Storage

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


NOW = 1_700_000_000.0
GROUP = -100510051
CREATOR, PLAYERS = 61, (62, 63)


class Clock:
    def __init__(self) -> None:
        self.now = NOW

    def __call__(self) -> float:
        return self.now


def challenges_on(storage: Storage, clock: Callable[[], float] = lambda: NOW) -> ChallengeService:
    return ChallengeService(storage, ChatLocks(storage), clock, new_seed=lambda: 2048)


async def test_a_group_runs_three_challenges_at_most_and_a_fourth_fits_once_one_ends(storage):
    challenges = challenges_on(storage)
    running = [await challenges.create(GROUP, "Club", "en", CREATOR, 4, 3600) for _ in range(3)]
    assert all(running) and len({c.id for c in running}) == MAX_OPEN_PER_GROUP
    assert await challenges.create(GROUP, "Club", "en", CREATOR, 5, 3600) is None
    assert await challenges.create(-1, "Other", "en", CREATOR, 5, 3600) is not None
    await challenges.finish(running[0])
    assert await challenges.create(GROUP, "Club", "en", CREATOR, 5, 3600) is not None


async def test_every_entry_starts_from_the_challenges_seed(storage):
    challenges = challenges_on(storage)
    challenge = await challenges.create(GROUP, "Club", "en", CREATOR, 5, 3600)
    assert (challenge.seed, challenge.size, challenge.ends_at) == (2048, 5, NOW + 3600)
    entries = [
        (await challenges.join(challenge_payload(challenge), user)).entry for user in PLAYERS
    ]
    assert [e.challenge_id for e in entries] == [challenge.id] * 2
    assert [e.chat_id for e in entries] == list(PLAYERS)  # each in their private chat
    assert entries[0].game == entries[1].game == engine.new_game(5, 2048, NOW)
    assert await storage.challenge_players(challenge.id) == 2


@pytest.mark.parametrize("link", ["wrong token", "unknown id", "garbage"])
async def test_a_forged_link_joins_nothing(storage, link):
    challenges = challenges_on(storage)
    challenge = await challenges.create(GROUP, "Club", "en", CREATOR, 4, 3600)
    text = {
        "wrong token": f"c{challenge.id}_{'x' * 8}",
        "unknown id": f"c{challenge.id + 1}_{challenge.token}",
        "garbage": "c1_",
    }[link]
    joined = await challenges.join(text, PLAYERS[0])
    assert joined.status is JoinStatus.INVALID and joined.entry is None
    assert await storage.challenge_players(challenge.id) == 0


async def test_a_challenge_takes_nobody_once_its_time_is_up(storage):
    clock = Clock()
    challenges = challenges_on(storage, clock)
    challenge = await challenges.create(GROUP, "Club", "en", CREATOR, 4, 600)
    clock.now += 600
    late = await challenges.join(challenge_payload(challenge), PLAYERS[0])
    assert late.status is JoinStatus.ENDED and late.entry is None
    assert await storage.challenge_players(challenge.id) == 0


async def test_a_challenge_keeps_the_first_card_posted_for_it(storage):
    challenges = challenges_on(storage)
    challenge = await challenges.create(GROUP, "Club", "en", CREATOR, 4, 3600)
    assert await challenges.set_card(challenge, 700)
    assert not await challenges.set_card(challenge, 701)  # one card too many: deleted
    assert (await storage.challenge(challenge.id)).message_id == 700


async def test_a_challenge_nobody_could_see_gives_its_place_back(storage):
    challenges = challenges_on(storage)
    unseen = await challenges.create(GROUP, "Club", "en", CREATOR, 4, 3600)
    assert await challenges.withdraw(unseen)
    assert await storage.challenge(unseen.id) is None
    assert await storage.open_challenges(GROUP) == []
    shown = await challenges.create(GROUP, "Club", "en", CREATOR, 4, 3600)
    await challenges.set_card(shown, 700)
    assert not await challenges.withdraw(shown)  # its card is up: players may join it
    joined = await challenges.create(GROUP, "Club", "en", CREATOR, 4, 3600)
    await challenges.join(challenge_payload(joined), PLAYERS[0])
    assert not await challenges.withdraw(joined)
    assert {c.id for c in await storage.open_challenges(GROUP)} == {shown.id, joined.id}


async def test_overdue_challenges_end_once_each_and_the_others_run_on(storage):
    clock = Clock()
    challenges = challenges_on(storage, clock)
    short = await challenges.create(GROUP, "Club", "en", CREATOR, 4, 600)
    long = await challenges.create(GROUP, "Club", "en", CREATOR, 4, 3600)
    await challenges.join(challenge_payload(short), PLAYERS[0])
    clock.now += 600
    assert await challenges.finish_overdue() == 1
    assert await challenges.finish_overdue() == 0
    assert await challenges.finish(short) is None  # its end job, late: nothing more
    assert (await storage.challenge(short.id)).finished
    assert not (await storage.challenge(long.id)).finished
    assert not (await storage.challenge_entry(short.id, PLAYERS[0])).active
