"""Boards and menus as Telegram HTML and inline keyboards, in the reader's language.

Nothing here talks to Telegram or the database: every function takes plain values and
returns text or markup, so what a player sees can be tested directly.
"""

from __future__ import annotations

from functools import lru_cache

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, WebAppInfo

import engine
from bot import codecs
from bot.models import Challenge, Player, Record, View
from bot.presentation.i18n import LANGUAGE_NAMES, LANGUAGES, Translator
from bot.presentation.names import group_name, player_name

EMPTY = "⬜"
# One emoji per tile exponent (index 1 is the 2 tile). Each range of values has a family of its
# own, so that a glance tells the range by the family and the value by the member, without the
# legend: coloured squares up to 64, animals up to 1024, the sky up to 16384, treasures up to
# 131072 (about the most a 6×6 game reaches). No colour comes back in another shape (a green
# square and a green circle read as one tile on a phone). Every entry is a single code point
# with default emoji presentation, so every cell is exactly one glyph wide on every client.
# 6×6 can in theory reach 2^37; the ladder covers that, and `tile_emoji` stays safe beyond.
LADDER = (
    EMPTY,
    "🟦", "🟩", "🟨", "🟧", "🟥", "🟪",  # 2 … 64: coloured squares
    "🐌", "🐢", "🐇", "🦊",  # 128 … 1024: animals
    "⭐", "🌍", "🪐", "🌌",  # 2048 … 16384: the sky
    "👑", "💎", "🏆",  # 32768 … 131072: treasures
    "🚀", "🌈", "🔥", "⚡", "🧿", "🎯", "🎲", "🧩", "🦄", "🐉",  # 2^18 … 2^27
    "🍀", "🗿", "🛸", "🎈", "🎁", "🔔", "🎸", "🌙", "🌞", "🌋",  # 2^28 … 2^37
)  # fmt: skip
# The legend names the largest values on the board, as many as one line holds on a 360-px
# phone: about 250 px of Telegram's 16-px text in a group, 28 digits wide. An emoji takes
# about two and a quarter digits, a space half of one, an M or a G one and a half.
LEGEND_DIGITS = 28.0
ARROWS = {"up": "⬆️", "down": "⬇️", "left": "⬅️", "right": "➡️"}
# The button that switches a board's view, by the view it is in.
VIEW_SWITCH = {View.EMOJI: "🔢", View.NUMBERS: "🎨"}
# Boards whose keyboards are kept made (`board_keyboard`): those drawn last.
KEYBOARDS_KEPT = 1024


def tile_emoji(value: int) -> str:
    exponent = value.bit_length() - 1 if value else 0
    return LADDER[min(exponent, len(LADDER) - 1)]


def tile_label(value: int) -> str:
    """A tile in at most five characters: 65536 stays whole, 131072 becomes 128k, 2^20 is 1M."""
    if value < 100_000:
        return str(value)
    for unit, suffix in ((1 << 30, "G"), (1 << 20, "M"), (1 << 10, "k")):
        if value >= unit:
            return f"{value // unit}{suffix}"
    raise AssertionError("unreachable")


def size_name(t: Translator, size: int) -> str:
    names = {
        4: t._("Classic 4×4"),
        5: t._("Large 5×5"),
        6: t._("Huge 6×6"),
    }
    return names[size]


def emoji_grid(game: engine.Game) -> list[str]:
    return ["".join(tile_emoji(value) for value in row) for row in game.rows()]


def legend(game: engine.Game) -> str:
    """Which emoji is which value, smallest first, for as many of the largest as fit a line."""
    shown: list[str] = []
    used = 0.0
    for value in sorted({value for value in game.board if value}, reverse=True):
        label = tile_label(value)
        digits = len(label) + 0.5 * sum(char in "MG" for char in label)
        width = 2.25 + 0.5 + digits + (1.0 if shown else 0.0)
        if used + width > LEGEND_DIGITS:
            break
        shown.insert(0, f"{tile_emoji(value)} {label}")
        used += width
    return "  ".join(shown)


