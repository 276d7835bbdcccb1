"""Telegram's limit on a message's length, counted as Telegram counts it.

Telegram refuses a message longer than 4,096 characters, counted after it has parsed the
HTML: tags do not count, an entity such as `&amp;` counts as the one character it stands for,
and every character outside the Basic Multilingual Plane (emoji, the "fancy font" letters some
players use in their names) counts twice, as two UTF-16 code units. A message refused for its
length reaches nobody, so texts that grow with data are cut to fit before they are sent.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from html import unescape

MESSAGE_LIMIT = 4096
CUT = "…"
_TAG = re.compile(r"<[^>]*>")


def telegram_length(html_text: str) -> int:
    """The length Telegram counts for an HTML message: UTF-16 code units of its plain text."""
    return len(unescape(_TAG.sub("", html_text)).encode("utf-16-le")) // 2


def fit_blocks(blocks: Sequence[str], limit: int = MESSAGE_LIMIT) -> str:
    """`blocks` (paragraphs of lines, the most important first) joined by blank lines, cut
    to `limit`: the last lines of the last blocks go first, a block left with its heading
    alone goes whole, and a last line of "…" says something was left out."""
    kept = [block.split("\n") for block in blocks]

    def joined(cut: bool) -> str:
        text = "\n\n".join("\n".join(lines) for lines in kept)
        return f"{text}\n{CUT}" if cut else text

    cut = False
    while telegram_length(joined(cut)) > limit:
        last = kept[-1]
        if len(last) > 2 or (len(last) == 2 and len(kept) == 1):
            last.pop()
        elif len(kept) > 1:
            kept.pop()
        else:
            break  # one line left: names and figures are capped, so it fits on its own
        cut = True
    return joined(cut)
