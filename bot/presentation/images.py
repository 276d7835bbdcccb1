"""Pictures of games: a PNG card of the board and an MP4 time-lapse of the whole game.

The card is drawn in the look of the original 2048 (its colours, rounded tiles, Clear Sans
Bold, which ships in `fonts/` under the Apache License 2.0); a name in a script Clear Sans
lacks is drawn in the system's fonts for it (bot/presentation/scripts.py). A replay is the
card's layout once per state of the game, so its last frame is the card itself. Everything here is a
pure function from plain values to bytes, cheap enough to run in a worker process: tiles are
drawn once per value and size and then pasted, and a frame costs about a millisecond.
"""

from __future__ import annotations

import hashlib
import io
import math
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import cache
from pathlib import Path

import av
from PIL import Image, ImageDraw, ImageFont

import engine
from bot.presentation import reviews, scripts
from bot.presentation.i18n import Translator
from bot.presentation.render import size_name, tile_label
from engine.board import Board
from engine.solver import MoveCost

FONT_FILE = Path(__file__).parent / "fonts" / "ClearSans-Bold.ttf"

WIDTH = 640
MARGIN = 20
BOARD = WIDTH - 2 * MARGIN  # the board is square
HEADER = 150  # title, board size and the two figure boxes above the board
FOOTER = 110  # player, moves and time below the board
BOX_MAX = 200  # the widest a figure box gets; a longer number is set smaller
HEIGHT = HEADER + BOARD + FOOTER

BACKGROUND = (0xFA, 0xF8, 0xEF)
BOARD_COLOUR = (0xBB, 0xAD, 0xA0)
SUPERSAMPLE = 4  # how much larger smooth shapes are drawn before being scaled down
EMPTY_COLOUR = (0xCD, 0xC1, 0xB4)
DARK_TEXT = (0x77, 0x6E, 0x65)
LIGHT_TEXT = (0xF9, 0xF6, 0xF2)
BOX_LABEL = (0xEE, 0xE4, 0xDA)
# The original game's tile colours; every tile past 2048 is the dark "super" tile.
TILE_COLOURS = {
    2: (0xEE, 0xE4, 0xDA),
    4: (0xED, 0xE0, 0xC8),
    8: (0xF2, 0xB1, 0x79),
    16: (0xF5, 0x95, 0x63),
    32: (0xF6, 0x7C, 0x5F),
    64: (0xF6, 0x5E, 0x3B),
    128: (0xED, 0xCF, 0x72),
    256: (0xED, 0xCC, 0x61),
    512: (0xED, 0xC8, 0x50),
    1024: (0xED, 0xC5, 0x3F),
    2048: (0xED, 0xC2, 0x2E),
}
SUPER_COLOUR = (0x3C, 0x3A, 0x32)

# The replay: at most this many game states, then the card held for a while. A long game
# is sampled evenly (first and last state always shown), so no replay runs past about 20 s.
MAX_STATES = 450
MAX_FPS = 25
MIN_FPS = 5
TARGET_SECONDS = 16
HOLD_SECONDS = 2


def tile_colour(value: int) -> tuple[int, int, int]:
    if value == 0:
        return EMPTY_COLOUR
    return TILE_COLOURS.get(value, SUPER_COLOUR)


@dataclass(frozen=True, slots=True)
class CardFigures:
    """What a card shows, as plain values: a worker process gets these, not a game."""

    size: int
    board: Board
    score: int
    best: int
    moves: int
    name: str
    play_seconds: float | None = None  # None in a replay's frames: replays have no clock
    won: bool = False
    over: bool = False


def card_figures(game: engine.Game, best: int, name: str) -> CardFigures:
    return CardFigures(
        size=game.size,
        board=game.board,
        score=game.score,
        best=max(best, game.score),
        moves=game.moves,
        name=name,
        play_seconds=game.play_seconds,
        won=game.ever_won,
        over=game.over,
    )


@cache
def font(size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(FONT_FILE), size)


def _fitting_font(text: str, size: int, width: float) -> ImageFont.FreeTypeFont:
    """The font at `size`, or smaller until `text` fits `width` pixels."""
    while size > 8 and font(size).getlength(text) > width:
        size -= 1
    return font(size)


