"""Small pieces shared by the 4×4 compiled path and the generic path."""

from __future__ import annotations

from engine.board import DIRECTIONS, Direction

# The root tries moves in this fixed order and keeps the first of equal values, so ties are
# broken the same way every time (a hint must not depend on anything but board and budget).
DIRECTION_ORDER: tuple[Direction, ...] = DIRECTIONS


class SearchTimeout(Exception):
    """Raised inside the search when the hard deadline passes; the depth is abandoned."""
