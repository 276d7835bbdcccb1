"""How strong and how fast the move-hint solver (`engine.solver`) is, before and after a change.

Run from the repository root:

    .venv/bin/python -m benchmarks.solver                  # everything, at the issue's sizes
    .venv/bin/python -m benchmarks.solver --sizes 4 --games 24 --processes 4 --cpu-clock \
        --baseline /tmp/before                               # the same seeds, two versions
    .venv/bin/python -m benchmarks.solver --sizes 5,6 --big-games 4 --max-moves 6000
    .venv/bin/python -m benchmarks.solver --agreement-only
    .venv/bin/python -m benchmarks.solver --make-positions  # rewrite the test data (slow)

`--baseline DIR` names a directory holding an earlier version's `engine` package (for
example `git archive main engine | tar -x -C DIR`): its processes import that one, and it
plays the same seeds and the same positions, at the same time and so under the same load.
`--cpu-clock` gives the search's budget and the reported times in each process's CPU time:
on a machine shared with other work, a 50 ms wall-clock budget is a fraction of a core.

Three measurements:

* 4×4 self-play: games with fixed seeds (1, 2, 3, ...), every move the hint at its own budget
  (50 ms hard cap), one game per process at a time, the processes split between the
  versions. Prints the share of games reaching 2048 ... 32768 with its 95 % confidence
  interval (Wilson), the median score, the time per decision and moves per second. A game
  that reaches 16384 takes about 12,000 moves, minutes of CPU, so stopping the run early
  (Ctrl-C, or SIGTERM as `timeout 2h ...` sends) reports the seeds every version finished.
* 5×5 and 6×6: the solver at a 100 ms cap against a greedy player (the valid move that scores
  most right now, ties to the first in up/down/left/right order) on the same seeds, and with
  `--baseline` the earlier version's solver too, at the same time. All play
  until the game is over or `--max-moves` is reached; a capped solver game that is still alive
  scores what it had at the cap, which can only understate it.
* Agreement: on the positions in tests/data/solver_positions.json, the share of hints that
  pick the move a much deeper search picked, and the positions searched per second.
  `--make-positions` regenerates that file: it plays a few games with the depth-3 solver
  (deterministic, so anyone gets the same games), keeps every so many positions that have
  more than one valid move, and searches each to `DEEP_DEPTH` player moves without a time
  limit. Both use the probability cutoff 1e-4 of the published programs, so the file can be
  remade exactly, as long as the search itself is unchanged. tests/engine/test_solver.py
  checks the CI setting (depth 3) against the agreement measured here.
"""

from __future__ import annotations

import argparse
import json
import math
import signal
import statistics
import sys
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from multiprocessing import Pool, get_context
from multiprocessing.pool import Pool as PoolType
from pathlib import Path
from queue import SimpleQueue
from threading import Thread

import engine
from engine.board import DIRECTIONS, move
from engine.solver import DEFAULT_BUDGET_MS, best_move, warm_up

POSITIONS_FILE = Path(__file__).resolve().parent.parent / "tests" / "data" / "solver_positions.json"
MILESTONES = (2048, 4096, 8192, 16384, 32768)
TARGETS = {16384: 0.90, 32768: 0.30}
BIG_BUDGET_MS = 100.0
BIG_TARGET_SIZES = (5, 6)

# The test data: positions from games of the depth-3 solver, searched DEEP_DEPTH moves deep.
POSITION_COUNT = 300
POSITION_SEEDS = (9001, 9002, 9003, 9004, 9005, 9006)
POSITION_PLAY_DEPTH = 3
# As deep as a hint may ever search (`MAX_SEARCH_DEPTH`): a 50 ms hint reaches depth 7 or 8
# on most of these positions, so a shallower reference would count its deeper choices as
# disagreements. Remaking the file takes about four minutes of two cores.
DEEP_DEPTH = 10
# The probability cutoff of both the games and the deep search: the published programs'
# value, pinned so that the file can be remade exactly whatever the solver's own default.
REFERENCE_CUTOFF = 1e-4
CI_DEPTH = 3  # keep equal to tests/engine/test_solver.py


