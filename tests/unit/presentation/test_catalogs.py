"""The catalogs are complete, consistent with the code, and formatted per locale."""

from __future__ import annotations

import re

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po

from bot.presentation.i18n import LANGUAGES, catalog_path, resolve_language, translator
from bot.presentation.texts import rules
from tests.support.processes import ROOT

PLACEHOLDER = re.compile(r"\{(\w+)\}")
TAG = re.compile(r"</?([a-z]+)[^>]*>")


def _catalog(language: str):
    with catalog_path(language).open("rb") as po:
        return read_po(po, locale=language)


def _code_messages() -> set[str]:
    """Every message the code asks for, extracted the same way the catalogs are updated."""
    found = set()
    for _, _, message, _, _ in extract_from_dir(
        ROOT / "bot",
        method_map=[("**.py", "python")],
        keywords={"_": None, "ngettext": (1, 2)},
    ):
        found.add(message[0] if isinstance(message, tuple) else message)
    return found


@pytest.mark.parametrize("language", LANGUAGES)
def test_catalog_has_every_message_the_code_uses(language):
    ids = {m.id[0] if isinstance(m.id, tuple) else m.id for m in _catalog(language) if m.id}
    missing = _code_messages() - ids
    assert not missing, f"{language}: not in the catalog: {sorted(missing)[:5]}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_message_is_translated_and_not_fuzzy(language):
    catalog = _catalog(language)
    assert catalog.num_plurals == 2
    for message in catalog:
        if not message.id:
            continue
        assert not message.fuzzy, f"{language}: fuzzy: {message.id!r}"
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        if isinstance(message.id, tuple):
            assert len(strings) == catalog.num_plurals, f"{language}: plural forms: {message.id}"
        assert all(strings), f"{language}: untranslated: {message.id!r}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_placeholders_and_markup_match_the_source(language):
    for message in _catalog(language):
        if not message.id:
            continue
        source = message.id[-1] if isinstance(message.id, tuple) else message.id
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        for text in strings:
            assert set(PLACEHOLDER.findall(text)) == set(PLACEHOLDER.findall(source)), text
            assert sorted(TAG.findall(text)) == sorted(TAG.findall(source)), text


@pytest.mark.parametrize(
    ("language", "expected"), [("en", "20,480"), ("nl", "20.480"), ("de", "20.480")]
)
def test_numbers_use_the_locale_grouping(language, expected):
    assert translator(language).number(20480) == expected


@pytest.mark.parametrize("language", LANGUAGES)
def test_plural_forms_differ_between_one_and_many(language):
    t = translator(language)
    one = t.ngettext("{n} move", "{n} moves", 1)
    many = t.ngettext("{n} move", "{n} moves", 1234)
    assert one.startswith("1 ") and "1" not in one[1:]
    assert t.number(1234) in many
    assert one.replace("1", "") != many.replace(t.number(1234), "")


def test_dutch_and_german_are_really_translated():
    english = translator("en")._("Nothing moves that way.")
    assert translator("nl")._("Nothing moves that way.") != english
    assert translator("de")._("Nothing moves that way.") != english


@pytest.mark.parametrize(
    ("choice", "telegram", "expected"),
    [
        (None, "de-CH", "de"),
        (None, "nl", "nl"),
        (None, "nl_BE", "nl"),
        (None, "fr", "en"),
        (None, None, "en"),
        ("nl", "de", "nl"),
        ("xx", "de", "de"),
    ],
)
def test_language_resolution(choice, telegram, expected):
    assert resolve_language(choice, telegram) == expected


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_rules_fit_one_telegram_message_with_room_to_spare(language):
    # Telegram counts a message's visible text in UTF-16 units, at most 4,096. The rules keep
    # a tenth of that free, so a translator's reworded paragraph can't split them in two.
    visible = TAG.sub("", rules(translator(language)))
    assert len(visible.encode("utf-16-le")) // 2 <= 4096 * 9 // 10


@pytest.mark.parametrize("language", LANGUAGES)
def test_texts_use_typographic_quotes_and_apostrophes(language):
    """One style per catalog: ’ and “…” (nl ‘…’, de „…“), never the typewriter ' and "."""
    for message in _catalog(language):
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        for text in strings if message.id else ():
            words = TAG.sub("", text)  # attribute quotes are markup, not text
            assert "'" not in words and '"' not in words, f"{language}: {text!r}"