def view_notice(t: Translator, view: View) -> str:
    return t._("Number view is on.") if view == View.NUMBERS else t._("Emoji view is on.")


def view_way_back(t: Translator, view: View) -> str:
    """/view's answer names the view it goes back to: "switches back" alone leaves it to guess."""
    if view == View.NUMBERS:
        return t._("/view switches back to emoji.")
    return t._("/view switches back to numbers.")


def number_grid(game: engine.Game) -> str:
    width = max(4, *(len(tile_label(value)) for value in game.board))
    lines = [
        " ".join((tile_label(value) if value else "·").rjust(width) for value in row)
        for row in game.rows()
    ]
    return "<pre>" + "\n".join(lines) + "</pre>"


def board_text(
    t: Translator,
    game: engine.Game,
    *,
    best: int,
    view: View = View.EMOJI,
    owner: Player | None = None,
    challenge: Challenge | None = None,
    rival: tuple[Player, int] | None = None,
    top: int = 0,
    daily: tuple[str, str | None] | None = None,
) -> str:
    """The board message: title, grid, legend, score lines and a banner for win or game over.

    `owner` names whose board it is (in a group); `challenge` the group it was played for,
    and `top` its highest score so far; `rival` the player a duel races and the score to
    beat. The player's own best is for their own games: beside a challenge's score the
    challenge's top is what counts, a duel's score to beat is in its title already, and a
    daily's score stands alone. `daily` is the daily's title and, once its day has ended, the
    banner that says so.
    """
    title = f"<b>2048</b> · {size_name(t, game.size)}"
    if owner is not None:
        title += " · " + t._("{name}'s game", name=player_name(t, owner.name, owner.user_id))
    if challenge is not None:
        group = group_name(t, challenge.chat_title, challenge.chat_id)
        title = "🏆 " + title + " · " + t._("challenge in {title}", title=group)
    if rival is not None:
        name = player_name(t, rival[0].name, rival[0].user_id)
        title = (
            "⚔️ "
            + title
            + " · "
            + t._("vs {name} · {score} to beat", name=name, score=t.number(rival[1]))
        )
    if daily is not None:
        title = "📅 " + title + " · " + daily[0]
    parts = [title]
    if view == View.NUMBERS:
        parts.append(number_grid(game))
    else:
        parts.extend(emoji_grid(game))
        parts.append(legend(game))
    parts.append("")
    parts.append(
        _score_line(
            t, game, best, challenge is not None, rival is not None or daily is not None, top
        )
    )
    parts.append(t.ngettext("{n} move", "{n} moves", game.moves) + " · " + _undos_left(t, game))
    banner = game_banner(t, game)
    if challenge is not None and challenge.finished:
        banner = "🏁 " + t._("This challenge has ended. Your score is final.")
    if daily is not None and daily[1] is not None:
        banner = daily[1]
    if banner:
        parts.extend(["", banner])
    return "\n".join(parts)


def _score_line(
    t: Translator, game: engine.Game, best: int, in_challenge: bool, alone: bool, top: int
) -> str:
    """The score, and beside it what it is measured against.

    `alone`: a duel or a daily shows the score by itself. A duel's score to beat is in its
    title, and in a one-attempt daily "Best" reads as the daily's best, not the player's own.
    """
    score = t.number(game.score)
    if in_challenge:
        return t._(
            "Score: <b>{score}</b> · Top score: {top}",
            score=score,
            top=t.number(max(top, game.score)),
        )
    if alone:
        return t._("Score: <b>{score}</b>", score=score)
    return t._(
        "Score: <b>{score}</b> · Best: {best}", score=score, best=t.number(max(best, game.score))
    )


def _undos_left(t: Translator, game: engine.Game) -> str:
    """ "No undos left" is its own sentence: "0 undos left" is not how any language says it."""
    if not game.undos_left:
        return t._("no undos left")
    return t.ngettext("{n} undo left", "{n} undos left", game.undos_left)


