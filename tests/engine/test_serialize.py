"""Saving and loading: every state of a game survives `to_dict`, JSON and `from_dict` and
plays on the same, and a tampered save is refused with EngineError, never another exception.

The games saved are real ones (random taps from many seeds) and the positions the rules single
out, built in test_game.py.
"""

from __future__ import annotations

import copy
import json
import math
import random

import pytest

import engine
from engine import Win
from tests.engine.test_game import DIRECTIONS, NEAR_GAME_OVER, T0, about_to_win, game_from_rows


def _random_game(seed: int) -> engine.Game:
    """A game in some random state: moves, undos, perhaps game over or a win."""
    rng = random.Random(seed)
    size = (4, 5, 6)[seed % 3]
    now = T0 + rng.uniform(0, 1e6)
    game = engine.new_game(size, seed * 7919 % 2**64, now)
    for _step in range(rng.randrange(0, 250)):
        now += rng.choice([0.25, 1.5, 4.0, 3600.0])
        if game.awaiting_choice:
            game = engine.keep_going(game, now).game
        elif rng.random() < 0.08:
            game = engine.undo(game, now).game
        else:
            game = engine.play(game, rng.choice(DIRECTIONS), now).game
    return game


def _special_games() -> list[engine.Game]:
    won = engine.play(about_to_win(), "left", T0 + 12).game
    going = engine.keep_going(won, T0 + 20).game
    moved = engine.play(going, "down", T0 + 21).game
    unwon = engine.undo(won, T0 + 30).game
    over = engine.play(game_from_rows(NEAR_GAME_OVER, seed=2**64 - 1), "right", T0).game
    big = game_from_rows([[2**17] * 4, [2**16] * 4, [2] * 4, [0] * 4], clock_at=None)
    return [won, going, moved, unwon, over, big]


def _check_round_trip(game: engine.Game) -> None:
    saved = engine.to_dict(game)
    assert engine.from_dict(saved) == game
    text = json.dumps(saved, allow_nan=False)
    loaded = engine.from_dict(json.loads(text))
    assert loaded == game
    # A loaded game plays on exactly like the one that was never saved.
    for direction in DIRECTIONS:
        assert engine.play(loaded, direction, T0 + 2e6) == engine.play(game, direction, T0 + 2e6)
    assert engine.undo(loaded, T0 + 2e6) == engine.undo(game, T0 + 2e6)


@pytest.mark.parametrize("seed", range(60))
def test_random_games_survive_saving_and_loading(seed):
    _check_round_trip(_random_game(seed))


@pytest.mark.parametrize(
    "index",
    range(6),
    ids=[
        "awaiting choice",
        "kept going",
        "after keep going",
        "win undone",
        "game over",
        "big tiles",
    ],
)
def test_special_games_survive_saving_and_loading(index):
    _check_round_trip(_special_games()[index])


def test_random_games_cover_the_interesting_states():
    # Keeps the round-trip test honest: it sees histories, used undos and finished games.
    games = [_random_game(seed) for seed in range(60)]
    assert any(len(g.history) == 5 for g in games)
    assert any(0 < g.undos_left < 5 for g in games)
    assert any(g.undos_left == 0 for g in games)
    assert {g.size for g in games} == {4, 5, 6}
    assert any(g.moves > 150 for g in games)


# ---------------------------------------------------------------------------------------------
# Tampered saves are refused with EngineError, never another exception


def _base_save() -> dict:
    """A save with something in every field: a win, keep going, and three history entries."""
    won = engine.play(about_to_win(), "left", T0 + 12).game
    going = engine.keep_going(won, T0 + 20).game
    game = engine.play(engine.play(going, "down", T0 + 21).game, "right", T0 + 22).game
    saved = engine.to_dict(game)
    assert len(saved["h"]) == 3 and saved["w"] is not None and saved["kg"] is True
    return json.loads(json.dumps(saved))


BASE_KEYS = sorted(_base_save())


def _set(key, value):
    def mutate(d):
        d[key] = value
        return d

    return mutate


def _set_in(path, value):
    def mutate(d):
        target = d
        for step in path[:-1]:
            target = target[step]
        target[path[-1]] = value
        return d

    return mutate


