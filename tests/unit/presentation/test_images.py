"""The shared card and the replay, checked as pictures: decoded, measured and sampled.

The expected colours are the original 2048's, written out here rather than read from the
renderer, so a wrong palette fails. Replays are decoded with PyAV, as a player would. The
SCORE and BEST boxes have smooth corners, on the card and on replay frames.
"""

from __future__ import annotations

import pytest
from PIL import ImageChops

import engine
from bot.presentation import images
from bot.presentation.i18n import translator
from tests.support.data import LONG_GAME
from tests.support.pictures import (
    check_tiles,
    decode_png,
    decode_video,
    psnr,
    rgb,
)


def figures_for(rows: list[list[int]], **changes) -> images.CardFigures:
    board = tuple(value for row in rows for value in row)
    values = {
        "size": len(rows),
        "board": board,
        "score": 12_345,
        "best": 67_890,
        "moves": 321,
        "name": "Anna",
        "play_seconds": 754.0,
    }
    return images.CardFigures(**(values | changes))


SIX_BY_SIX = [[2 ** (r * 6 + c) if r * 6 + c else 0 for c in range(6)] for r in range(6)]
BOARDS = {
    4: [[2, 4, 8, 16], [32, 64, 128, 256], [512, 1024, 2048, 4096], [0, 0, 8192, 65536]],
    5: [[0, 2, 4, 8, 16], [32, 64, 128, 256, 512], [1024, 2048, 0, 0, 0], [2] * 5, [4] * 5],
    6: SIX_BY_SIX,  # every tile from 2 to 2**35
}


@pytest.mark.parametrize("size", sorted(BOARDS))
@pytest.mark.parametrize("language", ["en", "nl", "de"])
def test_the_card_is_a_png_of_the_board_in_the_original_colours(size, language):
    figures = figures_for(BOARDS[size])
    data = images.card_png(translator(language), figures)
    assert len(data) <= 150_000
    image = decode_png(data)
    assert image.size == (images.WIDTH, images.HEIGHT)
    check_tiles(image, figures)


def test_numbers_are_drawn_on_the_tiles_in_dark_or_light_text():
    figures = figures_for(BOARDS[4])
    image = decode_png(images.card_png(translator("en"), figures))
    for index, value in enumerate(figures.board):
        if not value:
            continue
        box = images.cell_box(4, index)
        colours = {colour for _, colour in image.crop(box).getcolors(200 * 200)}
        text = rgb("#776e65") if value <= 4 else rgb("#f9f6f2")
        assert text in colours, f"no number on the {value} tile"


def test_the_card_speaks_the_players_language_and_shows_their_figures():
    figures = figures_for(BOARDS[4])
    english = decode_png(images.card_png(translator("en"), figures))
    german = decode_png(images.card_png(translator("de"), figures))
    # Same board, different words: the header and the footer differ, the board does not.
    board = (images.MARGIN, images.HEADER, images.WIDTH - images.MARGIN, images.HEADER + 600)
    assert ImageChops.difference(english.crop(board), german.crop(board)).getbbox() is None
    assert ImageChops.difference(english, german).getbbox() is not None
    other_score = decode_png(images.card_png(translator("en"), figures_for(BOARDS[4], score=9)))
    assert ImageChops.difference(english, other_score).getbbox() is not None


def test_a_long_name_and_huge_figures_still_fit():
    figures = figures_for(
        SIX_BY_SIX, name="Wolfgang Amadeus Mozart-Schikaneder " * 3, score=10**12, best=10**12
    )
    image = decode_png(images.card_png(translator("de"), figures))
    assert image.size == (images.WIDTH, images.HEIGHT)
    check_tiles(image, figures)


def test_a_short_replay_shows_every_state_then_holds_the_card():
    actions = "lurdlurdlurd"
    final_game = engine.replay(4, 5, actions)
    final = images.card_figures(final_game, 0, "Lena")
    t = translator("en")
    video = images.replay_mp4(t, 5, actions, final)
    frames, fps = decode_video(video)
    # 13 states (the opening and one per action), at the slowest rate, then 2 s of card.
    assert fps == 5
    assert len(frames) == 13 + 2 * 5
    assert all(frame.size == (images.WIDTH, images.HEIGHT) for frame in frames)
    for frame, game in zip(frames, engine.replay_steps(4, 5, actions), strict=False):
        check_tiles(frame, images.card_figures(game, 0, "Lena"), tolerance=8)
    card = decode_png(images.card_png(t, final))
    assert psnr(frames[-1], card) > 38
    check_tiles(frames[-1], final, tolerance=8)


