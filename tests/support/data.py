"""The data files in tests/data/: a real 1,000-move game, solver positions, the first schema."""

from __future__ import annotations

import json
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "data"
# A real 4×4 game of 1,000 moves, won on the way: its seed, its action letters and figures.
LONG_GAME = json.loads((DATA / "long_game.json").read_text())
