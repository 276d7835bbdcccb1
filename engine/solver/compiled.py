"""The 4×4 search compiled to machine code: expectimax over one 64-bit board, per-row tables.

A 4×4 board is one unsigned 64-bit integer of sixteen 4-bit exponents (cell (r, c) at bit
16·r + 4·c, as `tables4.pack` lays it out). A move is four lookups in a table of all 65,536
rows; up and down transpose the board with six masks and shifts, move it left or right and
transpose it back. The evaluation is the sum of the tabulated line scores of the four rows and
the four columns (`heuristic.line_score`). This is the layout of the strongest published
expectimax programs, and in CPython it cost about a microsecond per lookup; compiled by numba
the same tree is searched a few hundred times faster, which is what lets a 50 ms hint look
five to eight moves ahead instead of three or four.

The tree is exactly the one the pure-Python path searched, so values agree with
`generic.search_generic` on the same board (the tests hold them side by side): chance nodes
average every empty cell's 2 (0.9) and 4 (0.1); a branch less likely than the cutoff gets one
more player move and is then scored; at the horizon an unlikely 4 scores like the 2 on its
cell. Chance-node values go to a transposition table of `TABLE_SLOTS` entries kept between
calls, each stamped with the search it belongs to, so no call sees another's entries and a
hint depends only on its board, depth and cutoff. The search reads the clock every
`CLOCK_EVERY` chance nodes and stops past its deadline, keeping the root moves it finished.

Compiled code is cached on disk (numba's cache, in `cache_directory()`), so a process that
starts after the first one loads it in a fraction of a second; the first ever compiles for a
few seconds. Either way `warm_up` does it, in the worker pool's initializer, before any hint.
"""

from __future__ import annotations

import os
from pathlib import Path
from time import perf_counter

import numba
import numpy as np
from numba import njit, objmode

from engine.solver.tables4 import tables4


def cache_directory() -> Path | None:
    """Where numba keeps compiled code: `NUMBA_CACHE_DIR`, else the user's cache directory.

    numba's own default is a `__pycache__` beside this file, which an installed package's
    site-packages rarely lets a service user write, and it refuses to decorate a cached
    function with nowhere to write. None (no directory can be made) means compiling at each
    start instead, a few seconds in the worker pool's warm-up.
    """
    chosen = os.environ.get("NUMBA_CACHE_DIR")
    if chosen:
        path = Path(chosen)
    else:
        base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        path = Path(base) / "bot2048" / "numba"
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return path if os.access(path, os.W_OK) else None


_CACHE = cache_directory()
if _CACHE is not None:
    numba.config.CACHE_DIR = str(_CACHE)
_JIT = njit(cache=_CACHE is not None)

# 65,536 entries of three words (1.5 MiB) stay in the core's caches, where a probe costs a
# fraction of a trip to memory: on the 300 test positions a depth-7 search took 5.0 s with
# this table against 8.3 s with 2^20 entries in three separate arrays (Intel Xeon). A 50 ms
# hint fills a few tens of thousands of entries.
TABLE_BITS = 16
TABLE_SLOTS = 1 << TABLE_BITS
# An entry's words: the board, its mark (the search's stamp above 8 bits of depth) and its
# value, the float64 read through a view of the same memory (see `Compiled`).
_KEY, _MARK, _VALUE = range(3)
# How many neighbouring slots a key may take when its own slot holds another live key.
PROBES = 8
CLOCK_EVERY = 1024
# An opening (2, 4, 8, 16 on the top row, a few 2s below) whose depth-4 search visits a few
# thousand chance nodes: `compiled()` runs it once so every path is ready for the first hint.
WARM_UP_BOARD = 0x0001_0000_1100_4321

_ROW = np.uint64(0xFFFF)
_S4 = np.uint64(4)
_S12 = np.uint64(12)
_S16 = np.uint64(16)
_S24 = np.uint64(24)
_S32 = np.uint64(32)
_S48 = np.uint64(48)
_ONE = np.uint64(1)
_NIBBLE = np.uint64(0xF)
_T1 = np.uint64(0xF0F00F0FF0F00F0F)
_T2 = np.uint64(0x0000F0F00000F0F0)
_T3 = np.uint64(0x0F0F00000F0F0000)
_T4 = np.uint64(0xFF00FF0000FF00FF)
_T5 = np.uint64(0x00FF00FF00000000)
_T6 = np.uint64(0x00000000FF00FF00)
_HASH = np.uint64(0x9E3779B97F4A7C15)
_HASH_SHIFT = np.uint64(64 - TABLE_BITS)

# Indices into the search's state array (int64): counters and the call's stamp.
_NODES, _CHANCE, _TRUNCATED, _TIMED_OUT, _STAMP = range(5)


