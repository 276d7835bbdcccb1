"""Telegram's HTML parse mode, re-implemented after TDLib's ``parse_html``.

Why a hand-written parser: Telegram does not use a browser-grade HTML parser. It knows a
fixed set of tags, rejects everything else with ``can't parse entities: ...`` and reports
positions as UTF-8 *byte* offsets, while the resulting entities use UTF-16 code units.
Mirroring that walk (rather than using :mod:`html.parser`) makes the emulator reject
exactly what Telegram rejects, so formatting bugs surface in tests instead of in
production.

Deliberate strictness: Telegram silently keeps a bare ``&`` that does not start an
entity; here it is an error, because emitting unescaped ``&`` is always a latent bug
(``&lt`` inside user-provided text would be decoded) and ``html.escape`` never does it.
The trailing ``;`` of an entity is required for the same reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

# TDLib's is_space: the characters that separate tag names and attributes.
_SPACES = " \t\r\n\v\f"
# Characters trimmed from both ends of every message text, as Telegram does.
_TRIM = " \t\r\n"

_TAG_TO_TYPE = {
    "b": "bold",
    "strong": "bold",
    "i": "italic",
    "em": "italic",
    "u": "underline",
    "ins": "underline",
    "s": "strikethrough",
    "strike": "strikethrough",
    "del": "strikethrough",
    "span": "spoiler",
    "tg-spoiler": "spoiler",
    "a": "text_link",
    "code": "code",
    "pre": "pre",
    "blockquote": "blockquote",
    "tg-emoji": "custom_emoji",
}
SUPPORTED_TAGS = frozenset(_TAG_TO_TYPE)

_NAMED_ENTITIES = {"lt": "<", "gt": ">", "amp": "&", "quot": '"'}
_URL_SCHEMES = ("http://", "https://", "tg://", "ton://")
_BARE_DOMAIN = re.compile(r"^[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+(/\S*)?$")


class HtmlParseError(ValueError):
    """Raised with TDLib's wording; the server prefixes ``can't parse entities: ``."""


@dataclass
class _OpenTag:
    """A start tag waiting for its end tag: where it began in source and in output."""

    name: str
    argument: str
    utf16_start: int
    byte_offset: int


@dataclass
class ParsedText:
    """Plain text plus Bot API ``MessageEntity`` dicts (UTF-16 offsets)."""

    text: str
    entities: list[dict[str, Any]] = field(default_factory=list)


def utf16_len(text: str) -> int:
    """Length in UTF-16 code units, the unit of Telegram's limits and entity offsets."""
    return len(text.encode("utf-16-le")) // 2


def _byte_offset(source: str, index: int) -> int:
    return len(source[:index].encode("utf-8"))


def _decode_entity(source: str, pos: int) -> tuple[str, int] | None:
    """Decode ``&...;`` at ``pos``; returns (character, index after ``;``) or None."""
    end = source.find(";", pos + 1)
    if end == -1 or end - pos > 12:
        return None
    body = source[pos + 1 : end]
    if body in _NAMED_ENTITIES:
        return _NAMED_ENTITIES[body], end + 1
    code: int | None = None
    if re.fullmatch(r"#[0-9]{1,7}", body):
        code = int(body[1:])
    elif re.fullmatch(r"#[xX][0-9A-Fa-f]{1,6}", body):
        code = int(body[2:], 16)
    if code is None or code == 0 or code >= 0x10FFFF or 0xD800 <= code <= 0xDFFF:
        return None
    return chr(code), end + 1


def _url_for_link(url: str) -> str | None:
    """The URL Telegram would keep for ``<a href>``, or None when it drops the link."""
    url = url.strip()
    if url.lower().startswith(_URL_SCHEMES):
        return url
    if _BARE_DOMAIN.match(url):
        return "http://" + url
    return None


