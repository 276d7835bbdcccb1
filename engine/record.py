"""A game's record, and its check: anyone can replay a published result with this engine.

A record holds what is needed to replay a game (its size, seed and action letters), what the
game claims to have reached (score, moves, highest tile, final tiles) and, for a daily or a
challenge, the commitment published before the first move with the salt and subject that
make it. `verify` checks both: that the seed is the one committed to, and that the actions
give what the record claims. A changed letter, score or seed fails one or the other.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.commitment import commitment
from engine.errors import EngineError
from engine.game import SIZES, Game
from engine.replay import replay

FORMAT = "bot2048-record/1"


def record(
    game: Game,
    actions: str,
    *,
    salt: str | None = None,
    subject: str | None = None,
    committed: str | None = None,
) -> dict[str, Any]:
    """The record of a game as played; the seed belongs in it only once it may be shown."""
    return {
        "format": FORMAT,
        "size": game.size,
        "seed": game.seed,
        "salt": salt,
        "subject": subject,
        "commitment": committed,
        "actions": actions,
        "score": game.score,
        "moves": game.moves,
        "highest": game.highest,
        "tiles": list(game.board),
    }


@dataclass(frozen=True, slots=True)
class Verdict:
    """What a record's check found; `problems` lists every claim that does not hold."""

    committed: bool | None  # the seed matches the commitment; None if the record has none
    replayed: bool  # the actions give the stated score, moves, highest tile and tiles
    problems: tuple[str, ...]

    @property
    def holds(self) -> bool:
        return self.committed is not False and self.replayed


def _field(data: Mapping[str, Any], name: str, kind: type) -> Any:
    value = data.get(name)
    if type(value) is not kind:
        raise EngineError(f"the record's {name!r} must be a {kind.__name__}, not {value!r}")
    return value


def verify(data: Mapping[str, Any]) -> Verdict:
    """Check a record: its commitment against its seed, and its claims against a replay.

    Raises EngineError for a record that is not one (a wrong format, a missing field).
    """
    if data.get("format") != FORMAT:
        raise EngineError(f"not a {FORMAT} record")
    size, seed = _field(data, "size", int), _field(data, "seed", int)
    if size not in SIZES:
        raise EngineError(f"the record's size {size} is not one of {SIZES}")
    actions = _field(data, "actions", str)
    problems: list[str] = []
    committed = None
    if data.get("commitment") is not None:
        salt, subject = _field(data, "salt", str), _field(data, "subject", str)
        digest = commitment(salt, seed, size, subject)
        committed = digest == _field(data, "commitment", str)
        if not committed:
            problems.append(f"the seed, salt, size and subject give {digest}, not the commitment")
    try:
        game = replay(size, seed, actions)
    except (EngineError, ValueError) as error:
        return Verdict(committed, False, (*problems, f"the actions do not replay: {error}"))
    claims = {
        "score": game.score,
        "moves": game.moves,
        "highest": game.highest,
        "tiles": list(game.board),
    }
    wrong = [
        f"{name}: the record says {data.get(name)!r}, the replay {replayed!r}"
        for name, replayed in claims.items()
        if data.get(name) != replayed
    ]
    return Verdict(committed, not wrong, (*problems, *wrong))
