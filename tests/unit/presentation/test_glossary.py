"""One word per concept: every catalog keeps to the glossary in locales/glossary.toml.

The rules of the glossary file (forms, forbidden synonyms, `except`, `messages`) are described
at its top; this test is their only reader.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import cache

import pytest
from babel.messages.pofile import read_po

from bot.presentation.i18n import LANGUAGES, LOCALES_DIR, catalog_path

GLOSSARY = LOCALES_DIR / "glossary.toml"
NOT_WORDS = re.compile(r"<[^>]+>|\{\w+\}|/\w+")  # tags, placeholders and /commands


@dataclass(frozen=True)
class Concept:
    name: str
    forms: tuple[re.Pattern[str], ...]
    forbidden: tuple[re.Pattern[str], ...]
    messages: tuple[str, ...]
    allowed_in: tuple[str, ...]  # concepts whose messages may use this one's forbidden words


def _pattern(phrase: str) -> re.Pattern[str]:
    """A glossary phrase as a regex: whole words, case-insensitive, `*` for any letters."""
    words = [
        ("\\w*" if word.startswith("*") else "")
        + re.escape(word.strip("*"))
        + ("\\w*" if word.endswith("*") else "")
        for word in phrase.split()
    ]
    return re.compile(r"(?<!\w)" + r"\s+".join(words) + r"(?!\w)", re.IGNORECASE)


@cache
def _glossary() -> dict[str, dict[str, dict]]:
    with GLOSSARY.open("rb") as file:
        return tomllib.load(file)


def _concepts(language: str, msgids: set[str]) -> list[Concept]:
    return [
        Concept(
            name,
            tuple(_pattern(form) for form in entry["forms"]),
            tuple(_pattern(word) for word in entry["forbidden"]),
            tuple(_msgid(msgids, message) for message in entry.get("messages", [])),
            tuple(entry.get("except", [])),
        )
        for name, entry in _glossary()[language].items()
    ]


def _msgid(msgids: set[str], named: str) -> str:
    """The msgid a glossary entry names: exactly, or by its start when it ends in "…"."""
    if not named.endswith("…"):
        assert named in msgids, f"glossary names a message that does not exist: {named!r}"
        return named
    matches = [msgid for msgid in msgids if msgid.startswith(named[:-1])]
    assert len(matches) == 1, f"glossary entry {named!r} matches {len(matches)} messages"
    return matches[0]


@cache
def _catalog_texts(language: str) -> dict[str, tuple[str, ...]]:
    """msgid (the singular one for plurals) → every msgstr form, as a reader sees the words."""
    with catalog_path(language).open("rb") as po:
        catalog = read_po(po, locale=language)
    texts = {}
    for message in catalog:
        if not message.id:
            continue
        msgid = message.id[0] if isinstance(message.id, tuple) else message.id
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        texts[msgid] = tuple(NOT_WORDS.sub(" ", text) for text in strings)
    return texts


def problems(language: str, texts: dict[str, tuple[str, ...]]) -> list[str]:
    """Every way `texts` strays from the glossary, one line each."""
    concepts = _concepts(language, set(texts))
    messages_of = {concept.name: set(concept.messages) for concept in concepts}
    found = []
    for concept in concepts:
        exempt = set().union(*(messages_of[name] for name in concept.allowed_in))
        for msgid, strings in texts.items():
            if msgid in exempt:
                continue
            for text in strings:
                for word in concept.forbidden:
                    if match := word.search(text):
                        found.append(f"{concept.name}: {match.group()!r} in {text!r}")
        for msgid in concept.messages:
            for text in texts[msgid]:
                if not any(form.search(text) for form in concept.forms):
                    found.append(f"{concept.name}: the term is missing from {text!r}")
        if not any(form.search(t) for s in texts.values() for t in s for form in concept.forms):
            found.append(f"{concept.name}: no text uses the term")
    return found


def test_every_language_has_the_same_concepts():
    names = {language: set(_glossary()[language]) for language in LANGUAGES}
    assert set(_glossary()) == set(LANGUAGES)
    assert all(concepts == names["en"] for concepts in names.values()), names


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_catalog_keeps_to_the_glossary(language):
    assert problems(language, _catalog_texts(language)) == []


@pytest.mark.parametrize(
    ("language", "msgid", "stray", "concept"),
    [
        ("nl", "Number view is on.", "Cijferweergave staat aan.", "number"),
        ("nl", "Undo", "Ongedaan maken", "undo"),
        ("nl", "Hint", "Tip", "hint"),
        ("nl", "Pick a board size:", "Kies een speelveld:", "size"),
        ("de", "{n} undo left", "noch {n} Rücknahmen", "undo"),
        ("de", "Tips for a higher score", "Tipps für mehr Punkte", "tips"),
        ("de", "Nothing moves that way.", "Auf dem Brett bewegt sich nichts.", "board"),
        (
            "en",
            "{rank}. {name}: {score} · highest tile {tile} · {moves}",
            "top tile {tile}",
            "highest_tile",
        ),
    ],
)
def test_a_stray_synonym_fails(language, msgid, stray, concept):
    texts = dict(_catalog_texts(language))
    texts[msgid] = (NOT_WORDS.sub(" ", stray),)
    assert any(line.startswith(f"{concept}: ") for line in problems(language, texts))
