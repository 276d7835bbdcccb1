"""The 4×4 fast path: expectimax over packed 64-bit boards with table lookups only.

Every function here works on a board integer `b` and its transpose `t` (see `tables4`). The
code is unrolled by hand (four rows, four columns, the 2- and the 4-spawn written out twice)
because in CPython every avoided call, tuple or attribute lookup is a measurable share of a
node's cost, and profiles show where it goes: about three quarters of a search is spent
scoring positions one move before the horizon. `chance1` does exactly that work, and does it
incrementally: a spawn changes one row and one column, so the parts of each move's result
that come from the other rows (or columns) are computed once per chance node, not per spawn.
"""

from __future__ import annotations

from time import perf_counter

from engine.board import Direction
from engine.solver.common import DIRECTION_ORDER, SearchTimeout
from engine.solver.tables4 import ROW_MASK, tables4


def search4(
    board: int,
    transpose: int,
    depth: int,
    deadline: float | None,
    cutoff: float,
    cache: dict[int, float],
    cache_depth: dict[int, int],
) -> tuple[list[tuple[Direction, float]], int, bool]:
    """Value every valid root move at `depth` player moves; raise SearchTimeout past deadline.

    Returns the (direction, value) pairs in DIRECTION_ORDER, the number of player-to-move
    positions scored or expanded, and whether any branch stopped at the depth limit (if none
    did, a deeper search would give the same answer). `cache` maps a chance-node board to its
    value and `cache_depth` to the depth it was computed for; a value is reused for any depth
    up to that one, which keeps them valid across the depths of one iterative deepening run.
    (Two dicts of plain numbers rather than one dict of tuples: a dict holding only ints and
    floats is invisible to the garbage collector, whose passes over a big cache of tuples
    once cost tens of milliseconds in the middle of a search.)
    """
    tab = tables4()
    L = tab.left
    R = tab.right
    SL = tab.spread_left
    SR = tab.spread_right
    H = tab.heur
    HL = tab.heur_left
    HR = tab.heur_right
    EC = tab.empties
    C0, C1, C2, C3 = tab.cells
    M = ROW_MASK
    clock = perf_counter
    never = deadline is None
    limit = 0.0 if deadline is None else deadline
    cache_get = cache.get
    depth_get = cache_depth.get
    nodes = 0
    truncated = False

    def leaf(b: int, t: int) -> float:
        """Best one-move value of a player-to-move board: the evaluation after each move."""
        r0 = b & M
        r1 = b >> 16 & M
        r2 = b >> 32 & M
        r3 = b >> 48
        c0 = t & M
        c1 = t >> 16 & M
        c2 = t >> 32 & M
        c3 = t >> 48
        best = 0.0
        x = SL[r0] | SL[r1] << 4 | SL[r2] << 8 | SL[r3] << 12
        if x != t:
            v = HL[r0] + HL[r1] + HL[r2] + HL[r3]
            v += H[x & M] + H[x >> 16 & M] + H[x >> 32 & M] + H[x >> 48]
            if v > best:
                best = v
        x = SR[r0] | SR[r1] << 4 | SR[r2] << 8 | SR[r3] << 12
        if x != t:
            v = HR[r0] + HR[r1] + HR[r2] + HR[r3]
            v += H[x & M] + H[x >> 16 & M] + H[x >> 32 & M] + H[x >> 48]
            if v > best:
                best = v
        x = SL[c0] | SL[c1] << 4 | SL[c2] << 8 | SL[c3] << 12
        if x != b:
            v = HL[c0] + HL[c1] + HL[c2] + HL[c3]
            v += H[x & M] + H[x >> 16 & M] + H[x >> 32 & M] + H[x >> 48]
            if v > best:
                best = v
        x = SR[c0] | SR[c1] << 4 | SR[c2] << 8 | SR[c3] << 12
        if x != b:
            v = HR[c0] + HR[c1] + HR[c2] + HR[c3]
            v += H[x & M] + H[x >> 16 & M] + H[x >> 32 & M] + H[x >> 48]
            if v > best:
                best = v
        return best

    def chance1(b: int, t: int, fours: bool) -> float:
        """Expected best one-move value over all spawns: `leaf` for every child, shared work.

        For a left move, the child's rows other than the spawn row slide as the parent's do,
        so their spread (`xl` minus that row's part) and their row scores are reused; up and
        down reuse the columns the same way. Only the changed row or column is looked up anew.
        Without `fours`, a 4 on a cell is taken to score like the 2 there (see `chance`).
        """
        nonlocal nodes
        r0 = b & M
        r1 = b >> 16 & M
        r2 = b >> 32 & M
        r3 = b >> 48
        c0 = t & M
        c1 = t >> 16 & M
        c2 = t >> 32 & M
        c3 = t >> 48
        xl = SL[r0] | SL[r1] << 4 | SL[r2] << 8 | SL[r3] << 12
        hl = HL[r0] + HL[r1] + HL[r2] + HL[r3]
        xr = SR[r0] | SR[r1] << 4 | SR[r2] << 8 | SR[r3] << 12
        hr = HR[r0] + HR[r1] + HR[r2] + HR[r3]
        xu = SL[c0] | SL[c1] << 4 | SL[c2] << 8 | SL[c3] << 12
        hu = HL[c0] + HL[c1] + HL[c2] + HL[c3]
        xd = SR[c0] | SR[c1] << 4 | SR[c2] << 8 | SR[c3] << 12
        hd = HR[c0] + HR[c1] + HR[c2] + HR[c3]
        # Per column j: (up spread and score without column j, the same for down, c_j, 4·j).
        columns = (
            (xu ^ SL[c0], hu - HL[c0], xd ^ SR[c0], hd - HR[c0], c0, 0),
            (xu ^ SL[c1] << 4, hu - HL[c1], xd ^ SR[c1] << 4, hd - HR[c1], c1, 4),
            (xu ^ SL[c2] << 8, hu - HL[c2], xd ^ SR[c2] << 8, hd - HR[c2], c2, 8),
            (xu ^ SL[c3] << 12, hu - HL[c3], xd ^ SR[c3] << 12, hd - HR[c3], c3, 12),
        )
        total = 0.0
        n = 0
        for ri, sh, cells in ((r0, 0, C0[r0]), (r1, 4, C1[r1]), (r2, 8, C2[r2]), (r3, 12, C3[r3])):
            if not cells:
                continue
            xa = xl ^ SL[ri] << sh
            ha = hl - HL[ri]
            xb = xr ^ SR[ri] << sh
            hb = hr - HR[ri]
            for j, rbit, cbit, bb, tb in cells:
                n += 1
                xc, hc, xe, he, cj, shj = columns[j]
                # A 2 spawns here (probability 0.9).
                nr = ri | rbit
                nc = cj | cbit
                nb = b | bb
                nt = t | tb
                best = 0.0
                x = xa | SL[nr] << sh
                if x != nt:
                    v = ha + HL[nr] + H[x & M] + H[x >> 16 & M] + H[x >> 32 & M] + H[x >> 48]
                    if v > best:
                        best = v
                x = xb | SR[nr] << sh
                if x != nt:
                    v = hb + HR[nr] + H[x & M] + H[x >> 16 & M] + H[x >> 32 & M] + H[x >> 48]
                    if v > best:
                        best = v
                x = xc | SL[nc] << shj
                if x != nb:
                    v = hc + HL[nc] + H[x & M] + H[x >> 16 & M] + H[x >> 32 & M] + H[x >> 48]
                    if v > best:
                        best = v
                x = xe | SR[nc] << shj
                if x != nb:
                    v = he + HR[nc] + H[x & M] + H[x >> 16 & M] + H[x >> 32 & M] + H[x >> 48]
                    if v > best:
                        best = v
                if not fours:
                    total += best
                    continue
                total += 0.9 * best
                # A 4 spawns here (probability 0.1): the same with every bit doubled.
                nr = ri | rbit << 1
                nc = cj | cbit << 1
                nb = b | bb << 1
                nt = t | tb << 1
                best = 0.0
                x = xa | SL[nr] << sh
                if x != nt:
                    v = ha + HL[nr] + H[x & M] + H[x >> 16 & M] + H[x >> 32 & M] + H[x >> 48]
                    if v > best:
                        best = v
                x = xb | SR[nr] << sh
                if x != nt:
                    v = hb + HR[nr] + H[x & M] + H[x >> 16 & M] + H[x >> 32 & M] + H[x >> 48]
                    if v > best:
                        best = v
                x = xc | SL[nc] << shj
                if x != nb:
                    v = hc + HL[nc] + H[x & M] + H[x >> 16 & M] + H[x >> 32 & M] + H[x >> 48]
                    if v > best:
                        best = v
                x = xe | SR[nc] << shj
                if x != nb:
                    v = he + HR[nc] + H[x & M] + H[x >> 16 & M] + H[x >> 32 & M] + H[x >> 48]
                    if v > best:
                        best = v
                total += 0.1 * best
        nodes += 2 * n if fours else n
        return total / n

    def maxnode(b: int, t: int, depth: int, prob: float) -> float:
        """Best value over the player's moves, each followed by a chance node."""
        r0 = b & M
        r1 = b >> 16 & M
        r2 = b >> 32 & M
        r3 = b >> 48
        c0 = t & M
        c1 = t >> 16 & M
        c2 = t >> 32 & M
        c3 = t >> 48
        best = 0.0
        x = SL[r0] | SL[r1] << 4 | SL[r2] << 8 | SL[r3] << 12
        if x != t:
            v = chance(L[r0] | L[r1] << 16 | L[r2] << 32 | L[r3] << 48, x, depth, prob)
            if v > best:
                best = v
        x = SR[r0] | SR[r1] << 4 | SR[r2] << 8 | SR[r3] << 12
        if x != t:
            v = chance(R[r0] | R[r1] << 16 | R[r2] << 32 | R[r3] << 48, x, depth, prob)
            if v > best:
                best = v
        x = SL[c0] | SL[c1] << 4 | SL[c2] << 8 | SL[c3] << 12
        if x != b:
            v = chance(x, L[c0] | L[c1] << 16 | L[c2] << 32 | L[c3] << 48, depth, prob)
            if v > best:
                best = v
        x = SR[c0] | SR[c1] << 4 | SR[c2] << 8 | SR[c3] << 12
        if x != b:
            v = chance(x, R[c0] | R[c1] << 16 | R[c2] << 32 | R[c3] << 48, depth, prob)
            if v > best:
                best = v
        return best

    def chance(b: int, t: int, depth: int, prob: float) -> float:
        """Expected value over the spawns on a board just moved; `depth` player moves follow.

        `prob` is the chance of reaching this node. A spawn branch less likely than `cutoff`
        is not searched: it gets one more player move and is then scored. At the horizon, a 4
        less likely than `cutoff` is taken to score like a 2 on the same cell, which halves
        the work where most of it is done; measured against a much deeper search, spending
        that time on depth instead gives better moves (see benchmarks/solver.py).
        """
        nonlocal nodes, truncated
        hit = cache_get(b)
        if hit is not None and depth_get(b) >= depth:
            return hit
        if not never and clock() > limit:
            raise SearchTimeout
        r0 = b & M
        r1 = b >> 16 & M
        r2 = b >> 32 & M
        r3 = b >> 48
        n = EC[r0] + EC[r1] + EC[r2] + EC[r3]
        p2 = prob * 0.9 / n
        if depth == 1 or p2 < cutoff:
            if depth == 1:
                truncated = True
            value = chance1(b, t, prob * 0.1 / n >= cutoff)
        else:
            nodes += 2 * n
            p4 = prob * 0.1 / n
            deep4 = p4 >= cutoff
            d = depth - 1
            total = 0.0
            for cells in (C0[r0], C1[r1], C2[r2], C3[r3]):
                for _, _, _, bb, tb in cells:
                    total += 0.9 * maxnode(b | bb, t | tb, d, p2)
                    if deep4:
                        total += 0.1 * maxnode(b | bb << 1, t | tb << 1, d, p4)
                    else:
                        total += 0.1 * leaf(b | bb << 1, t | tb << 1)
            value = total / n
        cache[b] = value
        cache_depth[b] = depth
        return value

    # Root: the four moves in DIRECTION_ORDER ("up", "down", "left", "right").
    r = [board >> (16 * i) & M for i in range(4)]
    c = [transpose >> (16 * i) & M for i in range(4)]
    results: list[tuple[int, int]] = [
        (
            SL[c[0]] | SL[c[1]] << 4 | SL[c[2]] << 8 | SL[c[3]] << 12,
            L[c[0]] | L[c[1]] << 16 | L[c[2]] << 32 | L[c[3]] << 48,
        ),
        (
            SR[c[0]] | SR[c[1]] << 4 | SR[c[2]] << 8 | SR[c[3]] << 12,
            R[c[0]] | R[c[1]] << 16 | R[c[2]] << 32 | R[c[3]] << 48,
        ),
        (
            L[r[0]] | L[r[1]] << 16 | L[r[2]] << 32 | L[r[3]] << 48,
            SL[r[0]] | SL[r[1]] << 4 | SL[r[2]] << 8 | SL[r[3]] << 12,
        ),
        (
            R[r[0]] | R[r[1]] << 16 | R[r[2]] << 32 | R[r[3]] << 48,
            SR[r[0]] | SR[r[1]] << 4 | SR[r[2]] << 8 | SR[r[3]] << 12,
        ),
    ]
    values: list[tuple[Direction, float]] = []
    try:
        for direction, (b, t) in zip(DIRECTION_ORDER, results, strict=True):
            if b == board:
                continue
            nodes += 1
            if depth <= 1:
                truncated = True
                value = evaluate4(b, t)
            else:
                value = chance(b, t, depth - 1, 1.0)
            values.append((direction, value))
    finally:
        # maxnode and chance refer to each other: break the cycle so that the caches they
        # hold are freed when the caller drops them, not by a later garbage collection.
        maxnode = chance = None  # type: ignore[assignment]
    return values, nodes, truncated