@dataclass
class GameRecord:
    """One finished (or capped) game."""

    size: int
    seed: int
    player: str
    score: int = 0
    highest: int = 0
    moves: int = 0
    over: bool = False
    seconds: float = 0.0
    decision_ms: list[float] = field(default_factory=list)
    depths: Counter[int] = field(default_factory=Counter)


def _greedy(board: tuple[int, ...], size: int) -> str | None:
    """The valid move that scores the most points right now (first of equals)."""
    best: tuple[int, str] | None = None
    for direction in DIRECTIONS:
        after, gained = move(board, size, direction)
        if after != board and (best is None or gained > best[0]):
            best = (gained, direction)
    return None if best is None else best[1]


def play_game(job: tuple[int, int, str, float | None, int | None, int | None]) -> GameRecord:
    """Play one seeded game with the solver or the greedy player; keep going after 2048.

    The game clock is irrelevant here, so every action gets the same `now`.
    """
    size, seed, player, budget_ms, max_depth, max_moves = job
    record = GameRecord(size=size, seed=seed, player=player)
    game = engine.new_game(size, seed, 0.0)
    began = time.perf_counter()
    clock = _CLOCK
    while max_moves is None or game.moves < max_moves:
        if game.awaiting_choice:
            game = engine.keep_going(game, 0.0).game
        if player == "greedy":
            direction = _greedy(game.board, size)
        else:
            start = clock()
            hint = best_move(game.board, size, budget_ms=budget_ms, max_depth=max_depth)
            record.decision_ms.append((clock() - start) * 1000.0)
            direction = None if hint is None else hint.direction
            if hint is not None:
                record.depths[hint.depth] += 1
        if direction is None:
            break
        game = engine.play(game, direction, 0.0).game  # type: ignore[arg-type]
    record.score = game.score
    record.highest = max(game.board)
    record.moves = game.moves
    record.over = game.over
    record.seconds = time.perf_counter() - began
    return record


# The clock of the decisions' times and of the search's budget in this process: wall time,
# or with --cpu-clock this process's CPU time (see `_start`).
_CLOCK = time.perf_counter


def _start(cpu_clock: bool) -> None:
    """A pool worker's start: the solver warmed up, and with `cpu_clock` timed by CPU time.

    On a machine shared with other work, a wall-clock budget measures the load as much as the
    solver: a process given a fifth of a core searches a fifth as deep. CPU time gives every
    move the budget of one whole core. The search reads `perf_counter` from its modules'
    namespaces, this version's and earlier ones alike, so replacing that name there is all
    it takes.
    """
    global _CLOCK
    warm_up()
    if cpu_clock:
        _CLOCK = time.process_time
        for name, module in list(sys.modules.items()):
            if name.startswith("engine.solver") and hasattr(module, "perf_counter"):
                module.perf_counter = time.process_time  # type: ignore[attr-defined]


def _pool(processes: int, baseline: Path | None = None, cpu_clock: bool = False) -> PoolType:
    """A pool of `processes` new interpreters, each with the solver warmed up.

    With `baseline`, they import `engine` from that directory instead (a copy of an earlier
    version's package): "spawn" starts them with the path they are given, put first here
    while they start (a forked process would keep this one's `engine`).
    """
    saved = list(sys.path)
    if baseline is not None:
        sys.path.insert(0, str(baseline))
    try:
        return get_context("spawn").Pool(processes, initializer=_start, initargs=(cpu_clock,))
    finally:
        sys.path[:] = saved


def _run(
    jobs: list, processes: int, label: str, pool: PoolType | None = None
) -> Iterator[GameRecord]:
    """Play the jobs on a pool (one game per process at a time), reporting progress."""
    with pool or Pool(processes, initializer=warm_up) as running:
        for done, record in enumerate(running.imap_unordered(play_game, jobs, chunksize=1), 1):
            print(
                f"  [{label} {done}/{len(jobs)}] seed {record.seed:>3} {record.player:<6}"
                f" score {record.score:>8} highest {record.highest:>6} moves {record.moves:>6}"
                f"{'' if record.over else ' (capped, alive)'} in {record.seconds:.0f} s",
                file=sys.stderr,
                flush=True,
            )
            yield record


