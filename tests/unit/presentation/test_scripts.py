"""Names in scripts Clear Sans lacks, as a card draws them: each character from a font that
has it (never a box), and shaped, as Telegram's apps show them."""

from __future__ import annotations

import pytest
from PIL import Image, ImageChops, ImageDraw, ImageFont

from bot.presentation import images, scripts

# A tall Thai consonant under a vowel and a tone mark; Devanagari conjuncts and a vowel sign
# written before the consonant it follows in the text.
NAMES = {"thai": "ปิ่น น้ำใจ", "devanagari": "अनुष्का शर्मा"}
SIZE = 30


def _drawn_by_hand(name: str, layout: ImageFont.Layout) -> Image.Image:
    """The name's runs drawn in their fonts with Pillow's `layout`, as draw_text places them."""
    image = Image.new("RGB", (640, 60), "white")
    draw = ImageDraw.Draw(image)
    x = 10.0
    baseline = ImageFont.truetype(str(images.FONT_FILE), SIZE).getmetrics()[0]
    for face, run in scripts._runs(images.FONT_FILE, name):
        font = ImageFont.truetype(str(face.path), SIZE, layout_engine=layout)
        draw.text((x, baseline), run, font=font, fill="black", anchor="ls")
        x += font.getlength(run)
    return image


def test_pictures_are_laid_out_by_raqm():
    # Pillow's wheels shape with Raqm once they find FriBiDi (Debian's libfribidi0).
    assert scripts.SHAPING


@pytest.mark.parametrize("name", NAMES.values(), ids=NAMES)
def test_every_character_of_the_name_comes_from_a_font_that_has_it(name):
    runs = scripts._runs(images.FONT_FILE, name)
    assert "".join(run for _, run in runs) == name
    for face, run in runs:
        # A character outside its font's map would be drawn as that font's box (.notdef).
        assert all(ord(char) in face.characters for char in run), (face.path, run)
    assert any(face.path != images.FONT_FILE for face, _ in runs)


@pytest.mark.parametrize("name", NAMES.values(), ids=NAMES)
def test_the_name_is_drawn_shaped_not_a_character_at_a_time(name):
    drawn = Image.new("RGB", (640, 60), "white")
    scripts.draw_text(drawn, (10, 0), images.FONT_FILE, name, SIZE, (0, 0, 0))
    shaped = _drawn_by_hand(name, ImageFont.Layout.RAQM)
    unshaped = _drawn_by_hand(name, ImageFont.Layout.BASIC)
    assert ImageChops.difference(drawn, shaped).getbbox() is None
    assert ImageChops.difference(shaped, unshaped).getbbox() is not None
