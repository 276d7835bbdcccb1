"""Translations and locale formatting for the three languages the bot speaks.

Catalogs are read straight from the `.po` files at start-up and compiled in memory, so there
is no build step and no generated `.mo` file that could go stale. Where those files are is
decided once, by `_locales_dir`.
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from zoneinfo import ZoneInfo

from babel import Locale
from babel.lists import format_list
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.numbers import format_decimal, format_percent
from babel.support import Translations
from babel.units import format_unit

from bot.config import DEFAULT_LANGUAGE, LANGUAGES
from bot.models import Player

# Holds a number to its unit ("7 seconds") where a line could otherwise break between them.
NBSP = "\u00a0"
LANGUAGE_NAMES = {"en": "English", "nl": "Nederlands", "de": "Deutsch"}
# Where a group's clock times are shown, from the language its admins chose: a Dutch or German
# group most likely lives in that zone; an English one could be anywhere, so it gets UTC, as a
# group that chose none does. A per-group setting would replace this.
GROUP_TIME_ZONES = {"en": "UTC", "nl": "Europe/Amsterdam", "de": "Europe/Berlin"}
DOMAIN = "bot"


def _locales_dir() -> Path:
    """`bot/locales/` when it exists (an installed wheel), else the checkout's root `locales/`.

    The catalogs live at the repository root, where translators and pybabel edit them. A
    wheel can only install files inside its packages, so pyproject.toml ships that folder as
    `bot/locales/`. A checkout has no `bot/locales/`: run from it (pytest, `python -m bot`,
    or an editable install, which imports the checkout's own files), the root folder is read.
    """
    package = Path(__file__).resolve().parents[1]
    shipped = package / "locales"
    return shipped if shipped.is_dir() else package.parent / "locales"


LOCALES_DIR = _locales_dir()


def resolve_language(choice: str | None, telegram_code: str | None) -> str:
    """The player's own choice wins, then Telegram's language (`de-CH` → `de`), then English."""
    if choice in LANGUAGES:
        return choice
    if telegram_code:
        base = telegram_code.replace("_", "-").split("-")[0].lower()
        if base in LANGUAGES:
            return base
    return DEFAULT_LANGUAGE


def player_language(player: Player, telegram_code: str | None = None) -> str:
    """The one rule for the language a player reads: their /language choice, else their
    Telegram app's language (from the update at hand, else as last seen), else English."""
    return resolve_language(player.language, telegram_code or player.telegram_language)


def group_zone(chosen: str | None) -> ZoneInfo:
    """The one zone of a group's clock times, whoever reads them and wherever: that of the
    language its admins chose, UTC if they chose none. Not the reader's, nor a card's: members
    of one group read in several languages, and each challenge card is worded in its creator's."""
    return ZoneInfo(GROUP_TIME_ZONES.get(chosen or DEFAULT_LANGUAGE, GROUP_TIME_ZONES["en"]))


def catalog_path(language: str) -> Path:
    return LOCALES_DIR / language / "LC_MESSAGES" / f"{DOMAIN}.po"


@cache
def _translations(language: str) -> Translations:
    with catalog_path(language).open("rb") as po:
        catalog = read_po(po, locale=language)
    buffer = io.BytesIO()
    write_mo(buffer, catalog)
    buffer.seek(0)
    return Translations(buffer, domain=DOMAIN)


@cache
def _babel_locale(language: str) -> Locale:
    return Locale.parse(language)


@dataclass(frozen=True, slots=True)
class Translator:
    """Everything language-specific a reply needs: words, plurals and number formats."""

    language: str

    @property
    def locale(self) -> Locale:
        """The language's Babel locale, for numbers and units: parsed once, where a name
        passed to Babel is parsed again on every call (twice the cost of a number)."""
        return _babel_locale(self.language)

    def _(self, message: str, **values: object) -> str:
        text = _translations(self.language).gettext(message)
        return text.format(**values) if values else text

    def ngettext(self, singular: str, plural: str, n: int, **values: object) -> str:
        text = _translations(self.language).ngettext(singular, plural, n)
        return text.format(n=self.number(n), **values)

    def number(self, value: int) -> str:
        return format_decimal(value, locale=self.locale)

    def tile(self, value: int) -> str:
        """A tile's number: grouped like any number from five digits up ("131.072"), but
        whole below, as the game names its tiles ("a 2048 tile", never "2,048")."""
        return str(value) if value < 10_000 else self.number(value)

    def percent(self, share: float) -> str:
        """A share as the language writes a percentage, whole: "25%", "25 %"."""
        return format_percent(share, locale=self.locale)

    def duration(self, seconds: float) -> str:
        """Play time in the language's own unit abbreviations ("12 min 34 sec", "1 Std. 5 Sek.").

        For tight places only (a stat line, the picture's footer): running text says
        `play_time`. Not "12:34": in a sentence that reads as a time of day. Zero units are
        left out.
        """
        hours, rest = divmod(round(seconds), 3600)
        minutes, secs = divmod(rest, 60)
        units = (("duration-hour", hours), ("duration-minute", minutes), ("duration-second", secs))
        parts = [
            format_unit(value, unit, length="short", locale=self.locale)
            for unit, value in units
            if value
        ]
        return " ".join(parts) or format_unit(0, "duration-second", "short", locale=self.locale)

    def play_time(self, seconds: float) -> str:
        """Play time in words for running text ("20 minutes and 34 seconds").

        Next to the countdowns' "10 hours and 7 minutes", clipped units read like a stat line;
        and the German ones end in a dot, so a sentence ending on them would end in two.
        """
        hours, rest = divmod(round(seconds), 3600)
        minutes, secs = divmod(rest, 60)
        return self._in_words(
            (("duration-hour", hours), ("duration-minute", minutes), ("duration-second", secs))
        )

    def countdown(self, seconds: float) -> str:
        """Time left, in words for running text ("10 hours and 55 minutes", "42 seconds").

        A message that counts down is never updated, so seconds past the first minute are
        stale as soon as it is read: they are left out, and the minutes rounded up, so it
        never says "0 minutes".
        """
        whole = max(0, math.ceil(seconds))
        if whole < 60:
            return self._in_words((("duration-second", whole),))
        hours, minutes = divmod(math.ceil(whole / 60), 60)
        return self._in_words((("duration-hour", hours), ("duration-minute", minutes)))

    def _in_words(self, units: tuple[tuple[str, int], ...]) -> str:
        """Units written out and joined as a list; zero units are left out, unless all are.

        A no-break space holds each number to its unit, so a line never breaks between "7"
        and "seconds" (German typography insists on it, and it reads better in any language).
        """
        shown = [(unit, value) for unit, value in units if value] or [units[-1]]
        return format_list(
            [
                format_unit(value, unit, length="long", locale=self.locale).replace(" ", NBSP, 1)
                for unit, value in shown
            ],
            locale=self.locale,
        )


@cache
def translator(language: str) -> Translator:
    return Translator(language if language in LANGUAGES else DEFAULT_LANGUAGE)
