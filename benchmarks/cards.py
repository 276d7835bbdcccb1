"""How long a shared card and a replay take to draw, and how big they are.

Run from the repository root:

    .venv/bin/python -m benchmarks.cards              # cards and the replay of a 1,000-move game
    .venv/bin/python -m benchmarks.cards --make-game  # rewrite tests/data/long_game.json

Times are CPU seconds of this process (`time.process_time`): the renderers use one core
(the video encoder is set to one thread), so that is the time one worker of the bot's pool
spends, whatever else the machine is doing. Targets: a card in at most 40 ms and 150 KB; the
replay of a 1,000-move game in at most 3 s and 2 MB.

The long game is played by the hint's solver at a fixed depth (no time budget, so anyone gets
the same game): it wins, keeps going, and undoes a move three times on the way to 1,000 moves.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import engine
from benchmarks.pictures import draw_all, report
from bot.presentation import images
from bot.presentation.i18n import LANGUAGES, translator
from engine.solver import best_move

GAME_FILE = Path(__file__).resolve().parent.parent / "tests" / "data" / "long_game.json"
GAME_SEED = 1
GAME_MOVES = 1000
GAME_DEPTH = 2
UNDO_AFTER = (100, 400, 700)  # undo once when the game reaches these many moves
CARD_TARGET_MS = 40.0
CARD_TARGET_BYTES = 150_000
REPLAY_TARGET_S = 3.0
REPLAY_TARGET_BYTES = 2_000_000


def make_game() -> dict[str, object]:
    """Play the long game; return it as the test data stores it."""
    game = engine.new_game(4, GAME_SEED, 0.0)
    codes: list[str] = []
    win_at = 0
    undone: set[int] = set()
    while game.moves < GAME_MOVES:
        if game.awaiting_choice:
            action: engine.Action = "keep"
        elif game.moves in UNDO_AFTER and game.moves not in undone:
            undone.add(game.moves)
            action = "undo"
        else:
            hint = best_move(game.board, 4, budget_ms=None, max_depth=GAME_DEPTH)
            if hint is None:
                break
            action = hint.direction
        turn = engine.act(game, action, 0.0)
        game = turn.game
        codes.append(engine.ACTION_CODES[action])
        if turn.outcome is engine.Outcome.WON:
            win_at = len(codes)
    assert game.win is not None, "the long game must win: pick another seed"
    return {
        "size": 4,
        "seed": GAME_SEED,
        "actions": "".join(codes),
        "moves": game.moves,
        "score": game.score,
        "highest": game.highest,
        "win_moves": game.win.moves,
        "win_at": win_at,
    }


def _card_positions() -> list[images.CardFigures]:
    """Cards of every size: the long game every 50 actions, and 5×5 and 6×6 games."""
    data = json.loads(GAME_FILE.read_text())
    cards = [
        images.card_figures(game, 50_000, "Anna")
        for index, game in enumerate(engine.replay_steps(4, data["seed"], data["actions"]))
        if index % 50 == 0
    ]
    for size in (5, 6):
        game = engine.new_game(size, 7, 0.0)
        for step in range(2000):
            turn = engine.act(game, engine.DIRECTIONS[step % 3 if step % 7 else 3], 0.0)
            game = turn.game
            if step % 100 == 0:
                cards.append(images.card_figures(game, 100_000, "Daan de Vries"))
    return cards


def bench_cards() -> bool:
    times, sizes = draw_all(images.card_png, _card_positions())
    print(f"cards: {len(times)} (4×4, 5×5, 6×6 in {', '.join(LANGUAGES)})")
    return report("time per card", times, sizes, CARD_TARGET_MS, CARD_TARGET_BYTES)


def bench_replay() -> bool:
    data = json.loads(GAME_FILE.read_text())
    actions = data["actions"]
    final = images.card_figures(engine.replay(4, data["seed"], actions), 50_000, "Anna")
    t = translator("en")
    plan = images.replay_plan(len(actions))
    runs = []
    for _ in range(3):
        start = time.process_time()
        video = images.replay_mp4(t, data["seed"], actions, final)
        runs.append(time.process_time() - start)
    print(
        f"replay: {len(actions)} actions → {plan.frames} frames at {plan.fps} fps "
        f"({plan.frames / plan.fps:.1f} s), {len(video) / 1e6:.2f} MB "
        f"(target {REPLAY_TARGET_BYTES / 1e6:.0f} MB)"
    )
    print(
        f"  render time: best {min(runs):.2f} s, worst {max(runs):.2f} s of {len(runs)} "
        f"(target {REPLAY_TARGET_S:.0f} s)"
    )
    return min(runs) <= REPLAY_TARGET_S and len(video) <= REPLAY_TARGET_BYTES


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--make-game", action="store_true", help="rewrite the long game file")
    args = parser.parse_args(argv)
    if args.make_game:
        GAME_FILE.write_text(json.dumps(make_game(), indent=1) + "\n")
        print(f"wrote {GAME_FILE}")
        return 0
    ok = bench_cards()
    ok = bench_replay() and ok
    print("all targets met" if ok else "a target was missed")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