def _clock() -> float:
    """The search's clock, read by name at each call: `search` reads the same one."""
    return perf_counter()


@_JIT
def _transpose(x: np.uint64) -> np.uint64:
    a = (x & _T1) | ((x & _T2) << _S12) | ((x & _T3) >> _S12)
    return (a & _T4) | ((a & _T5) >> _S24) | ((a & _T6) << _S24)


@_JIT
def _rows_through(b: np.uint64, table: np.ndarray) -> np.uint64:
    return (
        np.uint64(table[b & _ROW])
        | (np.uint64(table[(b >> _S16) & _ROW]) << _S16)
        | (np.uint64(table[(b >> _S32) & _ROW]) << _S32)
        | (np.uint64(table[(b >> _S48) & _ROW]) << _S48)
    )


@_JIT
def _move(b: np.uint64, direction: int, left: np.ndarray, right: np.ndarray) -> np.uint64:
    """The board after a move, in DIRECTION_ORDER (0 up, 1 down, 2 left, 3 right)."""
    if direction == 2:
        return _rows_through(b, left)
    if direction == 3:
        return _rows_through(b, right)
    t = _transpose(b)
    return _transpose(_rows_through(t, left if direction == 0 else right))


@_JIT
def _evaluate(b: np.uint64, heur: np.ndarray) -> float:
    t = _transpose(b)
    return (
        heur[b & _ROW]
        + heur[(b >> _S16) & _ROW]
        + heur[(b >> _S32) & _ROW]
        + heur[(b >> _S48) & _ROW]
        + heur[t & _ROW]
        + heur[(t >> _S16) & _ROW]
        + heur[(t >> _S32) & _ROW]
        + heur[(t >> _S48) & _ROW]
    )


@_JIT
def _leaf(
    b: np.uint64, left: np.ndarray, right: np.ndarray, heur: np.ndarray, state: np.ndarray
) -> float:
    """The best one-move value of a player-to-move board: the evaluation after each move."""
    state[_NODES] += 1
    best = 0.0
    for direction in range(4):
        moved = _move(b, direction, left, right)
        if moved != b:
            value = _evaluate(moved, heur)
            if value > best:
                best = value
    return best


@_JIT
def _empty_cells(b: np.uint64) -> int:
    n = 0
    for i in range(16):
        if (b >> np.uint64(4 * i)) & _NIBBLE == 0:
            n += 1
    return n


@_JIT
def _chance(
    b: np.uint64,
    depth: int,
    prob: float,
    cutoff: float,
    deadline: float,
    left: np.ndarray,
    right: np.ndarray,
    heur: np.ndarray,
    entries: np.ndarray,
    values: np.ndarray,
    state: np.ndarray,
) -> float:
    """Expected value over the spawns on a board just moved; `depth` player moves follow."""
    if state[_TIMED_OUT]:
        return 0.0
    stamp = state[_STAMP]
    home = (b * _HASH) >> _HASH_SHIFT
    slot = -1
    for probe in range(PROBES):
        index = (home + np.uint64(probe)) & np.uint64(TABLE_SLOTS - 1)
        mark = np.int64(entries[index, _MARK])
        if mark >> 8 != stamp:
            slot = np.int64(index)
            break
        if entries[index, _KEY] == b:
            if mark & 0xFF >= depth:
                return values[index, _VALUE]
            slot = np.int64(index)
            break
    if slot < 0:
        slot = np.int64(home)
    state[_CHANCE] += 1
    if deadline > 0.0 and state[_CHANCE] % CLOCK_EVERY == 0:
        with objmode(now="float64"):
            now = _clock()
        if now > deadline:
            state[_TIMED_OUT] = 1
            return 0.0
    n = _empty_cells(b)
    p2 = prob * 0.9 / n
    p4 = prob * 0.1 / n
    total = 0.0
    if depth == 1 or p2 < cutoff:
        if depth == 1:
            state[_TRUNCATED] = 1
        fours = p4 >= cutoff
        for i in range(16):
            shift = np.uint64(4 * i)
            if (b >> shift) & _NIBBLE != 0:
                continue
            two = _leaf(b | (_ONE << shift), left, right, heur, state)
            if fours:
                total += 0.9 * two
                total += 0.1 * _leaf(b | (np.uint64(2) << shift), left, right, heur, state)
            else:
                total += two
    else:
        deep4 = p4 >= cutoff
        for i in range(16):
            shift = np.uint64(4 * i)
            if (b >> shift) & _NIBBLE != 0:
                continue
            for tile in range(2):
                child = b | (np.uint64(tile + 1) << shift)
                if tile == 1 and not deep4:
                    total += 0.1 * _leaf(child, left, right, heur, state)
                    continue
                state[_NODES] += 1
                best = 0.0
                for direction in range(4):
                    moved = _move(child, direction, left, right)
                    if moved != child:
                        value = _chance(
                            moved,
                            depth - 1,
                            p4 if tile else p2,
                            cutoff,
                            deadline,
                            left,
                            right,
                            heur,
                            entries,
                            values,
                            state,
                        )
                        if value > best:
                            best = value
                total += (0.1 if tile else 0.9) * best
    value = total / n
    if state[_TIMED_OUT]:
        return 0.0
    entries[slot, _KEY] = b
    entries[slot, _MARK] = np.uint64((stamp << 8) | depth)
    values[slot, _VALUE] = value
    return value