def board_geometry(size: int) -> tuple[int, int]:
    """(gap, cell) in pixels: gaps take about a seventh of the board, as in the original.

    Both are even, like every cell's corner, so a tile covers whole 2×2 blocks of the
    replay's half-resolution colour planes and can be pasted there as it is.
    """
    gap = round(BOARD * 0.07 / (size + 1)) * 2
    cell = (BOARD - gap * (size + 1)) // size // 2 * 2
    return gap, cell


def cell_box(size: int, index: int) -> tuple[int, int, int, int]:
    """Where cell `index` (row-major) is drawn on the card: left, top, right, bottom."""
    gap, cell = board_geometry(size)
    used = gap * (size + 1) + cell * size
    offset = (BOARD - used) // 4 * 2  # centre the grid when the division left a few pixels
    row, column = divmod(index, size)
    left = MARGIN + offset + gap + column * (cell + gap)
    top = HEADER + offset + gap + row * (cell + gap)
    return left, top, left + cell, top + cell


@cache
def _tile(value: int, cell: int) -> Image.Image:
    """One tile with its number, drawn once per value and cell size, then only pasted."""
    image = Image.new("RGB", (cell, cell), BOARD_COLOUR)
    draw = ImageDraw.Draw(image)
    draw.rounded_rectangle(
        (0, 0, cell - 1, cell - 1), radius=max(3, cell // 18), fill=tile_colour(value)
    )
    if value:
        label = tile_label(value)
        share = {1: 0.52, 2: 0.50, 3: 0.42, 4: 0.34}.get(len(label), 0.28)
        glyphs = _fitting_font(label, round(cell * share), cell * 0.86)
        colour = DARK_TEXT if value <= 4 else LIGHT_TEXT
        draw.text((cell / 2, cell / 2), label, font=glyphs, fill=colour, anchor="mm")
    return image


@cache
def _frame_base(t: Translator, size: int) -> Image.Image:
    """The card without figures or tiles: background, title, board size and empty cells."""
    image = Image.new("RGB", (WIDTH, HEIGHT), BACKGROUND)
    draw = ImageDraw.Draw(image)
    draw.rounded_rectangle(
        (MARGIN, HEADER, MARGIN + BOARD - 1, HEADER + BOARD - 1), radius=10, fill=BOARD_COLOUR
    )
    _, cell = board_geometry(size)
    for index in range(size * size):
        image.paste(_tile(0, cell), cell_box(size, index)[:2])
    draw.text((MARGIN, 18), "2048", font=font(72), fill=DARK_TEXT)
    draw.text((MARGIN + 2, 110), size_name(t, size), font=font(22), fill=DARK_TEXT)
    return image


Origin = tuple[int, int]


@cache
def _rounded_mask(width: int, height: int, radius: int) -> Image.Image:
    """A rounded rectangle's shape with smooth corners: drawn SUPERSAMPLE times larger and
    scaled down, so its corners blend into what is around them (Pillow draws shapes without
    anti-aliasing). Kept per size: a replay draws the same boxes on every frame."""
    mask = Image.new("L", (width * SUPERSAMPLE, height * SUPERSAMPLE), 0)
    ImageDraw.Draw(mask).rounded_rectangle(
        (0, 0, mask.width - 1, mask.height - 1), radius=radius * SUPERSAMPLE, fill=255
    )
    return mask.resize((width, height), Image.Resampling.BOX)


def smooth_rounded_box(
    image: Image.Image, box: tuple[int, int, int, int], radius: int, fill: tuple[int, int, int]
) -> None:
    left, top, right, bottom = box
    mask = _rounded_mask(right - left + 1, bottom - top + 1, radius)
    image.paste(fill, (left, top, right + 1, bottom + 1), mask)


def figure_box(image: Image.Image, origin: Origin, right: int, label: str, value: str) -> int:
    """A figure box (label above, number below) ending at `right`; returns its left edge.

    `origin` is where the image drawn on sits on the card: a replay frame redraws only
    the strips that change, each its own small image.
    """
    x, y = origin
    width = min(BOX_MAX, max(110, round(font(30).getlength(value)) + 30))
    left = right - width
    smooth_rounded_box(image, (left - x, 22 - y, right - x, 92 - y), 6, BOARD_COLOUR)
    draw = ImageDraw.Draw(image)
    middle = (left + right) / 2 - x
    label_font = _fitting_font(label, 16, width - 12)
    draw.text((middle, 40 - y), label, font=label_font, fill=BOX_LABEL, anchor="mm")
    value_font = _fitting_font(value, 30, width - 16)
    draw.text((middle, 70 - y), value, font=value_font, fill=LIGHT_TEXT, anchor="mm")
    return left


def _draw_boxes(image: Image.Image, origin: Origin, t: Translator, figures: CardFigures) -> None:
    best_left = figure_box(image, origin, WIDTH - MARGIN, t._("BEST"), t.number(figures.best))
    figure_box(image, origin, best_left - 8, t._("SCORE"), t.number(figures.score))


def _draw_footer(image: Image.Image, origin: Origin, t: Translator, figures: CardFigures) -> None:
    x, y = origin
    draw = ImageDraw.Draw(image)
    bottom = HEADER + BOARD
    details = [t.ngettext("{n} move", "{n} moves", figures.moves)]
    if figures.play_seconds is not None:
        details.append(t.duration(figures.play_seconds))
    if figures.won:
        details.append(t._("2048 reached"))
    elif figures.over:
        details.append(t._("game over"))
    name = fitting_name(figures.name)
    scripts.draw_text(image, (MARGIN + 2 - x, bottom + 22 - y), FONT_FILE, name, 30, DARK_TEXT)
    line = " · ".join(details)
    line_font = _fitting_font(line, 24, BOARD)
    draw.text((MARGIN + 2 - x, bottom + 64 - y), line, font=line_font, fill=DARK_TEXT)


# The parts of a card that change besides the tiles, and what draws each.
_CHANGING = (
    ((WIDTH - MARGIN - 2 * BOX_MAX - 10, 20, WIDTH, 96), _draw_boxes),
    ((0, HEADER + BOARD, WIDTH, HEIGHT), _draw_footer),
)


def card_image(t: Translator, figures: CardFigures) -> Image.Image:
    image = _frame_base(t, figures.size).copy()
    _, cell = board_geometry(figures.size)
    for index, value in enumerate(figures.board):
        if value:
            image.paste(_tile(value, cell), cell_box(figures.size, index)[:2])
    for _, drawer in _CHANGING:
        drawer(image, (0, 0), t, figures)
    return image


def fitting_name(name: str) -> str:
    """The player's name, cut with an ellipsis where it would run off the card."""
    if scripts.text_width(FONT_FILE, name, 30) <= BOARD:
        return name
    while name and scripts.text_width(FONT_FILE, name + "…", 30) > BOARD:
        name = name[:-1]
    return name + "…"


def card_png(t: Translator, figures: CardFigures) -> bytes:
    """The card as a PNG: a few dozen kilobytes, since it is flat colour and text."""
    buffer = io.BytesIO()
    card_image(t, figures).save(buffer, "PNG", compress_level=6)
    return buffer.getvalue()


@dataclass(frozen=True, slots=True)
class ReplayPlan:
    """Which states a replay shows and how fast: its frame count follows from these."""

    states: tuple[int, ...]  # indices into the game's states (0 = the opening)
    fps: int
    hold_frames: int  # the final card, shown this many frames

    @property
    def frames(self) -> int:
        return len(self.states) + self.hold_frames


def replay_plan(actions: int) -> ReplayPlan:
    """Every state of a short game; an even sample of at most MAX_STATES of a long one."""
    total = actions + 1
    if total <= MAX_STATES:
        states = tuple(range(total))
    else:
        states = tuple(round(i * (total - 1) / (MAX_STATES - 1)) for i in range(MAX_STATES))
    fps = min(MAX_FPS, max(MIN_FPS, math.ceil(len(states) / TARGET_SECONDS)))
    return ReplayPlan(states, fps, HOLD_SECONDS * fps)


def replay_mp4(t: Translator, seed: int, actions: str, final: CardFigures) -> bytes:
    """The whole game as an H.264 MP4 time-lapse that ends on the card (`final`).

    Frames between the opening and the end show the board, score and moves of each state;
    the game is rebuilt from its seed and actions, so nothing but the log is needed.
    `final.best` is the best before this game: each frame shows the best as of that frame.
    """
    plan = replay_plan(len(actions))
    wanted = set(plan.states)
    buffer = io.BytesIO()
    with av.open(buffer, "w", format="mp4") as container:
        stream = container.add_stream("libx264", rate=Fraction(plan.fps))
        stream.width, stream.height = WIDTH, HEIGHT
        stream.pix_fmt = "yuv420p"
        stream.options = {
            "preset": "veryfast",
            "crf": "23",
            "tune": "animation",
            # Tiles jump by whole cells from frame to frame: the cheapest motion search
            # (diamond, one sub-pixel pass) finds them, and B-frames save no bytes here. A
            # third less encoding time for a tenth more bytes (benchmarks.cards).
            "x264-params": "me=dia:subme=1:bframes=0",
        }
        stream.codec_context.thread_count = 1
        shown = 0

        def encode(frame: av.VideoFrame) -> None:
            nonlocal shown
            frame.pts, frame.time_base = shown, Fraction(1, plan.fps)
            container.mux(stream.encode(frame))
            shown += 1

        for index, game in enumerate(engine.replay_steps(final.size, seed, actions)):
            if index in wanted:
                encode(_composed_frame(t, _step_figures(game, final)))
        card = _planes(card_image(t, replace(final, best=max(final.best, final.score))))
        for _ in range(plan.hold_frames):
            encode(_video_frame(card))
        container.mux(stream.encode(None))
    return buffer.getvalue()


Planes = tuple[Image.Image, Image.Image, Image.Image]
# RGB to Y, Cb, Cr as H.264 players read them: ITU-R BT.601 in the 16-235/16-240 range.
_BT601_LIMITED = (
    *(65.481 / 255, 128.553 / 255, 24.966 / 255, 16.0),
    *(-37.797 / 255, -74.203 / 255, 112.0 / 255, 128.0),
    *(112.0 / 255, -93.786 / 255, -18.214 / 255, 128.0),
)


def _planes(image: Image.Image) -> Planes:
    """An RGB image as the encoder's Y, U and V planes (BT.601, limited range; U, V halved).

    One matrix conversion gives the values FFmpeg's own converter gives, at a fraction of
    its cost on small images.
    """
    y, u, v = image.convert("RGB", _BT601_LIMITED).split()
    return y, u.reduce(2), v.reduce(2)


def _video_frame(planes: Planes) -> av.VideoFrame:
    frame = av.VideoFrame(WIDTH, HEIGHT, "yuv420p")
    for plane, image in zip(frame.planes, planes, strict=True):
        plane.update(image.tobytes())
    return frame


def _paste(target: Planes, source: Planes, left: int, top: int) -> None:
    target[0].paste(source[0], (left, top))
    target[1].paste(source[1], (left // 2, top // 2))
    target[2].paste(source[2], (left // 2, top // 2))


@cache
def _base_planes(t: Translator, size: int) -> Planes:
    return _planes(_frame_base(t, size))


@cache
def _tile_planes(value: int, cell: int) -> Planes:
    return _planes(_tile(value, cell))


def _composed_frame(t: Translator, figures: CardFigures) -> av.VideoFrame:
    """A replay frame put together from ready-converted pieces.

    Converting a whole RGB frame to YUV costs more than drawing it, so only the changing
    strips are converted; tiles and the empty card are converted once.
    """
    y, u, v = _base_planes(t, figures.size)
    planes = (y.copy(), u.copy(), v.copy())
    _, cell = board_geometry(figures.size)
    for index, value in enumerate(figures.board):
        if value:
            left, top, _, _ = cell_box(figures.size, index)
            _paste(planes, _tile_planes(value, cell), left, top)
    base = _frame_base(t, figures.size)
    for box, drawer in _CHANGING:
        strip = base.crop(box)
        drawer(strip, box[:2], t, figures)
        _paste(planes, _planes(strip), box[0], box[1])
    return _video_frame(planes)


def _step_figures(game: engine.Game, final: CardFigures) -> CardFigures:
    return CardFigures(
        size=game.size,
        board=game.board,
        score=game.score,
        best=max(final.best, game.score),
        moves=game.moves,
        name=final.name,
        won=game.ever_won,
        over=game.over,
    )


# A review's picture: the card's look, with one panel per costly move (its position drawn
# small beside what was played, what was better and what it cost), at most three.
REVIEW_HEADER = 130
REVIEW_PANEL = 230
REVIEW_BOARD = 210
REVIEW_FOOTER = 70
COST_COLOUR = TILE_COLOURS[64]


def _small_board(image: Image.Image, left: int, top: int, size: int, board: Board) -> None:
    """A position drawn REVIEW_BOARD pixels wide, with the card's tiles."""
    gap = max(4, round(REVIEW_BOARD * 0.07 / (size + 1)))
    cell = (REVIEW_BOARD - gap * (size + 1)) // size
    edge = gap * (size + 1) + cell * size
    smooth_rounded_box(image, (left, top, left + edge - 1, top + edge - 1), 6, BOARD_COLOUR)
    for index, value in enumerate(board):
        row, column = divmod(index, size)
        x = left + gap + column * (cell + gap)
        y = top + gap + row * (cell + gap)
        image.paste(_tile(value, cell), (x, y))


def _review_panel(image: Image.Image, t: Translator, top: int, size: int, cost: MoveCost) -> None:
    _small_board(image, MARGIN, top, size, cost.board)
    draw = ImageDraw.Draw(image)
    left = MARGIN + REVIEW_BOARD + 24
    width = WIDTH - MARGIN - left
    lines = (
        (reviews.move_title(t, cost.number), 34, top + 6),
        (reviews.your_move(t, cost.played), 24, top + 58),
        (reviews.better_move(t, cost.best), 24, top + 96),
    )
    for text, points, y in lines:
        draw.text((left, y), text, font=_fitting_font(text, points, width), fill=DARK_TEXT)
    label = reviews.cost(t, size, cost.loss)
    smooth_rounded_box(image, (left, top + 140, WIDTH - MARGIN, top + 196), 6, COST_COLOUR)
    draw.text(
        (left + 14, top + 168),
        label,
        font=_fitting_font(label, 26, width - 28),
        fill=LIGHT_TEXT,
        anchor="lm",
    )


def review_png(t: Translator, size: int, name: str, costs: tuple[MoveCost, ...]) -> bytes:
    """The costliest moves of a review as one PNG in the card's style, in the order given."""
    height = REVIEW_HEADER + REVIEW_PANEL * len(costs) + REVIEW_FOOTER
    image = Image.new("RGB", (WIDTH, height), BACKGROUND)
    draw = ImageDraw.Draw(image)
    draw.text((MARGIN, 14), "2048", font=font(64), fill=DARK_TEXT)
    heading = f"{reviews.title(t)} · {size_name(t, size)}"
    draw.text((MARGIN + 2, 92), heading, font=_fitting_font(heading, 24, BOARD), fill=DARK_TEXT)
    for place, cost in enumerate(costs):
        _review_panel(image, t, REVIEW_HEADER + place * REVIEW_PANEL, size, cost)
    footer = REVIEW_HEADER + REVIEW_PANEL * len(costs) + 10
    scripts.draw_text(image, (MARGIN + 2, footer), FONT_FILE, fitting_name(name), 30, DARK_TEXT)
    buffer = io.BytesIO()
    image.save(buffer, "PNG", compress_level=6)
    return buffer.getvalue()


# Bump when a picture would come out differently for the same figures: the file ids of
# pictures already sent are looked up by these keys, and must not show the old drawing.
DRAWING_VERSION = 2


def card_key(t: Translator, figures: CardFigures) -> str:
    """What a card shows, as a short key: equal keys, equal pictures."""
    return picture_key("card", t.language, figures)


def replay_key(t: Translator, seed: int, actions: str, final: CardFigures) -> str:
    return picture_key("replay", t.language, seed, actions, final)


def review_key(t: Translator, size: int, name: str, costs: tuple[MoveCost, ...]) -> str:
    return picture_key("review", t.language, size, name, costs)


def picture_key(*parts: object) -> str:
    digest = hashlib.sha256(repr((DRAWING_VERSION, *parts)).encode()).hexdigest()
    return f"{parts[0]}:{digest[:40]}"