class _Parser:
    """One pass over the source, appending plain text and closing entities as it goes."""

    def __init__(self, source: str) -> None:
        self.src = source
        self.n = len(source)
        self.i = 0
        self.out: list[str] = []
        self.utf16 = 0
        self.stack: list[_OpenTag] = []
        self.entities: list[dict[str, Any]] = []

    def error(self, message: str) -> HtmlParseError:
        return HtmlParseError(message)

    def at(self, index: int) -> str:
        """The character at ``index`` or ``""`` past the end (TDLib's NUL sentinel)."""
        return self.src[index] if index < self.n else ""

    def emit(self, chars: str) -> None:
        self.out.append(chars)
        self.utf16 += utf16_len(chars)

    def entity(self) -> str:
        """The character an `&…;` entity at the cursor stands for; moves past it."""
        decoded = _decode_entity(self.src, self.i)
        if decoded is None:
            raise self.error(
                "Character '&' at byte offset "
                f"{_byte_offset(self.src, self.i)} does not start an HTML entity; "
                "escape it as &amp; (the emulator is stricter than Telegram here)"
            )
        self.i = decoded[1]
        return decoded[0]

    def parse(self) -> ParsedText:
        while self.i < self.n:
            char = self.src[self.i]
            if char == "&":
                self.emit(self.entity())
            elif char != "<":
                self.emit(char)
                self.i += 1
            elif self.at(self.i + 1) == "/":
                self.end_tag()
            else:
                self.start_tag()
        if self.stack:
            raise self.error(
                f'Can\'t find end tag corresponding to start tag "{self.stack[-1].name}"'
            )
        return ParsedText("".join(self.out), self.entities)

    def skip_spaces(self) -> None:
        while self.i < self.n and self.src[self.i] in _SPACES:
            self.i += 1

    def start_tag(self) -> None:
        begin = _byte_offset(self.src, self.i)
        self.i += 1
        name_start = self.i
        while self.i < self.n and self.src[self.i] not in _SPACES and self.src[self.i] != ">":
            self.i += 1
        if self.i >= self.n:
            raise self.error(f"Unclosed start tag at byte offset {begin}")
        name = self.src[name_start : self.i].lower()
        if name not in SUPPORTED_TAGS:
            raise self.error(f'Unsupported start tag "{name}" at byte offset {begin}')
        argument = self.attributes(name, begin)
        self.i += 1  # the closing '>'
        if name == "span" and argument != "spoiler":
            raise self.error(f'Tag "span" must have class "tg-spoiler" at byte offset {begin}')
        if name == "tg-emoji" and not re.fullmatch(r"[1-9][0-9]{0,18}", argument):
            raise self.error("Invalid custom emoji identifier specified")
        self.stack.append(_OpenTag(name, argument, self.utf16, begin))

    def attributes(self, tag: str, begin: int) -> str:
        """Read attributes up to '>' and return the one argument Telegram cares about."""
        argument = ""
        while True:
            self.skip_spaces()
            if self.i >= self.n:
                raise self.error(f"Unclosed start tag at byte offset {begin}")
            if self.src[self.i] == ">":
                return argument
            attr_start = self.i
            while (
                self.i < self.n and self.src[self.i] not in _SPACES and self.src[self.i] not in "=>"
            ):
                self.i += 1
            attr = self.src[attr_start : self.i].lower()
            if not attr:
                raise self.error(f'Empty attribute name in the tag "{tag}" at byte offset {begin}')
            self.skip_spaces()
            if self.at(self.i) != "=":
                if tag == "blockquote" and attr == "expandable":
                    argument = "expandable"
                    continue
                raise self.error(
                    "Expected equal sign in declaration of an attribute of the tag "
                    f'"{tag}" at byte offset {begin}'
                )
            self.i += 1
            self.skip_spaces()
            value = self.attribute_value(begin)
            if tag == "a" and attr == "href":
                argument = value
            elif tag == "code" and attr == "class" and value.startswith("language-"):
                argument = value.removeprefix("language-")
            elif tag == "span" and attr == "class" and value.startswith("tg-"):
                argument = value.removeprefix("tg-")
            elif tag == "tg-emoji" and attr == "emoji-id":
                argument = value

    def attribute_value(self, begin: int) -> str:
        if self.i >= self.n:
            raise self.error(f"Unclosed start tag at byte offset {begin}")
        quote = self.src[self.i]
        if quote not in "'\"":
            token_start = self.i
            while self.i < self.n and (self.src[self.i].isalnum() or self.src[self.i] in ".-"):
                self.i += 1
            if self.i >= self.n or (self.src[self.i] not in _SPACES and self.src[self.i] != ">"):
                raise self.error(
                    "Unexpected end of name token at byte offset "
                    f"{_byte_offset(self.src, token_start)}"
                )
            return self.src[token_start : self.i].lower()
        self.i += 1
        chars: list[str] = []
        while self.i < self.n and self.src[self.i] != quote:
            if self.src[self.i] == "&":
                chars.append(self.entity())
            else:
                chars.append(self.src[self.i])
                self.i += 1
        if self.i >= self.n:
            raise self.error(f"Unclosed start tag at byte offset {begin}")
        self.i += 1
        return "".join(chars)

    def end_tag(self) -> None:
        begin = _byte_offset(self.src, self.i)
        if not self.stack:
            raise self.error(f"Unexpected end tag at byte offset {begin}")
        self.i += 2
        name_start = self.i
        while self.i < self.n and self.src[self.i] not in _SPACES and self.src[self.i] != ">":
            self.i += 1
        end_name = self.src[name_start : self.i].lower()
        self.skip_spaces()
        if self.at(self.i) != ">":
            raise self.error(f"Unclosed end tag at byte offset {begin}")
        self.i += 1
        opened = self.stack.pop()
        if end_name and end_name != opened.name:
            raise self.error(
                f"Unmatched end tag at byte offset {begin}, expected "
                f'"</{opened.name}>", found "</{end_name}>"'
            )
        self.close(opened)

    def close(self, opened: _OpenTag) -> None:
        """Turn a matched tag pair into an entity; empty ranges produce none (like TDLib)."""
        length = self.utf16 - opened.utf16_start
        if length <= 0:
            return
        kind = _TAG_TO_TYPE[opened.name]
        entity: dict[str, Any] = {"type": kind, "offset": opened.utf16_start, "length": length}
        if kind == "text_link":
            raw = opened.argument or self.text_since(opened.utf16_start)
            url = _url_for_link(raw)
            if url is None:
                return
            entity["url"] = url
        elif kind == "code" and opened.argument:
            entity["_language"] = opened.argument
        elif kind == "pre":
            inner = self.entities[-1] if self.entities else None
            if (
                inner is not None
                and inner["type"] == "code"
                and inner["offset"] == entity["offset"]
                and inner["length"] == length
            ):
                self.entities.pop()
                if inner.get("_language"):
                    entity["language"] = inner["_language"]
        elif kind == "blockquote" and opened.argument == "expandable":
            entity["type"] = "expandable_blockquote"
        elif kind == "custom_emoji":
            entity["custom_emoji_id"] = opened.argument
        self.entities.append(entity)

    def text_since(self, utf16_start: int) -> str:
        encoded = "".join(self.out).encode("utf-16-le")
        return encoded[utf16_start * 2 :].decode("utf-16-le")


