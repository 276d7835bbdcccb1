"""How long the review of a game takes: 100, 500 and 1,000-move 4×4 games, on one core.

Run from the repository root:

    .venv/bin/python -m benchmarks.review
    .venv/bin/python -m benchmarks.review --repeat 5 --big 300   # 5×5 and 6×6 as well

Times are CPU seconds of this process (`time.process_time`): the review runs in one picture
worker, on one core, so that is what it costs the pool whatever else the machine is doing;
the wall time is printed beside it, with the machine and its load average. The 4×4 games are
the first 100, 500 and 1,000 moves of tests/data/long_game.json (the hint's solver at a
fixed depth, with its wins, its keep going and three undos), reviewed at the review's fixed
depth (`engine.solver.review.REVIEW_DEPTH`); the picture of the three costliest moves is
timed apart. Target: at most 10 s for 1,000 moves.

Why a fixed depth and not the hint's 50 ms budget: 50 ms a move is 50 s for 1,000 moves.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time

import engine
from benchmarks.cards import GAME_FILE
from bot.presentation import images
from bot.presentation.i18n import translator
from engine.solver import GameReview, review_game, warm_up
from engine.solver.review import GENERIC_REVIEW_DEPTH, REVIEW_DEPTH

LENGTHS = (100, 500, 1000)
TARGET_S = 10.0


def machine() -> str:
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as info:
            model = next(line.split(":", 1)[1].strip() for line in info if "model name" in line)
    except (OSError, StopIteration):
        pass
    return f"{model}, {os.cpu_count()} cores, Python {platform.python_version()}"


def load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def prefix(actions: str, moves: int) -> str:
    """The shortest start of the log whose game has `moves` moves standing."""
    for end in range(len(actions) + 1):
        if engine.replay(4, 1, actions[:end]).moves >= moves:
            return actions[:end]
    return actions


def timed(size: int, seed: int, actions: str, repeat: int) -> tuple[list[float], float, GameReview]:
    """CPU seconds of each of `repeat` reviews, their median wall time, and the review."""
    cpu, wall, made = [], [], []
    for _ in range(max(1, repeat)):
        began, began_wall = time.process_time(), time.perf_counter()
        made.append(review_game(size, seed, actions))
        cpu.append(time.process_time() - began)
        wall.append(time.perf_counter() - began_wall)
    return cpu, statistics.median(wall), made[-1]


def bench_4x4(repeat: int) -> bool:
    game = json.loads(GAME_FILE.read_text())
    ok = True
    t = translator("en")
    for moves in LENGTHS:
        actions = prefix(game["actions"], moves)
        cpu, wall, made = timed(4, game["seed"], actions, repeat)
        began = time.process_time()
        picture = images.review_png(t, 4, "Anna", made.costliest)
        drawn = time.process_time() - began
        per_move = statistics.median(cpu) / made.moves * 1000
        print(
            f"4×4, {made.moves:>5} moves ({len(actions)} actions): "
            f"CPU median {statistics.median(cpu):.2f} s, max {max(cpu):.2f} s "
            f"({per_move:.2f} ms a move), wall {wall:.2f} s; picture {drawn * 1000:.0f} ms, "
            f"{len(picture) / 1000:.0f} KB"
        )
        if moves == 1000:
            ok = max(cpu) + drawn <= TARGET_S
    return ok


def bench_big(moves: int, repeat: int) -> None:
    """5×5 and 6×6 (the pure-Python path): a greedy player's game, `moves` long at most."""
    for size in (5, 6):
        game, codes = engine.new_game(size, 1, 0.0), ""
        while len(codes) < moves and not game.over:
            code = next(c for c in "dlru" if engine.act(game, engine.CODE_ACTIONS[c], 0.0).changed)
            game, codes = engine.act(game, engine.CODE_ACTIONS[code], 0.0).game, codes + code
        cpu, wall, _ = timed(size, 1, codes, repeat)
        print(
            f"{size}×{size}, {len(codes):>5} moves: CPU median {statistics.median(cpu):.2f} s "
            f"({statistics.median(cpu) / len(codes) * 1000:.1f} ms a move), wall {wall:.2f} s"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs of each game (default 3)")
    parser.add_argument("--big", type=int, default=0, help="also 5×5 and 6×6 games this long")
    args = parser.parse_args(argv)
    print(f"machine: {machine()}")
    print(f"load average before: {load()}")
    print(f"depth: {REVIEW_DEPTH} moves on 4×4, {GENERIC_REVIEW_DEPTH} on 5×5 and 6×6")
    warm_up()  # as the picture worker's first review would: compiled code loaded once
    ok = bench_4x4(args.repeat)
    if args.big:
        bench_big(args.big, args.repeat)
    print(f"load average after: {load()}")
    print(f"target met (1,000 moves in ≤ {TARGET_S:.0f} s)" if ok else "target missed")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
