"""Text in any script on a picture: Clear Sans first, then fonts that have what it lacks.

Clear Sans has Latin, Greek and Cyrillic only, so a name in Arabic, Hebrew, Chinese or with
emoji drew as empty boxes. Each character is drawn in the first of these fonts whose
character map has it, found through fontconfig: Noto Color Emoji (`fonts-noto-color-emoji`),
DejaVu Sans Bold (Arabic, Hebrew and many symbols; `fonts-dejavu-core`) and Noto Sans CJK
Bold (`fonts-noto-cjk`), all Debian packages; then, for a character none of them has (Thai,
Devanagari, Ethiopic, …), the bold sans-serif font fontconfig finds for it, such as the Noto
Sans of its script (`fonts-noto-core`). A font that is not installed is skipped. A character
no font has is drawn as its compatibility form where that exists (the "fancy font" letters
some players use: 𝕬 as A), else as Clear Sans's box.

Runs of one font are laid out by Pillow's Raqm engine (HarfBuzz, with FriBiDi, which Pillow's
wheels load from Debian's `libfribidi0`), so right-to-left scripts come out in reading order,
Arabic letters joined, and the clusters of Indic and Thai scripts shaped: a Devanagari
conjunct drawn as one glyph, a Thai vowel mark above its consonant. Without FriBiDi Pillow
falls back to its basic layout, which draws every character as it comes: readable in Latin,
Greek, Cyrillic and CJK, but wrong in those scripts; `SHAPING` says which one is in use.
"""

from __future__ import annotations

import shutil
import subprocess
import unicodedata
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from fontTools.ttLib import TTFont
from PIL import Image, ImageDraw, ImageFont, features

FALLBACK_FAMILIES = ("Noto Color Emoji", "DejaVu Sans:bold", "Noto Sans CJK SC:bold")
# Whether runs are shaped (Raqm), or laid out a character at a time (Pillow's basic layout).
SHAPING = bool(features.check("raqm"))
# Colour emoji fonts hold bitmaps at this size only: drawn there, then scaled.
_BITMAP_SIZE = 109
Colour = tuple[int, int, int]


@dataclass(frozen=True, slots=True)
class _Face:
    path: Path
    index: int
    characters: frozenset[int]
    bitmap: bool  # colour emoji: drawn at _BITMAP_SIZE and scaled