def _drop_nested_in_code(entities: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``pre`` and ``code`` can't contain other entities; Telegram removes the inner ones."""
    code_ranges = [
        (e["offset"], e["offset"] + e["length"]) for e in entities if e["type"] in ("code", "pre")
    ]

    def strictly_inside_code(entity: dict[str, Any]) -> bool:
        start, end = entity["offset"], entity["offset"] + entity["length"]
        return any(lo <= start and end <= hi and (lo, hi) != (start, end) for lo, hi in code_ranges)

    return [e for e in entities if not strictly_inside_code(e)]


def trim(parsed: ParsedText) -> ParsedText:
    """Strip leading/trailing whitespace like Telegram, clipping entities to match."""
    stripped_left = parsed.text.lstrip(_TRIM)
    lead = utf16_len(parsed.text) - utf16_len(stripped_left)
    text = stripped_left.rstrip(_TRIM)
    size = utf16_len(text)
    entities = []
    for entity in parsed.entities:
        start = max(entity["offset"] - lead, 0)
        end = min(entity["offset"] + entity["length"] - lead, size)
        if end > start:
            entities.append({**entity, "offset": start, "length": end - start})
    return ParsedText(text, entities)


def finish(parsed: ParsedText) -> ParsedText:
    """Trim, drop entities nested in code, remove private keys and sort like the API."""
    parsed = trim(parsed)
    entities = _drop_nested_in_code(parsed.entities)
    clean = [{k: v for k, v in e.items() if not k.startswith("_")} for e in entities]
    clean.sort(key=lambda e: (e["offset"], -e["length"]))
    return ParsedText(parsed.text, clean)


def parse_html(source: str) -> ParsedText:
    """Parse Telegram HTML into trimmed plain text and entities, or raise HtmlParseError."""
    return finish(_Parser(source).parse())
