"""Texts that grow with data fit one Telegram message, counted as Telegram counts it.

Telegram counts a message's text after parsing its HTML, in UTF-16 code units: the emulator's
parser (bot/emulator/html.py) does the same, and is the judge here.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from bot.emulator.html import parse_html, utf16_len
from bot.emulator.validation import MAX_TEXT_LENGTH
from bot.handlers.commands import CHALLENGE_TOP, PAST_CHALLENGES, TOP
from bot.handlers.daily import TOP as DAILY_TOP
from bot.models import Challenge, Standing
from bot.presentation.daily import group_ranking, in_private, world_ranking
from bot.presentation.i18n import LANGUAGES, group_zone, translator
from bot.presentation.leaderboards import group_leaderboard
from bot.presentation.names import group_name
from bot.services.challenges import MAX_OPEN_PER_GROUP

# The characters that make a name long on the wire: letters of the "fancy fonts" (two UTF-16
# units each), emoji and their joiners, right-to-left scripts, and HTML's special characters.
WORST_CHARACTERS = (
    "𝕬𝖇𝖈𝓐𝓑𝓒𝐀𝐁𝐂🅰🅱🆎"  # mathematical and enclosed letters
    "👩‍👩‍👧‍👦🏳️‍🌈🇳🇱🇩🇪😀"  # emoji, joined sequences and flags
    "שלוםمرحبا"  # Hebrew and Arabic
    "漢字テスト"  # CJK
    "<>&\"'"  # escaped in HTML
    "\u202e\u200f\u2066"  # direction controls (dropped)
    "Wy"
)
GROUP = -1001234567890123
ASKER = 10**9  # who sent /best: ranked below the top, so their own line is added
names = st.one_of(
    st.text(alphabet=WORST_CHARACTERS, min_size=1, max_size=80),
    st.sampled_from(["𝕬" * 64, "👩‍👩‍👧‍👦" * 20, "&" * 64, "\u202eevil", "ﷺ" * 64]),
)
figures = st.fixed_dictionaries(
    {
        "score": st.integers(0, 10**9),
        "highest": st.sampled_from([2, 2048, 2**17]),
        "moves": st.integers(0, 10**6),
    }
)


def standings(draw: st.DrawFn, pool: list[str], count: int, asker: bool) -> list[Standing]:
    ranks = list(range(1, count + 1))
    if asker:
        ranks.append(draw(st.integers(count + 2, 10**6)))
    return [
        Standing(
            rank, ASKER if rank > count else rank, draw(st.sampled_from(pool)), **draw(figures)
        )
        for rank in ranks
    ]


def challenge(draw: st.DrawFn, pool: list[str], finished: bool) -> Challenge:
    return Challenge(
        id=draw(st.integers(1, 10**9)),
        chat_id=GROUP,
        chat_title=draw(st.sampled_from(pool)),
        language="en",
        creator_id=1,
        size=draw(st.sampled_from(engine.SIZES)),
        seed=1,
        token="abcdefgh",
        ends_at=draw(st.floats(1.7e9, 2.5e9)),
        message_id=draw(st.integers(1, 2**31)),
        finished=finished,
    )


@st.composite
def leaderboards(draw: st.DrawFn) -> dict:
    """Everything a group's /best shows. Names come from a small pool drawn per example, so
    an example where every name is as long as a name can be is as likely as any other."""
    pool = draw(st.lists(names, min_size=1, max_size=3))
    running = draw(st.integers(0, MAX_OPEN_PER_GROUP))
    past = draw(st.integers(0, PAST_CHALLENGES))
    return {
        "language": draw(st.sampled_from(LANGUAGES)),
        "title": draw(st.sampled_from(pool)),
        "boards": {size: standings(draw, pool, TOP, asker=True) for size in engine.SIZES},
        "running": [
            (challenge(draw, pool, False), standings(draw, pool, CHALLENGE_TOP, asker=False))
            for _ in range(running)
        ],
        "finished": [
            (challenge(draw, pool, True), draw(st.one_of(st.none(), st.sampled_from(pool))))
            for _ in range(past)
        ],
    }


@given(leaderboards())
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_a_groups_best_always_fits_one_message(board: dict) -> None:
    language, title, boards = board["language"], board["title"], board["boards"]
    running, finished = board["running"], board["finished"]
    t = translator(language)
    past = [
        (challenge, None if name is None else Standing(1, 5, name, 10**9, 2**17, 10**6))
        for challenge, name in finished
    ]
    zone = group_zone(language)
    text = group_leaderboard(t, GROUP, title, boards, TOP, ASKER, running, past, zone)
    parsed = parse_html(text)
    assert utf16_len(parsed.text) <= MAX_TEXT_LENGTH
    # What matters most stays: the heading, and the top of the classic board.
    heading = t._("<b>Best in {title}</b>", title=group_name(t, title, GROUP))
    lines = parsed.text.split("\n")
    assert lines[0] == parse_html(heading).text
    assert lines[3].startswith("1. ")


@st.composite
def daily_rankings(draw: st.DrawFn) -> dict:
    """Everything `/daily top` and a group's `/daily` show, each name from a small pool."""
    pool = draw(st.lists(names, min_size=1, max_size=3))
    return {
        "language": draw(st.sampled_from(LANGUAGES)),
        "top": standings(draw, pool, DAILY_TOP, asker=False),
        "group": standings(draw, pool, DAILY_TOP, asker=True),
        "yesterday": standings(draw, pool, DAILY_TOP, asker=False),
        "rank": (draw(st.integers(1, 10**9)), 10**9),
    }


@given(daily_rankings())
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_the_daily_rankings_always_fit_one_message(ranking: dict) -> None:
    t = translator(ranking["language"])
    world = world_ranking(t, 6, True, ranking["top"], ranking["rank"], ranking["yesterday"])
    group = group_ranking(t, ranking["group"], ASKER, DAILY_TOP)
    for text in (world, group + "\n\n" + in_private(t)):
        assert utf16_len(parse_html(text).text) <= MAX_TEXT_LENGTH
