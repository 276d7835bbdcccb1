"""The callback data behind inline buttons: what each builder writes comes back from its
parser as it went in, fits Telegram's 64 bytes, and is claimed by exactly one handler pattern;
whatever else a modified client sends is refused by the parser and by the pattern alike.

python-telegram-bot routes a tap with `re.match(pattern, data)`, so the patterns are tried
here the same way.
"""

from __future__ import annotations

import re
import string

import pytest
from hypothesis import given
from hypothesis import strategies as st

import engine
from bot.codecs import (
    CURRENT_BOARD,
    CURRENT_PATTERN,
    GAME_PATTERN,
    LANGUAGE_PATTERN,
    NEW_PATTERN,
    REVIEW_PATTERN,
    DailyAsk,
    GameTap,
    ReplayAsk,
    ReviewTap,
    game_tap,
    language,
    new_game,
    parse_daily_args,
    parse_game_tap,
    parse_language,
    parse_new_game,
    parse_replay_args,
    parse_review_button,
    review_button,
)
from bot.presentation.i18n import LANGUAGES

# What Telegram accepts as a button's callback_data: 1 to 64 bytes.
CALLBACK_DATA_BYTES = 64
# Every action a board button can carry: the game's own, a hint and the view switch.
ACTIONS = [*engine.ACTION_CODES, "hint", "view"]
LARGEST_GAME_ID = 10**15 - 1  # fifteen digits: what GAME_PATTERN takes
PATTERNS = {
    "game": GAME_PATTERN,
    "new": NEW_PATTERN,
    "language": LANGUAGE_PATTERN,
    "current": CURRENT_PATTERN,
    "review": REVIEW_PATTERN,
}
PARSERS = {
    "game": parse_game_tap,
    "new": parse_new_game,
    "language": parse_language,
    "review": parse_review_button,
}
LARGEST_ACTIONS = 10**7 - 1  # seven digits: what REVIEW_PATTERN takes
# Every string the builders can write, with the pattern meant to claim it.
BUILT = [
    *(
        ("game", game_tap(game_id, action))
        for game_id in (1, LARGEST_GAME_ID)
        for action in ACTIONS
    ),
    ("new", new_game()),
    *(("new", new_game(size)) for size in engine.SIZES),
    *(("language", language(code)) for code in LANGUAGES),
    ("current", CURRENT_BOARD),
    *(
        ("review", review_button(game_id, actions))
        for game_id in (1, LARGEST_GAME_ID)
        for actions in (0, LARGEST_ACTIONS)
    ),
]


def claimed_by(data: str) -> list[str]:
    """The handler patterns that would take this data, as python-telegram-bot matches them."""
    return [name for name, pattern in PATTERNS.items() if re.match(pattern, data)]


@given(st.integers(1, LARGEST_GAME_ID), st.sampled_from(ACTIONS))
def test_a_board_button_comes_back_as_the_game_and_action_it_was_made_for(game_id, action):
    data = game_tap(game_id, action)
    assert parse_game_tap(data) == GameTap(game_id, action)
    assert claimed_by(data) == ["game"]


@pytest.mark.parametrize("size", [None, *engine.SIZES])
def test_a_new_game_button_comes_back_as_its_size_or_the_size_menu(size):
    data = new_game(size)
    assert parse_new_game(data) == size
    assert claimed_by(data) == ["new"]


@pytest.mark.parametrize("code", LANGUAGES)
def test_a_language_button_comes_back_as_its_language(code):
    data = language(code)
    assert parse_language(data) == code
    assert claimed_by(data) == ["language"]


@given(st.integers(1, LARGEST_GAME_ID), st.integers(0, LARGEST_ACTIONS))
def test_a_review_button_comes_back_as_the_game_and_actions_it_was_made_for(game_id, actions):
    data = review_button(game_id, actions)
    assert parse_review_button(data) == ReviewTap(game_id, actions)
    assert claimed_by(data) == ["review"]


def test_the_current_board_button_is_claimed_by_its_own_pattern_alone():
    assert claimed_by(CURRENT_BOARD) == ["current"]


@pytest.mark.parametrize(("kind", "data"), BUILT)
def test_every_button_fits_telegrams_64_bytes(kind, data):
    assert 1 <= len(data.encode()) <= CALLBACK_DATA_BYTES
    assert claimed_by(data) == [kind]


