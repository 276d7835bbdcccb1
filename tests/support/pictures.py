"""Reading the bot's pictures back: PNG cards and MP4 replays, decoded and sampled.

The expected colours are the original 2048's, written out here rather than read from the
renderer, so a wrong palette fails.
"""

from __future__ import annotations

import io
import math

import av
from PIL import Image, ImageChops, ImageStat

from bot.presentation import images


def rgb(code: str) -> tuple[int, int, int]:
    return tuple(int(code[i : i + 2], 16) for i in (1, 3, 5))


EMPTY = rgb("#cdc1b4")
PALETTE = {
    2: "#eee4da",
    4: "#ede0c8",
    8: "#f2b179",
    16: "#f59563",
    32: "#f67c5f",
    64: "#f65e3b",
    128: "#edcf72",
    256: "#edcc61",
    512: "#edc850",
    1024: "#edc53f",
    2048: "#edc22e",
}
SUPER = rgb("#3c3a32")  # every tile past 2048


def expected_colour(value: int) -> tuple[int, int, int]:
    if value == 0:
        return EMPTY
    return rgb(PALETTE[value]) if value in PALETTE else SUPER


def decode_png(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    assert image.format == "PNG"
    return image.convert("RGB")


def check_tiles(image: Image.Image, figures: images.CardFigures, tolerance: int = 0) -> None:
    """Every cell shows its tile's colour: above the number, and as the cell's main colour."""
    for index, value in enumerate(figures.board):
        left, top, right, bottom = images.cell_box(figures.size, index)
        want = expected_colour(value)
        centre_x, cell = (left + right) // 2, right - left
        # The centre column, an eighth of the way down: the tile, clear of the number.
        got = image.getpixel((centre_x, top + cell // 8))
        assert all(abs(g - w) <= tolerance for g, w in zip(got, want, strict=True)), (
            f"cell {index} ({value}): {got} is not {want}"
        )
        if tolerance == 0:
            cell_image = image.crop((left, top, right, bottom))
            main = max(cell_image.getcolors(cell * cell), key=lambda pair: pair[0])[1]
            assert main == want, f"cell {index} ({value}) is mostly {main}, not {want}"


def decode_video(data: bytes) -> tuple[list[Image.Image], float]:
    with av.open(io.BytesIO(data)) as container:
        stream = container.streams.video[0]
        frames = [frame.to_image() for frame in container.decode(stream)]
        return frames, float(stream.average_rate)


def psnr(a: Image.Image, b: Image.Image) -> float:
    """Peak signal-to-noise ratio in dB.

    A video cannot hold the card exactly: 4:2:0 video keeps colour at half resolution, which
    alone brings a card to about 41 dB. Above 38 dB the difference cannot be seen.
    """
    squares = [rms**2 for rms in ImageStat.Stat(ImageChops.difference(a, b)).rms]
    return 10 * math.log10(255**2 / max(sum(squares) / 3, 1e-9))