def game_banner(t: Translator, game: engine.Game) -> str | None:
    if game.awaiting_choice and game.win is not None:
        return t.ngettext(
            "🎉 <b>2048!</b> You made it in {n} move and {time}. "
            "Keep going for a higher score, or start a new game.",
            "🎉 <b>2048!</b> You made it in {n} moves and {time}. "
            "Keep going for a higher score, or start a new game.",
            game.win.moves,
            time=t.play_time(game.win.play_seconds),
        )
    if game.over:
        if game.undos_left and game.history:
            return t._("🏁 <b>Game over:</b> no tile can move. Undo a move or start a new game.")
        return t._("🏁 <b>Game over:</b> no tile can move. Start a new game to play again.")
    return None


def outcome_toast(t: Translator, outcome: engine.Outcome | None) -> str | None:
    """The toast for an action the engine did not apply, or for a notable move."""
    toasts = {
        engine.Outcome.NOTHING_MOVES: t._("Nothing moves that way."),
        engine.Outcome.AWAITING_CHOICE: t._("You made 2048! Choose “Keep going” or “New game”."),
        engine.Outcome.NO_UNDOS_LEFT: t._("No undos left in this game."),
        engine.Outcome.NOTHING_TO_UNDO: t._("There is no move to undo."),
        engine.Outcome.NOT_WON: t._("You're already playing on."),
        engine.Outcome.WON: t._("🎉 2048!"),
        engine.Outcome.GAME_OVER: t._("Game over."),
    }
    return toasts.get(outcome) if outcome is not None else None


def share_button(t: Translator, game_id: int) -> InlineKeyboardButton:
    """📤: pick any chat, where the bot's inline mode offers this game's card and a duel on
    it (the query names the game: a challenge entry is not the player's latest game), then
    the player's best cards."""
    return InlineKeyboardButton(
        "📤 " + t._("Share"), switch_inline_query=codecs.share_query(game_id)
    )


def _button(text: str, data: str) -> InlineKeyboardButton:
    return InlineKeyboardButton(text, callback_data=data)


def direction_name(t: Translator, direction: engine.Direction) -> str:
    names = {"up": t._("up"), "down": t._("down"), "left": t._("left"), "right": t._("right")}
    return names[direction]


def board_keyboard(
    t: Translator,
    game_id: int,
    game: engine.Game,
    *,
    hint: str | None = None,
    hints_on: bool = True,
    share: bool = False,
    view: View = View.EMOJI,
    ended: bool = False,
    webapp: str | None = None,
    offer_daily: bool = False,
    review: int | None = None,
) -> InlineKeyboardMarkup:
    """A d-pad while playing; keep going / new game after a win; undo / new game at the end.

    Won and finished boards get a 📤 in a row of its own when the bot's inline mode is on
    (`share`): it opens Telegram's chat picker to show the game off anywhere. A challenge
    entry whose challenge has `ended` takes no move any more: it offers a new game only.
    A finished game can offer today's daily beside the new game (`offer_daily`), and its
    review in a row of its own (`review`: the game's number of actions, which the button
    keeps, so a tap after an undo is told the game has changed).

    The arrow a hint suggested carries a 💡 until the next move; challenges have no hint button.
    The undo button carries no count: the caption above says how many are left, and "Zug
    zurück (5)" would not fit three to a row on a phone. The d-pad's centre switches between
    the emoji and the numbers `view`: 🔢 shows numbers, 🎨 the emoji again.
    """
    finished = game.over or ended
    return _board_keyboard(
        t,
        game_id,
        game.awaiting_choice,
        game.over,
        game.undos_left > 0 and bool(game.history),
        hint,
        hints_on,
        share,
        view,
        ended,
        webapp,
        offer_daily,
        review if finished else None,
    )


