"""How long one bot tap costs the engine, and how fast raw slides are.

Run from the repository root:  .venv/bin/python -m benchmarks.engine

A tap is what the bot does for every button press: load the saved game (`from_dict`), play one
valid move with its spawn (`play`), and save the result again (`to_dict`). The positions are
real mid-game saves, taken from games played with a simple corner strategy, so history, score
and tile spread look like what the database holds. JSON encoding and I/O are not included.
"""

from __future__ import annotations

import gc
import json
import statistics
import sys
import time

import engine
from engine.board import move

TARGET_US = {4: 50.0, 5: None, 6: 120.0}
POSITIONS_PER_SIZE = 300  # saved states sampled per board size
TAP_ROUNDS = 30  # every position is tapped this many times
SLIDE_BOARDS = 2000
SLIDE_ROUNDS = 25

# Corner strategy: keep pressing down/left, use right when stuck, up only as a last resort.
PREFERENCE = ("down", "left", "right", "up")


def _valid_directions(game: engine.Game) -> list[str]:
    return [d for d in engine.DIRECTIONS if move(game.board, game.size, d)[0] != game.board]


def _collect_positions(size: int, count: int) -> list[tuple[dict, str]]:
    """Saved games (as the database returns them) paired with a valid direction to tap."""
    positions: list[tuple[dict, str]] = []
    seed = 1
    while len(positions) < count:
        now = 1_700_000_000.0
        game = engine.new_game(size, seed, now)
        seed += 1
        for step in range(600):
            now += 1.5
            if game.awaiting_choice:
                game = engine.keep_going(game, now).game
            valid = _valid_directions(game)
            if not valid:
                break
            # Mid-game only: skip the opening moves, then keep every third position.
            if step >= 40 and step % 3 == 0:
                # Rotate which direction is tapped so all four get measured.
                turn = len(positions) % 4
                rotated = engine.DIRECTIONS[turn:] + engine.DIRECTIONS[:turn]
                tap = next(d for d in rotated if d in valid)
                saved = json.loads(json.dumps(engine.to_dict(game)))
                positions.append((saved, tap))
                if len(positions) == count:
                    break
            direction = next(d for d in PREFERENCE if d in valid)
            game = engine.play(game, direction, now).game
    return positions


def _percentile(samples: list[int], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def bench_taps(size: int) -> tuple[float, float, int, float]:
    positions = _collect_positions(size, POSITIONS_PER_SIZE)
    from_dict, play, to_dict = engine.from_dict, engine.play, engine.to_dict
    clock = time.perf_counter_ns
    now = 1_800_000_000.0
    # Warm-up: fill the slide cache the way a running bot already has it filled.
    for saved, tap in positions:
        to_dict(play(from_dict(saved), tap, now).game)
    samples: list[int] = []
    gc.disable()
    try:
        for _ in range(TAP_ROUNDS):
            for saved, tap in positions:
                start = clock()
                to_dict(play(from_dict(saved), tap, now).game)
                samples.append(clock() - start)
    finally:
        gc.enable()
    history = statistics.mean(len(saved["h"]) for saved, _ in positions)
    median_us = statistics.median(samples) / 1000
    return median_us, _percentile(samples, 0.95) / 1000, len(samples), history


def bench_slides(size: int) -> float:
    boards = [engine.from_dict(saved).board for saved, _ in _collect_positions(size, SLIDE_BOARDS)]
    work = [(board, direction) for board in boards for direction in engine.DIRECTIONS]
    for board, direction in work:
        move(board, size, direction)
    gc.disable()
    try:
        start = time.perf_counter_ns()
        for _ in range(SLIDE_ROUNDS):
            for board, direction in work:
                move(board, size, direction)
        elapsed = time.perf_counter_ns() - start
    finally:
        gc.enable()
    return SLIDE_ROUNDS * len(work) / (elapsed / 1e9)


def main() -> None:
    print(
        f"Python {sys.version.split()[0]}; one tap = from_dict -> play (valid move + spawn)"
        " -> to_dict"
    )
    print(f"{'board':<6} {'median':>10} {'p95':>10} {'target':>12} {'taps':>7} {'avg history':>11}")
    for size in engine.SIZES:
        median, p95, taps, history = bench_taps(size)
        target = TARGET_US[size]
        verdict = (
            "-"
            if target is None
            else (f"<= {target:.0f} " + ("ok" if median <= target else "MISSED"))
        )
        print(
            f"{size}x{size:<4} {median:>7.1f} us {p95:>7.1f} us {verdict:>12} {taps:>7}"
            f" {history:>11.1f}"
        )
    print()
    print("raw engine.board.move (no spawn), realistic mid-game boards, all four directions:")
    for size in (4, 6):
        rate = bench_slides(size)
        print(f"{size}x{size:<4} {rate:>12,.0f} slides/s  ({1e6 / rate:.2f} us per slide)")


if __name__ == "__main__":
    main()
