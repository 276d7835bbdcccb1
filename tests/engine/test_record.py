"""A game's record checks out exactly when nothing in it was changed: its seed against its
commitment, its score, moves, highest tile and tiles against a replay."""

from __future__ import annotations

import pytest

import engine

SALT = "0123456789abcdef" * 2


def _played(seed: int = 77, codes: str = "lurdlurdlurdlldr") -> tuple[engine.Game, str]:
    game, actions = engine.new_game(4, seed, 0.0), ""
    for code in codes:
        turn = engine.act(game, engine.CODE_ACTIONS[code], 0.0)
        if turn.changed:
            game, actions = turn.game, actions + code
    return game, actions


def _record(**changes) -> dict:
    game, actions = _played()
    committed = engine.commitment(SALT, game.seed, 4, "2026-12-02")
    data = engine.record(game, actions, salt=SALT, subject="2026-12-02", committed=committed)
    return {**data, **changes}


def test_a_true_record_holds():
    verdict = engine.verify(_record())
    assert verdict.committed is True and verdict.replayed and verdict.holds
    assert verdict.problems == ()


def test_a_record_without_commitment_is_checked_by_its_replay_alone():
    game, actions = _played()
    verdict = engine.verify(engine.record(game, actions))
    assert verdict.committed is None and verdict.holds


@pytest.mark.parametrize(
    ("field", "tamper"),
    [
        ("score", lambda data: data["score"] + 4),
        ("moves", lambda data: data["moves"] - 1),
        ("highest", lambda data: data["highest"] * 2),
        ("tiles", lambda data: sorted(data["tiles"])),
        ("actions", lambda data: data["actions"][:-1]),
    ],
)
def test_a_changed_result_fails_the_replay(field, tamper):
    data = _record()
    verdict = engine.verify({**data, field: tamper(data)})
    assert verdict.committed is True and not verdict.replayed and not verdict.holds
    assert verdict.problems


@pytest.mark.parametrize(
    ("field", "value"),
    [("salt", "f" * 32), ("subject", "2026-12-03"), ("size", 5), ("commitment", "0" * 64)],
)
def test_a_changed_seed_or_commitment_fails_the_commitment(field, value):
    verdict = engine.verify(_record(**{field: value}))
    assert verdict.committed is False and not verdict.holds


def test_another_seed_fails_both():
    data = _record()
    verdict = engine.verify({**data, "seed": data["seed"] + 1})
    assert verdict.committed is False and not verdict.holds


def test_actions_that_do_not_replay_are_reported_not_raised():
    verdict = engine.verify(_record(actions="lxr"))
    assert not verdict.replayed and "do not replay" in verdict.problems[-1]


@pytest.mark.parametrize(
    "broken",
    [{"format": "other"}, {"seed": None}, {"size": "4"}, {"size": 9}, {"actions": 3}],
)
def test_what_is_not_a_record_is_refused(broken):
    with pytest.raises(engine.EngineError):
        engine.verify(_record(**broken))