def _drop(key):
    def mutate(d):
        del d[key]
        return d

    return mutate


def _also(*mutations):
    def mutate(d):
        for m in mutations:
            d = m(d)
        return d

    return mutate


def _history_moves(values):
    def mutate(d):
        for entry, moves in zip(d["h"], values, strict=True):
            entry[2] = moves
        return d

    return mutate


def _swap_history(d):
    d["h"][0], d["h"][1] = d["h"][1], d["h"][0]
    return d


MALFORMED = [
    # not a saved game at all
    pytest.param(lambda d: None, id="None"),
    pytest.param(lambda d: list(d.items()), id="list of pairs"),
    pytest.param(lambda d: json.dumps(d), id="JSON text instead of object"),
    pytest.param(lambda d: 42, id="number"),
    pytest.param(lambda d: {}, id="empty dict"),
    # every field is required, no other field is allowed
    *[pytest.param(_drop(key), id=f"missing {key}") for key in BASE_KEYS],
    pytest.param(_set("extra", 1), id="unknown key"),
    pytest.param(_set("V", 1), id="unknown key V"),
    # format version
    pytest.param(_set("v", 0), id="version 0"),
    pytest.param(_set("v", 2), id="version 2"),
    pytest.param(_set("v", "1"), id="version '1'"),
    pytest.param(_set("v", None), id="version None"),
    pytest.param(_set("v", True), id="version True"),
    pytest.param(_set("v", 1.0), id="version 1.0"),
    # size
    pytest.param(_set("n", 3), id="size 3"),
    pytest.param(_set("n", 7), id="size 7"),
    pytest.param(_set("n", "4"), id="size '4'"),
    pytest.param(_set("n", True), id="size True"),
    pytest.param(_set("n", 4.0), id="size 4.0"),
    pytest.param(_set("n", None), id="size None"),
    pytest.param(_set("n", 5), id="size 5 with a 4x4 board"),
    # board
    pytest.param(lambda d: _set("b", d["b"][:-1])(d), id="board 15 cells"),
    pytest.param(lambda d: _set("b", [*d["b"], 0])(d), id="board 17 cells"),
    pytest.param(_set("b", []), id="board empty list"),
    pytest.param(_set("b", "1100" * 4), id="board string"),
    pytest.param(_set("b", None), id="board None"),
    pytest.param(_set("b", {"0": 1}), id="board dict"),
    pytest.param(_set_in(["b", 5], -1), id="exponent -1"),
    pytest.param(_set_in(["b", 5], 18), id="exponent 18 on 4x4"),
    pytest.param(_set_in(["b", 5], 1000), id="exponent 1000"),
    pytest.param(_set_in(["b", 5], 1.0), id="exponent float"),
    pytest.param(_set_in(["b", 5], True), id="exponent bool"),
    pytest.param(_set_in(["b", 5], "1"), id="exponent str"),
    pytest.param(_set_in(["b", 5], None), id="exponent None"),
    pytest.param(_set("b", [1] + [0] * 15), id="board one tile"),
    pytest.param(_set("b", [0] * 16), id="board no tiles"),
    # score and moves
    pytest.param(_set("sc", -2), id="score negative"),
    pytest.param(_set("sc", 7048.0), id="score float"),
    pytest.param(_set("sc", 1.5), id="score fraction"),
    pytest.param(_set("sc", "7048"), id="score str"),
    pytest.param(_set("sc", True), id="score bool"),
    pytest.param(_set("sc", None), id="score None"),
    pytest.param(_set("sc", 2**63), id="score absurd"),
    pytest.param(_set("mv", -1), id="moves negative"),
    pytest.param(_set("mv", 43.0), id="moves float"),
    pytest.param(_set("mv", "43"), id="moves str"),
    # undos
    pytest.param(_set("ud", 6), id="undos 6"),
    pytest.param(_set("ud", -1), id="undos -1"),
    pytest.param(_set("ud", 5.0), id="undos float"),
    pytest.param(_set("ud", True), id="undos bool"),
    pytest.param(_set("ud", "5"), id="undos str"),
    pytest.param(_set("ud", 2), id="history longer than undos left"),
    pytest.param(_set("ud", 0), id="history with no undos left"),
    # history
    pytest.param(_set("h", None), id="history None"),
    pytest.param(_set("h", {}), id="history dict"),
    pytest.param(_set("h", "[]"), id="history str"),
    pytest.param(_set_in(["h", 0], "entry"), id="history entry str"),
    pytest.param(_set_in(["h", 0], None), id="history entry None"),
    pytest.param(_set_in(["h", 0], {}), id="history entry dict"),
    pytest.param(lambda d: _set_in(["h", 0], d["h"][0][:4])(d), id="history entry 4 fields"),
    pytest.param(lambda d: _set_in(["h", 0], [*d["h"][0], 0])(d), id="history entry 6 fields"),
    pytest.param(_set_in(["h", 1, 0], [1] * 15), id="history board short"),
    pytest.param(_set_in(["h", 1, 0], None), id="history board None"),
    pytest.param(_set_in(["h", 1, 0, 3], -1), id="history exponent -1"),
    pytest.param(_set_in(["h", 1, 0, 3], 18), id="history exponent 18"),
    pytest.param(_set_in(["h", 1, 0, 3], 1.0), id="history exponent float"),
    pytest.param(_set_in(["h", 1, 1], -4), id="history score negative"),
    pytest.param(_set_in(["h", 1, 1], 10.0), id="history score float"),
    pytest.param(_set_in(["h", 1, 2], -1), id="history moves negative"),
    pytest.param(_set_in(["h", 1, 2], 41.0), id="history moves float"),
    pytest.param(_set_in(["h", 1, 3], [41]), id="history win one field"),
    pytest.param(_set_in(["h", 1, 3], "won"), id="history win str"),
    pytest.param(_set_in(["h", 1, 3], [0, 1.0]), id="history win at move 0"),
    pytest.param(_set_in(["h", 1, 3], [41, -1.0]), id="history win negative time"),
    pytest.param(_set_in(["h", 1, 4], 1), id="history keep-going int"),
    pytest.param(_set_in(["h", 1, 4], None), id="history keep-going None"),
    pytest.param(_set_in(["h", 1, 0], [1] + [0] * 15), id="history board one tile"),
    pytest.param(_set_in(["h", 1, 0], [0] * 16), id="history board no tiles"),
    pytest.param(_set_in(["h", 0, 4], True), id="history kept going without win"),
    pytest.param(_set_in(["h", 1, 3], [42, 300.0]), id="history win after its move"),
    pytest.param(_set_in(["h", 2, 1], 10**9), id="history score above the current"),
    pytest.param(_set_in(["h", 2, 3], [40, 300.0]), id="history win changes later"),
    pytest.param(_set_in(["h", 2, 4], False), id="history keep going taken back"),
    pytest.param(_set("kg", False), id="keep going taken back"),
    pytest.param(_swap_history, id="history moves decreasing"),
    pytest.param(_history_moves([40, 40, 42]), id="history moves repeated"),
    pytest.param(_history_moves([40, 41, 43]), id="history moves reach current"),
    pytest.param(_history_moves([40, 41, 50]), id="history moves beyond current"),
    # win
    pytest.param(_set("w", []), id="win empty"),
    pytest.param(_set("w", [41]), id="win one field"),
    pytest.param(_set("w", [41, 312.0, 0]), id="win three fields"),
    pytest.param(_set("w", "won"), id="win str"),
    pytest.param(_set("w", True), id="win bool"),
    pytest.param(_set("w", {"moves": 41, "seconds": 312.0}), id="win dict"),
    pytest.param(_set("w", [0, 312.0]), id="win at move 0"),
    pytest.param(_set("w", [-1, 312.0]), id="win moves negative"),
    pytest.param(_set("w", [41.0, 312.0]), id="win moves float"),
    pytest.param(_set("w", [True, 312.0]), id="win moves bool"),
    pytest.param(_set("w", [41, -1.0]), id="win time negative"),
    pytest.param(_set("w", [41, math.nan]), id="win time NaN"),
    pytest.param(_set("w", [41, math.inf]), id="win time inf"),
    pytest.param(_set("w", [41, "312"]), id="win time str"),
    pytest.param(_set("w", [41, None]), id="win time None"),
    pytest.param(_set("w", [44, 312.0]), id="win after the current move"),
    pytest.param(_set("ew", False), id="win without ever-won"),
    # keep going / ever won
    pytest.param(_set("w", None), id="kept going without win"),
    pytest.param(_set("kg", 1), id="keep-going int"),
    pytest.param(_set("kg", "true"), id="keep-going str"),
    pytest.param(_set("kg", None), id="keep-going None"),
    pytest.param(_set("ew", 1), id="ever-won int"),
    pytest.param(_set("ew", "yes"), id="ever-won str"),
    pytest.param(_set("ew", None), id="ever-won None"),
    # play time and clock
    pytest.param(_set("pt", math.nan), id="play time NaN"),
    pytest.param(_set("pt", math.inf), id="play time inf"),
    pytest.param(_set("pt", -math.inf), id="play time -inf"),
    pytest.param(_set("pt", -1.0), id="play time negative"),
    pytest.param(_set("pt", -1), id="play time negative int"),
    pytest.param(_set("pt", "60"), id="play time str"),
    pytest.param(_set("pt", None), id="play time None"),
    pytest.param(_set("pt", True), id="play time bool"),
    pytest.param(_set("pt", 10**400), id="play time int too big for a float"),
    pytest.param(_set("ca", math.nan), id="clock NaN"),
    pytest.param(_set("ca", math.inf), id="clock inf"),
    pytest.param(_set("ca", -5.0), id="clock negative"),
    pytest.param(_set("ca", "now"), id="clock str"),
    pytest.param(_set("ca", True), id="clock bool"),
    pytest.param(_set("ca", []), id="clock list"),
    pytest.param(_set("ca", 10**400), id="clock int too big for a float"),
    # seed
    pytest.param(_set("seed", -1), id="seed negative"),
    pytest.param(_set("seed", 2**64), id="seed 2**64"),
    pytest.param(_set("seed", 2**70), id="seed 2**70"),
    pytest.param(_set("seed", 1.5), id="seed float"),
    pytest.param(_set("seed", 1.0), id="seed whole float"),
    pytest.param(_set("seed", "7"), id="seed str"),
    pytest.param(_set("seed", True), id="seed bool"),
    pytest.param(_set("seed", None), id="seed None"),
]


