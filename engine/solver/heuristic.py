"""The static evaluation: a score for one line (row or column) of tile exponents.

The terms and weights follow the evaluation of the strongest published expectimax programs
(nneonneo's 2048-AI and its descendants): reward empty cells and adjacent equal tiles, punish
lines that are not monotonic (with a steep power, so disorder among big tiles costs far more
than among small ones) and punish the raw tile mass (so the search prefers positions where big
tiles have been merged away). A board scores the sum over its rows and its columns. Because the
score is a sum of per-line terms, it can be tabulated per line, which is what makes it cheap
enough for a pure-Python search.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

# A constant per line. A lost board scores 0, and so does a live one whose score would fall
# below 0 (the search's maxima start at 0, as in the published program): the constant keeps
# that rare, and constant offsets do not change which move is best among live boards.
LOST_PENALTY = 200_000.0
MONOTONICITY_POWER = 4.0
MONOTONICITY_WEIGHT = 47.0
SUM_POWER = 3.5
SUM_WEIGHT = 11.0
MERGES_WEIGHT = 700.0
EMPTY_WEIGHT = 270.0


def line_score(line: Sequence[int]) -> float:
    """Score one line given as exponents (0 = empty, 1 = a 2-tile, 11 = 2048, ...).

    Merges count tiles in runs of equal values with empty cells skipped, since a slide closes
    gaps first: `2 . 2` is as good as `2 2`. Monotonicity takes the smaller of the two
    directional disorder sums, so a line may run up or down, whichever fits it better.
    """
    empty = 0
    merges = 0
    run = 0
    previous = 0
    mass = 0.0
    for rank in line:
        mass += rank**SUM_POWER
        if rank == 0:
            empty += 1
            continue
        if rank == previous:
            run += 1
        elif run:
            merges += run + 1
            run = 0
        previous = rank
    if run:
        merges += run + 1

    falling = 0.0
    rising = 0.0
    for before, after in pairwise(line):
        if before > after:
            falling += before**MONOTONICITY_POWER - after**MONOTONICITY_POWER
        else:
            rising += after**MONOTONICITY_POWER - before**MONOTONICITY_POWER
    return (
        LOST_PENALTY
        + EMPTY_WEIGHT * empty
        + MERGES_WEIGHT * merges
        - MONOTONICITY_WEIGHT * min(falling, rising)
        - SUM_WEIGHT * mass
    )
