"""Sliding one line of exponents, shared by the 4×4 tables and the on-demand caches."""

from __future__ import annotations

from collections.abc import Sequence


def slide_exponents(line: Sequence[int], cap: int | None = None) -> tuple[int, ...]:
    """Slide a line of exponents toward index 0, merging as `engine.board.slide_line` does.

    `cap` saturates merged exponents (the 4-bit 4×4 tables cannot hold 65536): a merge of two
    capped tiles still empties a cell, so the move stays valid, only its value is approximate.
    The compiled path is only chosen for boards where that cannot happen at the root.
    """
    tiles = [rank for rank in line if rank]
    out: list[int] = []
    i = 0
    while i < len(tiles):
        rank = tiles[i]
        if i + 1 < len(tiles) and tiles[i + 1] == rank:
            rank += 1
            if cap is not None and rank > cap:
                rank = cap
            i += 2
        else:
            i += 1
        out.append(rank)
    out.extend([0] * (len(line) - len(out)))
    return tuple(out)
