"""`bot2048 verify RECORD.json`: what it prints and its exit code, for a true record, a
tampered one and a file that is no record."""

from __future__ import annotations

import json

import engine
from bot.__main__ import main

SALT = "ab" * 16


def _record() -> dict:
    game, actions = engine.new_game(5, 4242, 0.0), ""
    for code in "lurdlurdlurd":
        turn = engine.act(game, engine.CODE_ACTIONS[code], 0.0)
        if turn.changed:
            game, actions = turn.game, actions + code
    committed = engine.commitment(SALT, 4242, 5, "challenge:abcdefgh")
    return engine.record(
        game, actions, salt=SALT, subject="challenge:abcdefgh", committed=committed
    )


def test_a_true_record_is_verified(tmp_path, capsys):
    path = tmp_path / "record.json"
    path.write_text(json.dumps(_record()))
    assert main(["verify", str(path)], prog="bot2048") == 0
    out = capsys.readouterr().out
    assert "commitment: matches" in out and "replay: gives the stated score" in out
    assert out.rstrip().endswith("verified")


def test_a_tampered_record_fails_with_exit_code_1(tmp_path, capsys):
    data = _record()
    path = tmp_path / "record.json"
    path.write_text(json.dumps({**data, "score": data["score"] + 2}))
    assert main(["verify", str(path)], prog="bot2048") == 1
    out = capsys.readouterr().out
    assert "replay: DOES NOT MATCH" in out and "score: the record says" in out
    assert out.rstrip().endswith("NOT VERIFIED")


def test_a_file_that_is_no_record_fails_with_exit_code_1(tmp_path, capsys):
    path = tmp_path / "record.json"
    for content in ("not json", "[1, 2]", json.dumps({"format": "bot2048-record/1"})):
        path.write_text(content)
        assert main(["verify", str(path)], prog="bot2048") == 1
        assert "not a record that can be checked" in capsys.readouterr().err
    assert main(["verify", str(tmp_path / "missing.json")], prog="bot2048") == 1
