"""Where new tiles appear, derived from the game's seed so that every spawn is reproducible.

A spawn depends only on (seed, serial number, empty cells). Undoing a move and playing it again
therefore spawns the same tile, and two players sharing a seed who play the same moves see the
same boards, which is what makes group challenges fair. blake2b is used rather than `random`
because its output is fixed by the standard, not by the interpreter version.
"""

from __future__ import annotations

import hashlib

from engine.board import Board, empty_cells

FOUR_ONE_IN = 10  # a new tile is a 4 with probability 1/10, else a 2


def spawn(board: Board, seed: int, serial: int) -> Board:
    """Place spawn number `serial` of the game on `board`, which must have an empty cell.

    Serial numbers 0 and 1 are the two opening tiles; the tile after move m has serial m + 1.
    """
    empties = empty_cells(board)
    digest = hashlib.blake2b(f"{seed}:{serial}".encode(), digest_size=16).digest()
    where = int.from_bytes(digest[:8], "big") % len(empties)
    value = 4 if int.from_bytes(digest[8:], "big") % FOUR_ONE_IN == 0 else 2
    cells = list(board)
    cells[empties[where]] = value
    return tuple(cells)
