"""Names people chose (players, group titles), made safe to put into the bot's own texts.

A name is someone else's text inside ours: a right-to-left override in it would flip the rest
of a leaderboard line, markup would be read as HTML, and a name made of invisible characters
would leave a gap where a player should be. So every name goes through `safe_name`.
"""

from __future__ import annotations

import unicodedata
from html import escape

from bot.presentation.i18n import Translator

NAME_CAP = 32
# Unicode's isolates: the name is laid out on its own, whatever its direction, and nothing in
# it reaches the text around it (FIRST STRONG ISOLATE ... POP DIRECTIONAL ISOLATE).
_ISOLATE, _POP_ISOLATE = "\u2068", "\u2069"
# Format characters that steer text direction: marks, embeddings, overrides and isolates.
_BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
# Letters and symbols that draw nothing: Hangul fillers and the blank Braille pattern.
_BLANK_GLYPHS = frozenset("\u115f\u1160\u3164\uffa0\u2800")
_INVISIBLE_CATEGORIES = frozenset({"Zs", "Zl", "Zp", "Cc", "Cf", "Cn", "Co", "Cs", "Mn", "Me"})


def _visible(char: str) -> bool:
    return char not in _BLANK_GLYPHS and unicodedata.category(char) not in _INVISIBLE_CATEGORIES


def safe_name(name: str, fallback: str, *, html: bool = True) -> str:
    """`name` as it may appear in a message: isolated, capped, never blank, escaped for HTML.

    Control characters and direction controls are dropped, runs of white space become one
    space, and a name with nothing visible left becomes `fallback` (a text of the bot's own).
    `html=False` is for plain text, such as the toast that answers a tap.
    """
    quote = escape if html else str
    kept = " ".join(
        "".join(
            char
            for char in name
            if char not in _BIDI_CONTROLS and (unicodedata.category(char) != "Cc" or char.isspace())
        ).split()
    )
    if not any(_visible(char) for char in kept):
        return quote(fallback)
    if len(kept) > NAME_CAP:
        kept = kept[: NAME_CAP - 1] + "…"
    return _ISOLATE + quote(kept) + _POP_ISOLATE


def _last_digits(number: int) -> str:
    return str(abs(number))[-4:]


def player_name(t: Translator, name: str, user_id: int, *, html: bool = True) -> str:
    """A player's name for a text in `t`'s language; "Player 1234" when it shows nothing."""
    return safe_name(name, t._("Player {number}", number=_last_digits(user_id)), html=html)


def pictured_name(t: Translator, name: str, user_id: int) -> str:
    """A player's name for a picture: cleaned as in the texts, without the isolates (a
    picture lays the name out on its own, and a font would draw them as boxes)."""
    return player_name(t, name, user_id, html=False).strip(_ISOLATE + _POP_ISOLATE)


def group_name(t: Translator, title: str, chat_id: int) -> str:
    """A group's title for a text in `t`'s language; "Group 1234" when it shows nothing."""
    return safe_name(title, t._("Group {number}", number=_last_digits(chat_id)))
