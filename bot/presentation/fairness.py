"""The lines that make a shared seed checkable: its commitment while it is played, and the
seed and salt once it has ended (`bot2048 verify` checks one against the other)."""

from __future__ import annotations

from bot.presentation.i18n import Translator


def daily_commitment(t: Translator, commitment: str) -> str:
    return t._(
        "Fairness check (SHA-256 of the seed): <code>{commitment}</code>. The seed itself is "
        "revealed when the day ends.",
        commitment=commitment,
    )


def challenge_commitment(t: Translator, commitment: str) -> str:
    return t._(
        "Fairness check (SHA-256 of the seed): <code>{commitment}</code>. The seed itself is "
        "revealed when the challenge ends.",
        commitment=commitment,
    )


def revealed(t: Translator, seed: int, salt: str, commitment: str) -> str:
    """The secret behind the commitment, shown once nobody can play it any more."""
    return t._(
        "Seed <code>{seed}</code> and salt <code>{salt}</code> give the fairness check "
        "<code>{commitment}</code>: anyone can verify it.",
        seed=seed,
        salt=salt,
        commitment=commitment,
    )


def record_caption(t: Translator) -> str:
    """Beside the record's file: how anyone checks it (at most 1,024 characters)."""
    return t._(
        "Your game's record. Anyone can check it with the open engine: <code>bot2048 verify "
        "record.json</code>."
    )


def daily_secret(t: Translator, seconds_left: float) -> str:
    return t._(
        "Your daily is still running: its seed is revealed when the day ends, at midnight "
        "(UTC), in {time}. /record sends its record then.",
        time=t.countdown(seconds_left),
    )


def challenge_secret(t: Translator, ends: str) -> str:
    return t._(
        "This challenge is still running: its seed is revealed when it ends, {time}. "
        "/record sends your record then.",
        time=ends,
    )


def still_playing(t: Translator) -> str:
    return t._("Your game is still going: send /record again once it's over.")


def no_game(t: Translator) -> str:
    return t._("No game to record yet. Play one with /new or /daily.")


def no_log(t: Translator) -> str:
    return t._("This game was saved before moves were logged, so it has no record.")


def in_private(t: Translator) -> str:
    return t._("Records are sent in our private chat: send /record there.")