@_JIT
def _search_root(
    b: np.uint64,
    depth: int,
    cutoff: float,
    deadline: float,
    left: np.ndarray,
    right: np.ndarray,
    heur: np.ndarray,
    entries: np.ndarray,
    values: np.ndarray,
    state: np.ndarray,
    out: np.ndarray,
    order: np.ndarray,
) -> None:
    """Value the root moves into `out` (indexed in DIRECTION_ORDER, -inf for an invalid one),
    searching them in `order`. Past the deadline it stops: the move being searched and those
    after it keep the NaN they came with, and the values of those before it are exact."""
    for k in range(4):
        direction = order[k]
        moved = _move(b, direction, left, right)
        if moved == b:
            out[direction] = -np.inf
            continue
        state[_NODES] += 1
        if depth <= 1:
            state[_TRUNCATED] = 1
            out[direction] = _evaluate(moved, heur)
        else:
            value = _chance(
                moved,
                depth - 1,
                1.0,
                cutoff,
                deadline,
                left,
                right,
                heur,
                entries,
                values,
                state,
            )
            if state[_TIMED_OUT]:
                return
            out[direction] = value


class Compiled:
    """The process's tables, transposition table and stamp; one per process (`compiled()`)."""

    def __init__(self) -> None:
        tab = tables4()
        # 16-bit rows keep the move tables in the core's second-level cache beside `heur`.
        self.left = np.array(tab.left, dtype=np.uint16)
        self.right = np.array(tab.right, dtype=np.uint16)
        self.heur = np.array(tab.heur, dtype=np.float64)
        # The transposition table, one row an entry, so that a probe touches one cache line;
        # `values` is the same memory read as float64, for the entries' values.
        self.entries = np.zeros((TABLE_SLOTS, 3), dtype=np.uint64)
        self.values = self.entries.view(np.float64)
        self.stamp = 0

    def begin(self) -> None:
        """A new search: the transposition table's entries from earlier ones stop counting."""
        self.stamp += 1

    def search(
        self,
        board: int,
        depth: int,
        deadline: float | None,
        cutoff: float,
        order: tuple[int, ...] = (0, 1, 2, 3),
    ) -> tuple[list[float | None], int, bool, bool]:
        """One depth, the root moves searched in `order` (indices into DIRECTION_ORDER).

        Returns each direction's value in DIRECTION_ORDER (None for an invalid move, and for
        one the deadline left unfinished), the nodes searched, whether the depth limit cut
        anything, and whether the deadline passed.
        """
        state = np.zeros(5, dtype=np.int64)
        state[_STAMP] = self.stamp
        out = np.full(4, np.nan, dtype=np.float64)
        _search_root(
            np.uint64(board),
            depth,
            cutoff,
            0.0 if deadline is None else deadline,
            self.left,
            self.right,
            self.heur,
            self.entries,
            self.values,
            state,
            out,
            np.array(order, dtype=np.int64),
        )
        return (
            [None if v == -np.inf or np.isnan(v) else float(v) for v in out],
            int(state[_NODES]),
            bool(state[_TRUNCATED]),
            bool(state[_TIMED_OUT]),
        )

    def move(self, board: int, direction: int) -> int:
        return int(_move(np.uint64(board), direction, self.left, self.right))

    def evaluate(self, board: int) -> float:
        return float(_evaluate(np.uint64(board), self.heur))


_COMPILED: Compiled | None = None


def compiled() -> Compiled:
    """The process-wide search state, made (and its code compiled or loaded) on first use."""
    global _COMPILED
    if _COMPILED is None:
        _COMPILED = Compiled()
        _COMPILED.begin()
        # Deep enough to read the clock: its object-mode call is made ready on first use.
        _COMPILED.search(WARM_UP_BOARD, 4, perf_counter() + 60.0, 1e-4)
    return _COMPILED
