"""A hint's reason in words: every kind in every language, tiles in the locale's numbers."""

from __future__ import annotations

import pytest

from bot.presentation.i18n import translator
from bot.presentation.toasts import hint_reason
from engine.solver.reasons import Reason, ReasonKind

EXPECTED = {
    "en": {
        ReasonKind.EVERY_OTHER_LOSES_CORNER: "any other move gives up the corner",
        ReasonKind.JOINS: "merges two 1024s",
        ReasonKind.ONLY_FREE_CELL_BESIDE_HIGHEST: (
            "the only move that keeps a free cell next to your highest tile"
        ),
        ReasonKind.KEEPS_CORNER: "keeps your 1024 in the corner",
    },
    "nl": {
        ReasonKind.EVERY_OTHER_LOSES_CORNER: "met elke andere zet raak je de hoek kwijt",
        ReasonKind.JOINS: "zo voeg je twee tegels van 1024 samen",
        ReasonKind.ONLY_FREE_CELL_BESIDE_HIGHEST: (
            "de enige zet die een vakje naast je hoogste tegel vrij laat"
        ),
        ReasonKind.KEEPS_CORNER: "zo blijft je 1024 in de hoek",
    },
    "de": {
        ReasonKind.EVERY_OTHER_LOSES_CORNER: "mit jedem anderen Zug verlierst du die Ecke",
        ReasonKind.JOINS: "so verschmelzen zwei 1024er",
        ReasonKind.ONLY_FREE_CELL_BESIDE_HIGHEST: (
            "der einzige Zug, der ein Feld neben deiner höchsten Kachel frei lässt"
        ),
        ReasonKind.KEEPS_CORNER: "so bleibt deine 1024 in der Ecke",
    },
}


@pytest.mark.parametrize("language", sorted(EXPECTED))
@pytest.mark.parametrize("kind", list(ReasonKind))
def test_each_reason_is_worded_in_each_language(language, kind):
    assert hint_reason(translator(language), Reason(kind, 1024)) == EXPECTED[language][kind]
