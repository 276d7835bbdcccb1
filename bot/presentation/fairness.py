"""The lines that make a shared seed checkable: its commitment while it is played, and the
seed and salt once it has ended (`bot2048 verify` checks one against the other)."""

from __future__ import annotations

from bot.presentation.i18n import Translator


def daily_commitment(t: Translator, commitment: str) -> str:
    return t._(
        "Seed commitment (SHA-256), revealed when the day ends: <code>{commitment}</code>",
        commitment=commitment,
    )


def challenge_commitment(t: Translator, commitment: str) -> str:
    return t._(
        "Seed commitment (SHA-256), revealed when the challenge ends: <code>{commitment}</code>",
        commitment=commitment,
    )


def revealed(t: Translator, seed: int, salt: str, commitment: str) -> str:
    """The secret behind the commitment, shown once nobody can play it any more."""
    return t._(
        "Seed <code>{seed}</code> and salt <code>{salt}</code> give the commitment "
        "<code>{commitment}</code>: anyone can check.",
        seed=seed,
        salt=salt,
        commitment=commitment,
    )
