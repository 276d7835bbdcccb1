"""The longer texts a player reads: welcome, rules, tips, help and the command menu.

Each paragraph is its own catalog message so translators work on short, self-contained units.
"""

from __future__ import annotations

from bot.presentation.i18n import Translator


def description(t: Translator) -> str:
    """What an empty chat with the bot shows above its Start button (at most 512 characters)."""
    return t._(
        "2048 right in your Telegram chat. Slide the tiles with the arrow buttons, merge matching "
        "numbers, build a 2048 tile and keep going. Five undos a game, a 💡 hint when you're "
        "stuck, and your records in /best. In a group, /challenge gives everyone the same "
        "tiles: who scores highest? In English, Dutch and German."
    )


def short_description(t: Translator) -> str:
    """The line on the bot's profile and in shared links (at most 120 characters)."""
    return t._(
        "2048 in your chat: slide the tiles, reach 2048 and challenge your group on the same tiles."
    )


def welcome(t: Translator, name: str) -> str:
    return t._(
        "Hi {name}! Slide the tiles with the arrows, merge equal numbers and build a 2048 tile. "
        "/rules explains everything, /new picks a board size.",
        name=name,
    )


def welcome_back(t: Translator, name: str) -> str:
    return t._("Welcome back, {name}! Here's your game.", name=name)


def rules(t: Translator) -> str:
    return "\n\n".join(
        [
            t._("<b>How to play 2048</b>"),
            t._(
                "In short: tap an arrow to slide every tile, merge matching tiles and build a "
                "2048 tile."
            ),
            t._(
                "<b>Goal.</b> Merge tiles until one of them shows 2048. After that, you can keep "
                "going for 4096, 8192 and beyond. A game has no time limit and no move limit; "
                "only the daily (at midnight UTC) and group challenges end at a set time."
            ),
            t._(
                "<b>Board.</b> Classic is 4×4, Large 5×5 and Huge 6×6. Bigger boards leave more "
                "room, so they're more forgiving. Each game starts with two tiles. Every new "
                "tile, including those two, lands on a random empty cell: nine times out of ten "
                "it's a 2, otherwise a 4."
            ),
            t._(
                "<b>Moving.</b> Tap an arrow: every tile slides as far as it can that way, all "
                "at once, and stops at the edge or against another tile. After every valid move, "
                "exactly one new tile appears. If nothing can slide or merge that way, nothing "
                "happens: no tile appears and the move doesn't count."
            ),
            t._(
                "<b>Merging.</b> Two matching tiles that slide into each other merge into one "
                "tile worth their sum. A tile merges only once per move, starting from the side "
                "you move towards: 4 4 4 4 to the left becomes 8 8, and 4 4 4 becomes 8 4."
            ),
            t._(
                "<b>Score.</b> Your score starts at 0. Every merge adds the value of the new "
                "tile: two 256s make a 512 and score 512 points. Sliding without merging scores "
                "nothing."
            ),
            t._(
                "<b>Saving and the clock.</b> Your game is saved after every move, so you can "
                "stop any time and pick it up later. A clock measures your playing time for your "
                "records. It counts only time spent playing: a break between two moves adds one "
                "minute at most. /best shows your best score for each board size and your other "
                "records."
            ),
            t._(
                "<b>Winning.</b> Your first 2048 tile wins the game, whatever the board size. "
                "The clock stops there: your moves and playing time up to that point go into "
                "your records. Then choose: keep going on the same board, with the clock "
                "running again, or start a new game."
            ),
            t._(
                "<b>Game over.</b> The game ends only when the board is full and no two "
                "neighbouring tiles in a row or column are equal. Diagonal neighbours don't "
                "count."
            ),
            t._(
                "<b>Undo.</b> You get five undos per game, one after another if you like, even "
                "after game over. Each undo puts the board, the score and the move count back "
                "as they were before your last move, so the new tile from that move disappears "
                "too. Points lost to an undo count nowhere: not in your best score, not in "
                "your records, not in a challenge. Play the same move again and the same tile "
                "comes back: you can't use undo to fish for a better tile."
            ),
            t._(
                "<b>Hints.</b> Tap 💡 Hint and I'll suggest a move: its arrow gets a 💡. Hints "
                "are unlimited, but your /best records count them. They're off in the daily and "
                "in challenges."
            ),
            t._(
                "<b>Emoji or numbers.</b> Each emoji on the board stands for a number, and the "
                "line under the board shows which. Prefer numbers? Tap 🔢 between the arrows (or "
                "send /view); 🎨 switches back. If your board has a 👆 Swipe button, it opens "
                "the board in a window where you play by swiping."
            ),
            t._(
                "<b>Challenges.</b> In a group challenge, everyone gets the same tiles and plays "
                "until the time runs out. Then every score is final."
            ),
        ]
    )


def tips(t: Translator) -> str:
    return "\n\n".join(
        [
            t._("<b>Four tips from strong players</b>"),
            t._(
                "1. Park your biggest tile in a corner and keep it there. Lean on two "
                "directions, use a third only when you must, and the fourth hardly ever."
            ),
            t._(
                "2. Not every merge is a good one. Merging in the middle of the board can tear "
                "apart a row you spent many moves building."
            ),
            t._(
                "3. Watch out for a small tile boxed in by big ones. Free it while a matching "
                "neighbour can still reach it."
            ),
            t._(
                "4. Slow down when the board fills up. With two or three empty cells left, one "
                "careless move can end the game."
            ),
        ]
    )


def help_text(t: Translator, menu: list[tuple[str, str]]) -> str:
    """The command list, from the same (command, description) table as Telegram's menu."""
    lines = [t._("<b>Commands</b>")]
    lines += [f"/{command} – {description}" for command, description in menu]
    return "\n".join(lines)