def evaluate4(b: int, t: int) -> float:
    """The static evaluation of a packed board: its four rows plus its four columns."""
    H = tables4().heur
    M = ROW_MASK
    return (
        H[b & M]
        + H[b >> 16 & M]
        + H[b >> 32 & M]
        + H[b >> 48]
        + H[t & M]
        + H[t >> 16 & M]
        + H[t >> 32 & M]
        + H[t >> 48]
    )


def move4(board: int, transpose: int, direction: str) -> tuple[int, int]:
    """One move on a packed board (board, transpose); unchanged means invalid. For tests."""
    tab = tables4()
    rows = [board >> (16 * i) & ROW_MASK for i in range(4)]
    cols = [transpose >> (16 * i) & ROW_MASK for i in range(4)]
    if direction in ("left", "right"):
        slid, spread = (
            (tab.left, tab.spread_left) if direction == "left" else (tab.right, tab.spread_right)
        )
        same = sum(slid[x] << (16 * i) for i, x in enumerate(rows))
        other = sum(spread[x] << (4 * i) for i, x in enumerate(rows))
        return same, other
    slid, spread = (
        (tab.left, tab.spread_left) if direction == "up" else (tab.right, tab.spread_right)
    )
    other = sum(slid[x] << (16 * i) for i, x in enumerate(cols))
    same = sum(spread[x] << (4 * i) for i, x in enumerate(cols))
    return same, other
