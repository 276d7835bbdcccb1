"""A commitment to a seed: published before anyone plays it, checkable by anyone once revealed.

The digest binds the seed to its board size and to what it was for (a day, a challenge), and
mixes in a salt of 128 random bits, so that the 64-bit seed cannot be searched back from the
digest while the game runs. Revealed afterwards, salt and seed give the same digest again.
"""

from __future__ import annotations

import hashlib

SALT_HEX_DIGITS = 32  # 128 bits


def commitment(salt: str, seed: int, size: int, subject: str) -> str:
    """SHA-256 of the salt, the seed, the size and the subject, as 64 hex digits."""
    return hashlib.sha256(f"2048:{salt}:{seed}:{size}:{subject}".encode()).hexdigest()