@pytest.mark.slow  # encodes a 1,000-move replay
def test_a_1000_move_replay_is_a_20_second_time_lapse_ending_on_the_card():
    actions = LONG_GAME["actions"]
    final_game = engine.replay(4, LONG_GAME["seed"], actions)
    final = images.card_figures(final_game, 50_000, "Anna")
    t = translator("nl")
    video = images.replay_mp4(t, LONG_GAME["seed"], actions, final)
    assert len(video) <= 2_000_000
    frames, fps = decode_video(video)
    # 450 evenly sampled states at 25 fps, then the card for 2 s: 20 s in all.
    assert (len(frames), fps) == (450 + 50, 25)
    steps = list(engine.replay_steps(4, LONG_GAME["seed"], actions))
    check_tiles(frames[0], images.card_figures(steps[0], 0, "Anna"), tolerance=8)
    check_tiles(frames[449], final, tolerance=8)
    card = decode_png(images.card_png(t, final))
    assert psnr(frames[-1], card) > 38
    check_tiles(frames[-1], final, tolerance=8)


def name_area(figures: images.CardFigures):
    """The card's footer line with the player's name, as RGB pixels."""
    top = images.HEADER + images.BOARD + 10
    card = decode_png(images.card_png(translator("en"), figures))
    return card.convert("RGB").crop((0, top, images.WIDTH, top + 50))


@pytest.mark.parametrize(
    "name",
    ["مرحبا بكم", "שלום עולם", "漢字テスト", "안녕하세요", "ปิ่น", "अनुष्का", "Eve 😀", "👩‍👩‍👧‍👦🇳🇱"],
    ids=["arabic", "hebrew", "cjk", "korean", "thai", "devanagari", "emoji", "emoji-sequences"],
)
def test_a_name_in_any_script_is_drawn_not_boxed(name):
    figures = figures_for(BOARDS[4], name=name)
    # Characters no font has draw as boxes: the name must not look like that.
    boxes = figures_for(BOARDS[4], name="\U000f0000" * len(name))
    drawn = name_area(figures)
    assert ImageChops.difference(drawn, name_area(boxes)).getbbox() is not None
    assert ImageChops.difference(drawn, name_area(figures_for(BOARDS[4], name=""))).getbbox()
    if "😀" in name or "🇳🇱" in name:  # in colour, as the chat shows it
        assert any(max(pixel) - min(pixel) > 120 for _, pixel in drawn.getcolors(1 << 20))


def test_a_fancy_font_name_is_drawn_in_plain_letters():
    assert name_area(figures_for(BOARDS[4], name="𝕬𝖓𝖓𝖆")) == name_area(
        figures_for(BOARDS[4], name="Anna")
    )


@pytest.mark.parametrize("language", ["en", "de"])
def test_the_figure_boxes_have_smooth_corners(language):
    figures = images.card_figures(engine.new_game(4, 1, 0.0), 1234, "Anna")
    card = decode_png(images.card_png(translator(language), figures))
    for colours in _box_corners(card):
        # Besides the card's background and the box's own colour, the curve blends the two:
        # a jagged corner has no shade in between.
        between = colours - {images.BACKGROUND, images.BOARD_COLOUR}
        assert len(between) >= 3, sorted(colours)
        assert images.BOARD_COLOUR in colours and images.BACKGROUND in colours


def _box_corners(picture) -> list[set[tuple[int, int, int]]]:
    """The colours in the top-left and top-right 8×8 corner of the BEST box."""
    right = images.WIDTH - images.MARGIN
    width = min(images.BOX_MAX, max(110, round(images.font(30).getlength("1,234")) + 30))
    left, top = right - width, 22
    corners = [(left, top, left + 8, top + 8), (right - 7, top, right + 1, top + 8)]
    rgb = picture.convert("RGB")
    return [
        {rgb.getpixel((x, y)) for x in range(box[0], box[2]) for y in range(box[1], box[3])}
        for box in corners
    ]
