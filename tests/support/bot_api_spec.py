"""What the bot sends and what the emulator answers, held against Telegram's Bot API as data.

`tests/data/bot-api.json` is the Bot API's methods and types as facts: each field's name, its
types, whether it is required, the length limit its description states ("1-4096
characters"), and the one value it may have where it says which kind of an abstract type
an object is (a MenuButtonWebApp's `type` "must be web_app"). It is made from a
machine-readable copy of Telegram's documentation (the public telegram-bot-api-spec
project's JSON, which keeps the descriptions too) by running this module, when Telegram
publishes a new version: `.venv/bin/python -m tests.support.bot_api_spec SOURCE.json`.

`violations(request)` lists where one recorded call departs from it:

- the method is one Telegram has;
- every parameter is one the method takes, each required one is there, and each value has
  one of the parameter's types;
- an answer that succeeded is of a type the method returns: every field of every object in it
  is one its type has, with a value of that field's type, and no required field is missing;
  an object of an abstract type is held against the kind it names itself.

`check_calls` asserts that a whole test's calls keep to it: the `api` fixtures run it once
the test is over, so every call of every end-to-end test is held against Telegram's own
description.

A parameter arrives as python-telegram-bot posts it, in a form where everything is a string
(`bot.emulator.params` types only the ones the emulator reads), so a parameter's value may be
the string of an integer, a boolean or a JSON document. An answer is the emulator's own JSON,
and is held to the letter.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

from bot.emulator.log import RecordedRequest
from bot.emulator.media import Upload

SPEC_FILE = Path(__file__).resolve().parent.parent / "data" / "bot-api.json"
_ARRAY = "Array of "
_DIGITS = frozenset("0123456789")
# Parameters python-telegram-bot sends where the method has none, which Telegram ignores: its
# `Defaults(parse_mode=...)` goes into every call made through `Bot._send_message`,
# editMessageReplyMarkup included.
SENT_BY_THE_LIBRARY = {"editMessageReplyMarkup": frozenset({"parse_mode"})}


@cache
def spec() -> dict[str, Any]:
    with SPEC_FILE.open(encoding="utf-8") as file:
        return json.load(file)


def check_calls(requests: Iterable[RecordedRequest]) -> None:
    """Every call and answer keeps to the Bot API; else the first problems, one a line."""
    found = sorted({line for request in requests for line in violations(request)})
    assert not found, "calls that depart from the Bot API:\n" + "\n".join(found[:20])


def violations(request: RecordedRequest) -> list[str]:
    """Where `request` departs from the Bot API: one line each, none if it keeps to it."""
    method = spec()["methods"].get(request.method)
    if method is None:
        return [f"{request.method}: Telegram has no such method"]
    params = {
        name: value
        for name, value in request.params.items()
        if name not in SENT_BY_THE_LIBRARY.get(request.method, ())
    }
    found = [f"{request.method}({line}" for line in _parameters(method, params)]
    if request.ok:
        problems = _closest(request.result, method["returns"], sent=False)
        found += [f"{request.method} -> {line}" for line in problems]
    return found


def _parameters(method: dict[str, Any], params: dict[str, Any]) -> Iterator[str]:
    fields = {field["name"]: field for field in method.get("fields", [])}
    for name, field in fields.items():
        if field["required"] and name not in params:
            yield f"{name}): required, and missing"
    for name, value in params.items():
        field = fields.get(name)
        if field is None:
            yield f"{name}): not a parameter of this method"
            continue
        for line in _closest(value, field["types"], sent=True):
            yield f"{name}){line}"


def _closest(value: Any, kinds: list[str], *, sent: bool) -> list[str]:
    """The problems of `value` as the one of `kinds` it comes closest to (fewest problems)."""
    tries = [_fits(value, kind, sent=sent) for kind in kinds]
    return min(tries, key=len)


def _fits(value: Any, kind: str, *, sent: bool) -> list[str]:
    """The problems of `value` as a `kind` ("Integer", "Array of PhotoSize", "Message", ...);
    `sent`: a parameter as posted, where a scalar or a JSON document may come as a string."""
    if kind.startswith(_ARRAY):
        if sent and isinstance(value, str):
            value = _json(value)
        if not isinstance(value, list):
            return [f": {_shown(value)} is not an array of {kind[len(_ARRAY) :]}"]
        return [
            f"[{index}]{line}"
            for index, item in enumerate(value)
            for line in _fits(item, kind[len(_ARRAY) :], sent=sent)
        ]
    scalar = _SCALARS.get(kind)
    if scalar is not None:
        return [] if scalar(value, sent) else [f": {_shown(value)} is not {kind}"]
    if kind == "InputFile":
        return [] if isinstance(value, Upload) else [f": {_shown(value)} is not an upload"]
    return _object(value, kind, sent=sent)


def _object(value: Any, kind: str, *, sent: bool) -> list[str]:
    definition = spec()["types"].get(kind)
    if definition is None:
        return [f": the Bot API has no type {kind}"]
    if sent and isinstance(value, str):
        value = _json(value)
    subtypes = definition.get("subtypes")
    if subtypes:
        # The kind the object says it is (its `type`, a member's `status`), if it says one.
        named = [name for name in subtypes if _says(value, name)]
        return _closest(value, named or subtypes, sent=sent)
    if not isinstance(value, dict):
        return [f": {_shown(value)} is not a {kind} object"]
    fields = {field["name"]: field for field in definition.get("fields", [])}
    problems = [
        f".{name}: required in {kind}, and missing"
        for name, field in fields.items()
        if field["required"] and name not in value
    ]
    for name, item in value.items():
        field = fields.get(name)
        if field is None:
            problems.append(f".{name}: not a field of {kind}")
            continue
        if "value" in field and item != field["value"]:
            problems.append(f".{name}: {_shown(item)} in a {kind}, which is {field['value']!r}")
            continue
        problems += [f".{name}{line}" for line in _closest(item, field["types"], sent=sent)]
    return problems


def _says(value: Any, kind: str) -> bool:
    """Whether `value` names itself a `kind` by the field whose value that kind fixes."""
    fixed = [f for f in spec()["types"].get(kind, {}).get("fields", []) if "value" in f]
    return (
        isinstance(value, dict)
        and bool(fixed)
        and all(value.get(f["name"]) == f["value"] for f in fixed)
    )


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def _integer(value: Any, sent: bool) -> bool:
    if sent and isinstance(value, str):
        digits = value[1:] if value.startswith("-") else value
        return bool(digits) and set(digits) <= _DIGITS
    return isinstance(value, int) and not isinstance(value, bool)


def _float(value: Any, sent: bool) -> bool:
    if sent and isinstance(value, str):
        try:
            float(value)
        except ValueError:
            return False
        return True
    return isinstance(value, int | float) and not isinstance(value, bool)


def _boolean(value: Any, sent: bool) -> bool:
    return isinstance(value, bool) or (sent and value in ("true", "false"))


def _true(value: Any, sent: bool) -> bool:
    return value is True or (sent and value == "true")


def _string(value: Any, sent: bool) -> bool:
    return isinstance(value, str)


_SCALARS = {
    "Integer": _integer,
    "Float": _float,
    "Boolean": _boolean,
    "True": _true,
    "String": _string,
}


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


_LIMIT = re.compile(r"\d+-\d+ (?:characters|bytes)|At most \d+")
_FIXED = re.compile(r"(?:must be|always) [\"“]?([a-z0-9_]+)[\"”]?$")


def _facts(fields: list[dict[str, Any]]) -> list[dict[str, Any]]:
    kept = []
    for field in fields:
        fact = {name: field[name] for name in ("name", "types", "required")}
        description = field.get("description", "")
        limit = _LIMIT.search(description)
        if limit is not None:
            fact["limit"] = limit.group(0)
        fixed = _FIXED.search(description)
        if fixed is not None and field["types"] == ["String"]:
            fact["value"] = fixed.group(1)
        kept.append(fact)
    return kept


def main(source: str) -> None:
    """Write SPEC_FILE from the full specification at `source`."""
    with open(source, encoding="utf-8") as file:
        full = json.load(file)
    facts = {
        "version": full["version"],
        "release_date": full["release_date"],
        "methods": {
            name: {"fields": _facts(method.get("fields", [])), "returns": method["returns"]}
            for name, method in full["methods"].items()
        },
        "types": {
            name: {"subtypes": kind["subtypes"]}
            if kind.get("subtypes")
            else {"fields": _facts(kind.get("fields", []))}
            for name, kind in full["types"].items()
        },
    }
    SPEC_FILE.write_text(json.dumps(facts, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1])