def _percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def wilson(successes: int, trials: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a share (95 % by default), sound at 0 %, 100 % and few games."""
    if trials == 0:
        return 0.0, 1.0
    share = successes / trials
    scale = 1 + z * z / trials
    centre = (share + z * z / (2 * trials)) / scale
    half = z * math.sqrt(share * (1 - share) / trials + z * z / (4 * trials * trials)) / scale
    return max(0.0, centre - half), min(1.0, centre + half)


def _interleave(streams: list[Iterator[GameRecord]]) -> Iterator[GameRecord]:
    """Records from several pools as they come, every pool playing at the same time."""
    queue: SimpleQueue[GameRecord | None] = SimpleQueue()

    def drain(stream: Iterator[GameRecord]) -> None:
        for record in stream:
            queue.put(record)
        queue.put(None)

    threads = [Thread(target=drain, args=(stream,), daemon=True) for stream in streams]
    for thread in threads:
        thread.start()
    open_streams = len(threads)
    while open_streams:
        record = queue.get()
        if record is None:
            open_streams -= 1
        else:
            yield record


def bench_self_play(
    games: int,
    budget_ms: float,
    processes: int,
    first_seed: int = 1,
    baseline: Path | None = None,
    cpu_clock: bool = False,
) -> None:
    """4×4 games on the same seeds; with `baseline`, that version plays them too, at once.

    The processes are split between the two versions, so both meet the same load.
    """
    seeds = range(first_seed, first_seed + games)
    players = ["solver"] if baseline is None else ["solver", "before"]
    each = max(1, processes // len(players))
    # The pools start here, one after the other: `_pool` changes the path while it starts.
    pools = [_pool(each, baseline if player == "before" else None, cpu_clock) for player in players]
    streams = [
        _run(
            [(4, seed, player, budget_ms, None, None) for seed in seeds],
            each,
            f"4x4 {player}",
            pool,
        )
        for player, pool in zip(players, pools, strict=True)
    ]
    records: list[GameRecord] = []
    try:
        records.extend(_interleave(streams))
    except KeyboardInterrupt:
        # `timeout` signals the child, then its whole process group: once is enough here.
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        # Stopped early (Ctrl-C, or SIGTERM from a time limit: see `main`): report the seeds
        # that every version finished. With one process per version those are the first seeds in
        # order, so no version's list leans towards its short games.
        finished = [{r.seed for r in records if r.player == player} for player in players]
        common = set.intersection(*finished)
        print(f"stopped early: seeds finished by every version: {sorted(common)}")
        records = [r for r in records if r.seed in common]
        if not records:
            return
    records.sort(key=lambda r: r.seed)
    print(
        f"4x4 self-play: {games} games (seeds {seeds[0]}-{seeds[-1]}), "
        f"{budget_ms:g} ms hard cap per move ({'CPU' if cpu_clock else 'wall'} time),"
        f" {each} process(es) per version"
    )
    for player in players:
        _report_self_play(
            "this version" if player == "solver" else f"before ({baseline})",
            [record for record in records if record.player == player],
            budget_ms,
        )


def _report_self_play(label: str, records: list[GameRecord], budget_ms: float) -> None:
    times = [ms for record in records for ms in record.decision_ms]
    depths: Counter[int] = Counter()
    for record in records:
        depths.update(record.depths)
    print(f" {label}:")
    for tile in MILESTONES:
        reached = sum(record.highest >= tile for record in records)
        low, high = wilson(reached, len(records))
        target = TARGETS.get(tile)
        verdict = "" if target is None else f"   target >= {target:.0%}"
        print(
            f"  reached {tile:>5}: {reached:>3}/{len(records)} = {reached / len(records):6.1%}"
            f"  (95% CI {low:6.1%} - {high:6.1%}){verdict}"
        )
    print(f"  median score: {statistics.median(r.score for r in records):,.0f}")
    print(f"  highest tiles: {dict(sorted(Counter(r.highest for r in records).items()))}")
    p95 = _percentile(times, 0.95)
    print(
        f"  per decision: mean {statistics.mean(times):.1f} ms, p95 {p95:.1f} ms,"
        f" max {max(times):.1f} ms over {len(times):,} decisions"
        f" ({1000.0 / statistics.mean(times):.0f} moves/s)"
    )
    over = sum(ms > budget_ms for ms in times)
    print(f"  decisions over the {budget_ms:g} ms cap: {over} ({over / len(times):.2%})")
    total = sum(depths.values())
    spread = ", ".join(f"{d}: {n / total:.1%}" for d, n in sorted(depths.items()))
    print(f"  depth reached (0 = forced move): {spread}")
    print(f"  wall time per game: median {statistics.median(r.seconds for r in records):.0f} s")


def bench_big(
    sizes: Iterable[int],
    games: int,
    budget_ms: float,
    processes: int,
    max_moves: int | None,
    baseline: Path | None = None,
    cpu_clock: bool = False,
) -> None:
    """5×5 and 6×6 games on the same seeds, the solver against the greedy player; with
    `baseline`, that version's solver plays them too, at once, as in `bench_self_play`."""
    versions = ["solver"] if baseline is None else ["solver", "before"]
    each = max(1, processes // len(versions))
    # The pools start here, one after the other: `_pool` changes the path while it starts.
    pools = [_pool(each, baseline if v == "before" else None, cpu_clock) for v in versions]
    jobs: dict[str, list] = {version: [] for version in versions}
    for size in sizes:
        for seed in range(1, games + 1):
            for version in versions:
                jobs[version].append((size, seed, version, budget_ms, None, max_moves))
            jobs["solver"].append((size, seed, "greedy", None, None, max_moves))
    streams = [
        _run(jobs[version], each, f"big {version}", pool)
        for version, pool in zip(versions, pools, strict=True)
    ]
    records = list(_interleave(streams))
    cap = "no move cap" if max_moves is None else f"capped at {max_moves} moves"
    clock = "CPU" if cpu_clock else "wall"
    for size in sorted(set(sizes)):
        print(
            f"{size}x{size}: {games} games (seeds 1-{games}), solver at a {budget_ms:g} ms cap"
            f" ({clock} time) vs greedy one-ply, {cap}"
        )
        medians = {}
        for player in (*versions, "greedy"):
            mine = [r for r in records if r.size == size and r.player == player]
            medians[player] = statistics.median(r.score for r in mine)
            alive = sum(not r.over for r in mine)
            line = (
                f"  {player:<6} median score {medians[player]:>10,.0f}"
                f"   median highest {statistics.median(r.highest for r in mine):>7,.0f}"
                f"   median moves {statistics.median(r.moves for r in mine):>7,.0f}"
                f"   alive at cap {alive}/{len(mine)}"
            )
            if player != "greedy":
                times = [ms for r in mine for ms in r.decision_ms]
                line += (
                    f"   per decision mean {statistics.mean(times):.1f} ms,"
                    f" p95 {_percentile(times, 0.95):.1f} ms, max {max(times):.1f} ms"
                )
            print(line)
        beaten = medians["solver"] > medians["greedy"]
        print(f"  solver beats greedy: {'yes' if beaten else 'NO'}")
        if baseline is not None:
            scores = {
                player: {r.seed: r.score for r in records if r.size == size and r.player == player}
                for player in versions
            }
            better = sum(
                scores["solver"][seed] >= scores["before"][seed] for seed in scores["solver"]
            )
            print(f"  this version scores at least as much as before on {better}/{games} seeds")


def load_positions(path: Path = POSITIONS_FILE) -> dict:
    return json.loads(path.read_text())


def agreement(
    data: dict, budget_ms: float | None, max_depth: int | None
) -> tuple[float, float, float]:
    """Share of positions where the hint equals the stored deep move, mean ms per hint (on
    the search's clock), and positions searched per second."""
    agree = 0
    spent = 0.0
    nodes = 0
    for item in data["positions"]:
        start = _CLOCK()
        hint = best_move(tuple(item["board"]), data["size"], budget_ms, max_depth)
        spent += _CLOCK() - start
        agree += hint is not None and hint.direction == item["move"]
        nodes += 0 if hint is None else hint.nodes
    count = len(data["positions"])
    return agree / count, spent * 1000.0 / count, nodes / spent if spent else 0.0


def _agreement_rows(budget_ms: float) -> list[tuple[str, float, float, float]]:
    """The agreement at depths 1 to 4 with no time limit, then at the budget."""
    data = load_positions()
    rows = []
    for depth in (1, 2, 3, 4):
        note = "   <- CI setting (tests/engine/test_solver.py)" if depth == CI_DEPTH else ""
        rows.append((f"max_depth={depth}, no time limit{note}", *agreement(data, None, depth)))
    rows.append((f"{budget_ms:g} ms budget", *agreement(data, budget_ms, None)))
    return rows


def bench_agreement(budget_ms: float, baseline: Path | None, cpu_clock: bool) -> None:
    """The agreement of this version, and of `baseline`'s on the same positions, one by one."""
    data = load_positions()
    count = len(data["positions"])
    clock = "CPU" if cpu_clock else "wall"
    print(
        f"agreement with a depth-{data['deep_depth']} search on {count} positions"
        f" ({POSITIONS_FILE.name}), times in {clock} time:"
    )
    versions = [("this version", None)]
    if baseline is not None:
        versions.append((f"before ({baseline})", baseline))
    for label, path in versions:
        with _pool(1, path, cpu_clock) as pool:
            rows = pool.apply(_agreement_rows, (budget_ms,))
        print(f" {label}:")
        for name, share, ms, rate in rows:
            print(f"  {share:6.1%}  {ms:6.1f} ms/hint  {rate:>11,.0f} positions/s  {name}")


def write_positions(data: dict, path: Path = POSITIONS_FILE) -> None:
    """Write the test data with one position per line, so that a change reads as a diff."""
    head = {key: value for key, value in data.items() if key != "positions"}
    lines = [json.dumps(item, separators=(",", ":")) for item in data["positions"]]
    text = json.dumps(head, indent=1)[:-2] + ',\n "positions": [\n  ' + ",\n  ".join(lines)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text + "\n ]\n}\n")


def _sample_game(seed: int) -> list[tuple[int, tuple[int, ...]]]:
    """Every position of one depth-3 self-play game that has more than one valid move."""
    warm_up()
    game = engine.new_game(4, seed, 0.0)
    positions = []
    while True:
        if game.awaiting_choice:
            game = engine.keep_going(game, 0.0).game
        hint = best_move(
            game.board, 4, budget_ms=None, max_depth=POSITION_PLAY_DEPTH, cutoff=REFERENCE_CUTOFF
        )
        if hint is None:
            return positions
        if hint.depth > 0:  # depth 0 means the move was forced: nothing to agree on
            positions.append((game.moves, game.board))
        game = engine.play(game, hint.direction, 0.0).game


def _deep(board: tuple[int, ...]) -> tuple[tuple[int, ...], str, float]:
    start = time.perf_counter()
    hint = best_move(board, 4, budget_ms=None, max_depth=DEEP_DEPTH, cutoff=REFERENCE_CUTOFF)
    assert hint is not None
    return board, hint.direction, time.perf_counter() - start


def make_positions(processes: int, path: Path = POSITIONS_FILE) -> None:
    """Regenerate the test positions and their deep-search moves (minutes, run once)."""
    with Pool(processes, initializer=warm_up) as pool:
        games = pool.map(_sample_game, POSITION_SEEDS, chunksize=1)
        pooled = [board for game in games for _, board in game]
        step = len(pooled) / POSITION_COUNT
        boards = [pooled[int(i * step)] for i in range(POSITION_COUNT)]
        print(
            f"{len(games)} games, {len(pooled)} unforced positions, keeping {len(boards)};"
            f" searching each to depth {DEEP_DEPTH} ...",
            file=sys.stderr,
        )
        results = []
        for done, result in enumerate(pool.imap(_deep, boards, chunksize=1), 1):
            results.append(result)
            if done % 25 == 0:
                print(f"  {done}/{len(boards)}", file=sys.stderr, flush=True)
    seconds = [s for _, _, s in results]
    data = {
        "about": (
            "4x4 positions from self-play games of the depth-3 solver (seeds "
            f"{', '.join(map(str, POSITION_SEEDS))}; forced moves left out), each with the move a "
            f"depth-{DEEP_DEPTH} search (no time limit, probability cutoff {REFERENCE_CUTOFF:g})"
            " chose. Made by "
            "`python -m benchmarks.solver --make-positions`."
        ),
        "size": 4,
        "deep_depth": DEEP_DEPTH,
        "positions": [{"board": list(board), "move": direction} for board, direction, _ in results],
    }
    write_positions(data, path)
    print(
        f"wrote {len(results)} positions to {path}; deep search took median"
        f" {statistics.median(seconds):.2f} s, max {max(seconds):.1f} s per position"
    )


def _sizes(text: str) -> list[int]:
    sizes = sorted({int(part) for part in text.split(",") if part.strip()})
    if not sizes or any(size not in engine.SIZES for size in sizes):
        raise argparse.ArgumentTypeError(f"sizes are a comma-separated subset of {engine.SIZES}")
    return sizes


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.solver", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--games", type=int, default=50, help="4x4 self-play games (default 50)")
    parser.add_argument(
        "--budget-ms", type=float, default=DEFAULT_BUDGET_MS, help="4x4 hard cap per move"
    )
    parser.add_argument("--sizes", type=_sizes, default=[4, 5, 6], help="e.g. 4 or 5,6")
    parser.add_argument("--big-games", type=int, default=10, help="games per size for 5x5/6x6")
    parser.add_argument("--big-budget-ms", type=float, default=BIG_BUDGET_MS)
    parser.add_argument(
        "--max-moves", type=int, default=None, help="end 5x5/6x6 games after this many moves"
    )
    parser.add_argument("--processes", type=int, default=2, help="games played at once")
    parser.add_argument(
        "--first-seed", type=int, default=1, help="4x4 seeds start here (to split a long run)"
    )
    parser.add_argument(
        "--baseline",
        type=Path,
        default=None,
        help="a directory holding an earlier version's engine package, to play the same seeds",
    )
    parser.add_argument(
        "--cpu-clock",
        action="store_true",
        help="budgets and times in each process's CPU time (for a machine shared with others)",
    )
    parser.add_argument("--agreement-only", action="store_true")
    parser.add_argument("--no-agreement", action="store_true")
    parser.add_argument("--make-positions", action="store_true")
    args = parser.parse_args(argv)
    # `timeout` and job runners stop a run with SIGTERM, and a background job ignores SIGINT:
    # both end the run as Ctrl-C does, with a report of what was finished.
    signal.signal(signal.SIGTERM, signal.default_int_handler)

    print(f"Python {sys.version.split()[0]}, {args.processes} processes")
    if args.make_positions:
        make_positions(args.processes)
        return
    if not args.no_agreement:
        bench_agreement(args.budget_ms, args.baseline, args.cpu_clock)
    if args.agreement_only:
        return
    if 4 in args.sizes:
        bench_self_play(
            args.games,
            args.budget_ms,
            args.processes,
            args.first_seed,
            args.baseline,
            args.cpu_clock,
        )
    big = [size for size in args.sizes if size in BIG_TARGET_SIZES]
    if big:
        bench_big(
            big,
            args.big_games,
            args.big_budget_ms,
            args.processes,
            args.max_moves,
            args.baseline,
            args.cpu_clock,
        )


if __name__ == "__main__":
    main()
