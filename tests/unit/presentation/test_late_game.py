"""A late game you can read: every tile value a player can reach is told apart at a glance.

On a phone an emoji is a blob of colour: a green square and a green circle read as the same
tile, whatever the legend says. So no two reachable values may be coloured shapes of one
colour, and the legend must stay on one line of a 360-px phone.
"""

from __future__ import annotations

import os
import re
import unicodedata
from dataclasses import replace
from pathlib import Path

import pytest
from PIL import ImageFont

import engine
from bot.presentation import render
from bot.presentation.i18n import translator
from tests.support.data import LONG_GAME

REACHABLE = [1 << e for e in range(1, 18)]  # 2 … 131072, about the most a 6×6 game reaches
# A plain coloured shape, by its Unicode name ("LARGE GREEN SQUARE", "MEDIUM BLACK CIRCLE").
COLOURED_SHAPE = re.compile(
    r"\b(RED|ORANGE|YELLOW|GREEN|BLUE|PURPLE|BROWN|BLACK|WHITE)\b.*"
    r"\b(SQUARE|CIRCLE|DIAMOND|HEART|TRIANGLE|RECTANGLE)\b"
)
TEXT_FONT = Path("/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf")
EMOJI_FONT = Path("/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf")
# Telegram's message text is 16 px; on a 360-px phone a group's bubbles (with the sender's
# picture beside them) leave about 250 px of it for a line.
PHONE_LINE_PX = 250.0


def _colour(emoji: str) -> str | None:
    match = COLOURED_SHAPE.search(unicodedata.name(emoji))
    return match.group(1) if match else None


def test_no_two_reachable_tiles_are_shapes_of_one_colour():
    shown = {value: render.tile_emoji(value) for value in [0, *REACHABLE]}
    assert len(set(shown.values())) == len(shown)
    by_colour: dict[str, list[int]] = {}
    for value, emoji in shown.items():
        colour = _colour(emoji)
        if colour is not None:
            by_colour.setdefault(colour, []).append(value)
    alike = {colour: values for colour, values in by_colour.items() if len(values) > 1}
    assert not alike, f"these values look alike on a phone: {alike}"


def test_each_range_has_a_family_of_its_own():
    """Up to 64 coloured squares; from 128 on, pictures that are no coloured shape at all."""
    assert all(_colour(render.tile_emoji(value)) for value in REACHABLE if value <= 64)
    assert not any(_colour(render.tile_emoji(value)) for value in REACHABLE if value >= 128)


def _long_game_at(moves: int) -> engine.Game:
    steps = engine.replay_steps(4, LONG_GAME["seed"], LONG_GAME["actions"])
    return next(game for game in steps if game.moves == moves)


def test_the_late_game_board_tells_every_tile_apart():
    game = _long_game_at(957)
    text = re.sub(r"</?b>", "", render.board_text(translator("en"), game, best=game.score))
    grid = text.split("\n")[1:5]
    assert grid == ["🦊🐇🐢🟦", "🟥🟪🐌🟦", "🟦🟩🟥🟧", "🟩🟨🟦🟦"]
    assert text.split("\n")[5] == "🐌 128  🐢 256  🐇 512  🦊 1024"


def _fonts() -> tuple[ImageFont.FreeTypeFont, ImageFont.FreeTypeFont]:
    if not (TEXT_FONT.exists() and EMOJI_FONT.exists()) and not os.environ.get("CI"):
        pytest.skip("fonts-liberation and fonts-noto-color-emoji are not installed")
    # Noto Color Emoji has one bitmap size, 109 px; its advance scales with the text.
    return ImageFont.truetype(str(TEXT_FONT), 16), ImageFont.truetype(str(EMOJI_FONT), 109)


def _line_px(line: str, text: ImageFont.FreeTypeFont, emoji: ImageFont.FreeTypeFont) -> float:
    return sum(
        emoji.getlength(char) * 16 / 109 if unicodedata.category(char) == "So" else
        text.getlength(char)
        for char in line
    )  # fmt: skip


@pytest.mark.parametrize("size", engine.SIZES)
def test_the_legend_stays_on_one_line_of_a_phone_however_far_the_game_got(size):
    text, emoji = _fonts()
    cells = size * size
    for top in range(1, 38):
        values = [1 << e for e in range(1, top + 1)][-cells:]
        game = replace(
            engine.new_game(size, 1, 0.0), board=tuple(values + [0] * (cells - len(values)))
        )
        legend = render.legend(game)
        assert _line_px(legend, text, emoji) <= PHONE_LINE_PX, legend
        # It names the largest values on the board, smallest first: at least the three largest.
        expected = [f"{render.tile_emoji(v)} {render.tile_label(v)}" for v in values]
        entries = legend.split("  ")
        assert entries == expected[-len(entries) :]
        assert len(entries) >= min(3, len(values))


def test_the_legend_of_an_early_board_names_every_tile():
    game = replace(engine.new_game(4, 1, 0.0), board=(2, 4, 8, 16, 32) + (0,) * 11)
    assert render.legend(game) == "🟦 2  🟩 4  🟨 8  🟧 16  🟥 32"