def _installed(family: str) -> Path | None:
    """The file fontconfig has for `family`, or None when it would substitute another."""
    if shutil.which("fc-match") is None:
        return None
    found = subprocess.run(
        ["fc-match", "-f", "%{file}\n%{family}", family],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.split("\n")
    wanted = family.split(":")[0]
    if len(found) < 2 or wanted not in found[1].split(","):
        return None
    return Path(found[0])


@cache
def _face(path: Path) -> _Face:
    """A font file's face, read once however many characters or families lead to it."""
    with TTFont(path, fontNumber=0, lazy=True) as font:
        characters = frozenset(font.getBestCmap())
        bitmap = "CBDT" in font or "sbix" in font
    return _Face(path, 0, characters, bitmap)


def _primary(path: Path) -> _Face:
    return _face(path)


@cache
def _covering(code: int) -> _Face | None:
    """The bold sans-serif font fontconfig has for the character, if its map really has it
    (fontconfig answers with its nearest font even when none has the character)."""
    if shutil.which("fc-match") is None:
        return None
    found = subprocess.run(
        ["fc-match", "-f", "%{file}", f"sans-serif:bold:charset={code:x}"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    if not found:
        return None
    face = _face(Path(found))
    return face if code in face.characters else None


@cache
def _fallbacks() -> tuple[_Face, ...]:
    """Every fallback font that is installed. Read on the first character the primary font
    lacks: a CJK font's character map takes a second or two to read."""
    return tuple(_face(path) for family in FALLBACK_FAMILIES if (path := _installed(family)))


def _faces(primary: Path, text: str) -> tuple[_Face, ...]:
    """The fonts `text` needs looked at: the primary one, the fallbacks if it lacks any, and
    the fonts fontconfig finds for what all of those lack."""
    first = _primary(primary)
    if all(ord(char) in first.characters for char in text):
        return (first,)
    faces = [first, *_fallbacks()]
    for char in text:
        # A letter that is only a styled form of another (𝕬, ℌ: "<font>" in Unicode's
        # decomposition) is drawn as that letter, not in a mathematician's font.
        styled = unicodedata.decomposition(char).startswith("<font>")
        if not styled and not any(ord(char) in face.characters for face in faces):
            face = _covering(ord(char))
            if face is not None and face not in faces:
                faces.append(face)
    return tuple(faces)


@cache
def _font(face: _Face, size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(
        str(face.path), _BITMAP_SIZE if face.bitmap else size, index=face.index
    )


def _runs(primary: Path, text: str) -> list[tuple[_Face, str]]:
    """`text` cut where the font that has its characters changes.

    Joiners, variation selectors and combining marks stay with the character before them,
    so an emoji sequence or an accented letter is drawn whole by one font.
    """
    runs: list[tuple[_Face, str]] = []
    everything = _faces(primary, text)
    for char in _plain(everything, text):
        joins = unicodedata.category(char) in {"Mn", "Me", "Cf"} or "\ufe00" <= char <= "\ufe0f"
        if runs and joins:
            runs[-1] = (runs[-1][0], runs[-1][1] + char)
            continue
        face = next((f for f in everything if ord(char) in f.characters), everything[0])
        if runs and runs[-1][0] == face:
            runs[-1] = (face, runs[-1][1] + char)
        else:
            runs.append((face, char))
    return runs


def _plain(everything: tuple[_Face, ...], text: str) -> str:
    """`text` with each character no font has replaced by its compatibility form."""

    def has(char: str) -> bool:
        return any(ord(char) in face.characters for face in everything)

    return "".join(char if has(char) else unicodedata.normalize("NFKC", char) for char in text)


def _width(face: _Face, run: str, size: int) -> float:
    length = _font(face, size).getlength(run)
    return length * size / _BITMAP_SIZE if face.bitmap else length


def text_width(primary: Path, text: str, size: int) -> float:
    return sum(_width(face, run, size) for face, run in _runs(primary, text))


def draw_text(
    image: Image.Image, xy: tuple[float, float], primary: Path, text: str, size: int, fill: Colour
) -> None:
    """Draw `text` with its top left at `xy`, each run in the font that has it."""
    x, top = xy
    baseline = top + _font(_primary(primary), size).getmetrics()[0]
    draw = ImageDraw.Draw(image)
    for face, run in _runs(primary, text):
        font = _font(face, size)
        if face.bitmap:
            _paste_bitmap(image, (x, baseline), font, run, size)
        else:
            draw.text((x, baseline), run, font=font, fill=fill, anchor="ls")
        x += _width(face, run, size)


def _paste_bitmap(
    image: Image.Image, at: tuple[float, float], font: ImageFont.FreeTypeFont, run: str, size: int
) -> None:
    """Colour emoji: drawn at the font's one size, scaled to `size`, pasted on the baseline."""
    left, top, right, bottom = font.getbbox(run, anchor="ls")
    drawn = Image.new("RGBA", (max(1, right - left), max(1, bottom - top)))
    ImageDraw.Draw(drawn).text((-left, -top), run, font=font, anchor="ls", embedded_color=True)
    scale = size / _BITMAP_SIZE
    scaled = drawn.resize(
        (max(1, round(drawn.width * scale)), max(1, round(drawn.height * scale))),
        Image.Resampling.LANCZOS,
    )
    x, baseline = at
    image.paste(scaled, (round(x + left * scale), round(baseline + top * scale)), scaled)
