"""The pure engine: the rules of a move, whole games, saves, replays and the hint solver."""