def test_the_base_save_loads():
    game = engine.from_dict(_base_save())
    assert game.win == Win(41, 312.0) and game.kept_going and len(game.history) == 3


@pytest.mark.parametrize("mutate", MALFORMED)
def test_tampered_saves_are_refused(mutate):
    data = mutate(copy.deepcopy(_base_save()))
    with pytest.raises(engine.EngineError):
        engine.from_dict(data)


@pytest.mark.parametrize(
    "mutate",
    [
        pytest.param(_set("seed", 0), id="seed 0"),
        pytest.param(_set("seed", 2**64 - 1), id="seed 2**64-1"),
        pytest.param(_set_in(["b", 5], 17), id="exponent 17 (131072) on 4x4"),
        pytest.param(_set("pt", 312), id="play time as int"),
        pytest.param(_set("ca", None), id="clock stopped"),
        pytest.param(_also(_set("h", []), _set("ud", 0)), id="no undos left, no history"),
        pytest.param(
            _also(_set("w", None), _set("kg", False), _set("h", [])), id="won once, win undone"
        ),
        pytest.param(
            _also(
                _set("w", [43, 312.0]),
                *(
                    _set_in(["h", i, field], value)
                    for i in (1, 2)
                    for field, value in ((3, None), (4, False))
                ),
            ),
            id="win at the current move",
        ),
    ],
)
def test_unusual_but_valid_saves_load(mutate):
    data = mutate(copy.deepcopy(_base_save()))
    game = engine.from_dict(data)
    assert engine.to_dict(game) == data
    assert engine.from_dict(engine.to_dict(game)) == game
