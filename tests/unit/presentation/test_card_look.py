"""The card's SCORE and BEST boxes have smooth corners, on the card and on replay frames."""

from __future__ import annotations

import pytest

import engine
from bot.presentation import images
from bot.presentation.i18n import translator
from tests.support.pictures import decode_png


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