# Keyboards made lately, by what they show: a board's keyboard is the same from one move to
# the next (a tap's redraw makes it again, eleven buttons), and its buttons never change.
@lru_cache(maxsize=KEYBOARDS_KEPT)
def _board_keyboard(
    t: Translator,
    game_id: int,
    awaiting_choice: bool,
    over: bool,
    can_undo: bool,
    hint: str | None,
    hints_on: bool,
    share: bool,
    view: View,
    ended: bool,
    webapp: str | None,
    offer_daily: bool,
    review: int | None,
) -> InlineKeyboardMarkup:
    new = _button("🆕 " + t._("New game"), codecs.new_game())
    undo = _button("↩️ " + t._("Undo"), codecs.game_tap(game_id, "undo"))
    extra = [[share_button(t, game_id)]] if share else []
    if review is not None:
        looking = _button("🔎 " + t._("Review my game"), codecs.review_button(game_id, review))
        extra.append([looking])
    then = [new, daily_button(t)] if offer_daily else [new]
    if ended:
        return InlineKeyboardMarkup([then, *extra])
    swipe = []
    if webapp is not None:
        page = WebAppInfo(f"{webapp}?game={game_id}")
        swipe.append([InlineKeyboardButton("👆 " + t._("Swipe"), web_app=page)])
    if awaiting_choice:
        keep = _button("▶️ " + t._("Keep going"), codecs.game_tap(game_id, "keep"))
        return InlineKeyboardMarkup([[keep, new], *extra, *swipe])
    if over:
        return InlineKeyboardMarkup([[undo, *then] if can_undo else then, *extra, *swipe])

    def arrow(direction: engine.Direction) -> InlineKeyboardButton:
        label = ARROWS[direction] + (" 💡" if direction == hint else "")
        return _button(label, codecs.game_tap(game_id, direction))

    tools = [undo, new]
    if hints_on:
        tools.insert(1, _button("💡 " + t._("Hint"), codecs.game_tap(game_id, "hint")))
    switch = _button(VIEW_SWITCH[view], codecs.game_tap(game_id, "view"))
    return InlineKeyboardMarkup(
        [[arrow("up")], [arrow("left"), switch, arrow("right")], [arrow("down")], tools, *swipe]
    )


def daily_button(t: Translator, size: int = engine.SIZES[0]) -> InlineKeyboardButton:
    """📅: today's daily of this size (played in private; a group's tap is sent there)."""
    return _button("📅 " + t._("Daily"), codecs.daily_button(size))


def daily_keyboard(t: Translator) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup([[daily_button(t)]])


def size_menu(t: Translator) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(
        [[_button(size_name(t, size), codecs.new_game(size))] for size in engine.SIZES]
    )


def language_menu() -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(
        [[_button(LANGUAGE_NAMES[code], codecs.language(code)) for code in LANGUAGES]]
    )


def current_board_keyboard(t: Translator) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup([[_button("▶️ " + t._("My current game"), codecs.CURRENT_BOARD)]])


def records_text(t: Translator, records: dict[int, Record]) -> str:
    """/best in a private chat: one block per board size the player has tried."""
    if not records:
        return t._("No records yet. Play a game with /new and your best scores will show up here.")
    blocks = [t._("<b>Your records</b>")]
    for size in engine.SIZES:
        record = records.get(size)
        if record is not None:
            blocks.append("\n".join([f"<b>{size_name(t, size)}</b>", *record_lines(t, record)]))
    return "\n\n".join(blocks)


def record_lines(t: Translator, record: Record, *, win_rate: bool = False) -> list[str]:
    """One board size's records, as /best and /stats show them (/stats adds the win rate)."""
    played = t.ngettext("{n} game played", "{n} games played", record.games_played)
    played += " · " + t.ngettext("{n} won", "{n} won", record.games_won)
    if win_rate and record.games_played:
        share = record.games_won / record.games_played
        played += " · " + t._("win rate {rate}", rate=t.percent(share))
    lines = [
        t._("Best score: {score}", score=t.number(record.best_score)),
        played,
        t._("Highest tile: {tile}", tile=t.tile(record.highest_tile)),
    ]
    if record.fewest_moves_to_win is not None:
        lines.append(
            t._("Fewest moves to 2048: {moves}", moves=t.number(record.fewest_moves_to_win))
        )
    if record.hints_used:
        lines.append(t.ngettext("{n} hint used", "{n} hints used", record.hints_used))
    if record.fastest_win_seconds is not None:
        lines.append(t._("Fastest 2048: {time}", time=t.duration(record.fastest_win_seconds)))
    return lines
