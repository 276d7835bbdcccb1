"""The /stats picture: the player's latest scores as a small bar chart, in the card's look.

It shares the card's width, colours, Clear Sans and figure boxes (images.py), so the two read
as one family in a chat: "2048" and what is shown above, two figure boxes on the right, the
chart where the card has its board, the player's name below. Each bar is a game, oldest on
the left, as tall as its score and in the colour of its highest tile. A pure function from
plain values to PNG bytes, drawn in the picture worker pool like the card.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

from PIL import Image, ImageDraw

from bot.outcomes import PlayerStats
from bot.presentation import scripts
from bot.presentation.i18n import Translator
from bot.presentation.images import (
    BACKGROUND,
    BOARD,
    BOARD_COLOUR,
    DARK_TEXT,
    FONT_FILE,
    HEADER,
    LIGHT_TEXT,
    MARGIN,
    WIDTH,
    figure_box,
    fitting_name,
    font,
    picture_key,
    smooth_rounded_box,
    tile_colour,
)

CHART = 260  # the chart's height, where the card has its board
FOOTER = 90
HEIGHT = HEADER + CHART + FOOTER
PADDING = 16  # inside the chart, around the bars
BAR_GAP = 4
LABEL_ROOM = 28  # above the bars: the best score's line and label
STUB = 3  # the height of a bar whose game scored nothing, so that it still shows


@dataclass(frozen=True, slots=True)
class ChartFigures:
    """What the picture shows, as plain values: a worker process gets these."""

    name: str
    scores: tuple[tuple[int, int], ...]  # each charted game's score and highest tile, oldest first
    games: int  # every game the player has played
    best: int  # their best score on any board size


def chart_figures(stats: PlayerStats, name: str) -> ChartFigures:
    return ChartFigures(
        name=name,
        scores=tuple((game.score, game.highest) for game in stats.recent),
        games=stats.games_played,
        best=stats.best_score,
    )


def bar_boxes(scores: tuple[tuple[int, int], ...]) -> list[tuple[int, int, int, int]]:
    """Where each game's bar is drawn: left, top, right, bottom, in the order of `scores`.

    Every bar is as wide as 30 would be, so a new player's few games do not fill the chart
    with giant bars; the tallest bar is the highest score shown.
    """
    slots = max(len(scores), 30)
    inner = BOARD - 2 * PADDING
    width = (inner - BAR_GAP * (slots - 1)) // slots
    bottom = HEADER + CHART - PADDING
    room = CHART - 2 * PADDING - LABEL_ROOM
    top_score = max((score for score, _ in scores), default=0) or 1
    boxes = []
    for index, (score, _) in enumerate(scores):
        left = MARGIN + PADDING + index * (width + BAR_GAP)
        height = max(STUB, round(room * score / top_score))
        boxes.append((left, bottom - height, left + width - 1, bottom))
    return boxes


def chart_image(t: Translator, figures: ChartFigures) -> Image.Image:
    image = Image.new("RGB", (WIDTH, HEIGHT), BACKGROUND)
    draw = ImageDraw.Draw(image)
    draw.text((MARGIN, 18), "2048", font=font(72), fill=DARK_TEXT)
    shown = len(figures.scores)
    # "Score of 1 game" reads like a database field: one game gets words of its own.
    title = (
        t._("Your last game's score")
        if shown == 1
        else t.ngettext("Score of {n} game", "Scores of your last {n} games", shown)
    )
    draw.text((MARGIN + 2, 110), title, font=font(22), fill=DARK_TEXT)
    best_left = figure_box(image, (0, 0), WIDTH - MARGIN, t._("BEST"), t.number(figures.best))
    figure_box(image, (0, 0), best_left - 8, t._("GAMES"), t.number(figures.games))

    smooth_rounded_box(
        image, (MARGIN, HEADER, MARGIN + BOARD - 1, HEADER + CHART - 1), 10, BOARD_COLOUR
    )
    top_score = max((score for score, _ in figures.scores), default=0)
    if top_score:
        line = HEADER + PADDING + LABEL_ROOM
        draw.line(
            (MARGIN + PADDING, line, MARGIN + BOARD - PADDING, line), fill=LIGHT_TEXT, width=1
        )
        draw.text(
            (MARGIN + PADDING, line - 6),
            t.number(top_score),
            font=font(18),
            fill=LIGHT_TEXT,
            anchor="ls",
        )
    for box, (_, highest) in zip(bar_boxes(figures.scores), figures.scores, strict=True):
        draw.rounded_rectangle(box, radius=3, fill=tile_colour(highest))

    name = fitting_name(figures.name)
    scripts.draw_text(image, (MARGIN + 2, HEADER + CHART + 22), FONT_FILE, name, 30, DARK_TEXT)
    return image


def chart_png(t: Translator, figures: ChartFigures) -> bytes:
    """The picture as a PNG: flat colour and text, a few dozen kilobytes."""
    buffer = io.BytesIO()
    chart_image(t, figures).save(buffer, "PNG", compress_level=6)
    return buffer.getvalue()


def chart_key(t: Translator, figures: ChartFigures) -> str:
    """What the picture shows, as a short key: equal keys, equal pictures."""
    return picture_key("chart", t.language, figures)
