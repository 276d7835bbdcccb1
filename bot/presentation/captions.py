"""The texts and buttons of shared cards, replays and duels, in the reader's language."""

from __future__ import annotations

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

import engine
from bot.models import Player
from bot.presentation.i18n import Translator
from bot.presentation.names import player_name
from bot.presentation.render import share_button, size_name


def card_keyboard(
    t: Translator, duel_link: str | None, shared: int | None
) -> InlineKeyboardMarkup | None:
    """▶️ for a duel, and a 📤 sharing the game `shared` (None: inline mode is off, or the
    card is an inline result already)."""
    row = []
    if duel_link is not None:
        row.append(InlineKeyboardButton("▶️ " + t._("Play it"), url=duel_link))
    if shared is not None:
        row.append(share_button(t, shared))
    return InlineKeyboardMarkup([row]) if row else None


def card_caption(t: Translator, owner: Player, game: engine.Game) -> str:
    return t._(
        "{name}: {score} points on {size}, highest tile {tile}.",
        name=player_name(t, owner.name, owner.user_id),
        score=t.number(game.score),
        size=size_name(t, game.size),
        tile=t.tile(game.highest),
    )


def duel_caption(t: Translator, owner: Player, game: engine.Game) -> str:
    return t._(
        "Can you beat {name}'s {score} points on {size}? Tap ▶️ Play it to get the very "
        "same game: the same moves bring the same tiles.",
        name=player_name(t, owner.name, owner.user_id),
        score=t.number(game.score),
        size=size_name(t, game.size),
    )


def replay_caption(t: Translator, owner: Player, game: engine.Game) -> str:
    return t._(
        "Replay of {name}'s game: {score} points on {size} in {moves}.",
        name=player_name(t, owner.name, owner.user_id),
        score=t.number(game.score),
        size=size_name(t, game.size),
        moves=t.ngettext("{n} move", "{n} moves", game.moves),
    )


def inline_off(t: Translator) -> str:
    return t._("To share this picture, forward it to any chat.")


def duel_started(t: Translator, rival: Player, target: engine.Game) -> str:
    """The duel's intro: whom to beat, by how much, and that it is their game as shared."""
    name = player_name(t, rival.name, rival.user_id)
    intro = t._(
        "Beat {name}'s {score} points on {size}! The same moves bring the same tiles, and "
        "when your game ends, you'll both see who won.",
        name=name,
        score=t.number(target.score),
        size=size_name(t, target.size),
    )
    # One sentence per number, not "{n} moves" put in: German says "nach 54 Zügen".
    as_shared = t.ngettext(
        "You play their game as it was when shared, after {n} move: anything played "
        "since doesn't count.",
        "You play their game as it was when shared, after {n} moves: anything played "
        "since doesn't count.",
        target.moves,
    )
    return intro + " " + as_shared


def duel_result(
    t: Translator, your_score: int, rival: Player, rival_score: int, size: int, *, sharer: bool
) -> str:
    """The comparison, for either player: the reader is "you", the other one has a name.

    The `sharer` gets it unprompted, maybe days after sharing, so their line says who took
    on which of their games; the challenger has just played it.
    """
    values = {
        "rival": player_name(t, rival.name, rival.user_id),
        "your_score": t.number(your_score),
        "rival_score": t.number(rival_score),
        "size": size_name(t, size),
    }
    if your_score > rival_score:
        verdict = t._("🏆 You win!")
    elif your_score < rival_score:
        verdict = t._("{rival} wins this one.", rival=values["rival"])
    else:
        verdict = t._("A draw!")
    if sharer:
        figures = t._(
            "⚔️ {rival} took on your {size} game: {rival} {rival_score}, you {your_score}.",
            **values,
        )
    else:
        figures = t._(
            "⚔️ You took on {rival}'s {size} game: you {your_score}, {rival} {rival_score}.",
            **values,
        )
    return figures + " " + verdict


def challenge_running(t: Translator) -> str:
    return t._(
        "This game is part of a running challenge, so its tiles stay secret until the "
        "challenge ends. Share it after that."
    )


def nothing_to_show(t: Translator) -> str:
    return t._("You have no game to show yet. /new starts one.")


def busy(t: Translator) -> str:
    return t._("Your last picture is still being made. One moment.")


def crowded(t: Translator) -> str:
    return t._("I'm drawing a lot of pictures right now. Try again in a minute.")