@pytest.mark.parametrize(
    ("kind", "data"),
    [
        ("game", "g:1:l\n"),  # `$` would let a final newline through; the patterns use `\Z`
        ("game", "g:0:l"),
        ("game", "g:01:l"),
        ("game", "g:-1:l"),
        ("game", f"g:{LARGEST_GAME_ID + 1}:l"),
        ("game", "g:1:x"),
        ("game", "g:1:L"),
        ("game", "g:1:lu"),
        ("game", "g:1:l:l"),
        ("game", "g:1:"),
        ("game", "g::l"),
        ("game", " g:1:l"),
        ("game", "G:1:l"),
        ("game", ""),
        ("game", None),
        ("new", "new\n"),
        ("new", "new:"),
        ("new", "new:3"),
        ("new", "new:7"),
        ("new", "new:44"),
        ("new", "new:4\n"),
        ("new", "NEW"),
        ("new", None),
        ("language", "lang:en\n"),
        ("language", "lang:"),
        ("language", "lang:fr"),
        ("language", "lang:EN"),
        ("language", "lang:en-GB"),
        ("language", None),
        ("review", "rv:1:0\n"),
        ("review", "rv:0:5"),
        ("review", "rv:1:05"),
        ("review", "rv:1:-5"),
        ("review", f"rv:1:{LARGEST_ACTIONS + 1}"),
        ("review", "rv:1"),
        ("review", "rv:1:5:5"),
        ("review", "RV:1:5"),
        ("review", None),
    ],
)
def test_forged_data_is_refused_by_the_parser_and_claimed_by_no_pattern(kind, data):
    with pytest.raises(ValueError):
        PARSERS[kind](data)
    if data is not None:
        assert claimed_by(data) == []


@pytest.mark.parametrize("data", ["cur\n", "cur:1", "CUR", " cur"])
def test_forged_current_board_data_is_claimed_by_no_pattern(data):
    assert claimed_by(data) == []


@given(st.text())
def test_a_parser_accepts_exactly_what_its_pattern_routes_to_it(data):
    for kind, parse in PARSERS.items():
        routed = re.match(PATTERNS[kind], data) is not None
        try:
            parse(data)
        except ValueError:
            assert not routed, (kind, data)
        else:
            assert routed, (kind, data)


@given(st.text(alphabet=string.ascii_letters + string.digits + ":-\n ", max_size=24))
def test_data_of_the_buttons_alphabet_is_accepted_only_as_a_builder_writes_it(data):
    """Nothing but the builders' own spelling is taken: no leading zero, no second form."""
    try:
        tap = parse_game_tap(data)
    except ValueError:
        pass
    else:
        assert game_tap(tap.game_id, tap.action) == data
    try:
        size = parse_new_game(data)
    except ValueError:
        pass
    else:
        assert new_game(size) == data
    try:
        code = parse_language(data)
    except ValueError:
        pass
    else:
        assert language(code) == data
    try:
        review = parse_review_button(data)
    except ValueError:
        pass
    else:
        assert review_button(review.game_id, review.actions) == data
    assert len(claimed_by(data)) <= 1


@pytest.mark.parametrize(
    ("typed", "asked"),
    [
        ("", ReplayAsk()),
        ("best", ReplayAsk(best=True)),
        ("BEST 5", ReplayAsk(best=True, size=5)),
        ("best 6x6", ReplayAsk(best=True, size=6)),
        ("best 5×5", ReplayAsk(best=True, size=5)),
    ],
)
def test_replay_arguments_are_read_as_players_type_them(typed, asked):
    assert parse_replay_args(typed.split()) == asked


@pytest.mark.parametrize("typed", ["best 7", "best 5 6", "worst", "5", "best five", "best 5x6"])
def test_other_replay_arguments_are_refused(typed):
    assert parse_replay_args(typed.split()) is None


@pytest.mark.parametrize(
    ("typed", "asked"),
    [
        ("", DailyAsk()),
        ("5", DailyAsk(size=5)),
        ("top 6", DailyAsk(size=6, top=True)),
        ("on", DailyAsk(switch=True)),
        ("OFF", DailyAsk(switch=False)),
    ],
)
def test_daily_arguments_are_read_as_players_type_them(typed, asked):
    assert parse_daily_args(typed.split()) == asked


@pytest.mark.parametrize("typed", ["on 5", "top on", "off off", "7", "onn"])
def test_other_daily_arguments_are_refused(typed):
    assert parse_daily_args(typed.split()) is None
