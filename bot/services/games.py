"""The game service: where a tap becomes a committed game, with the player's records.

A tap in the chat and a move in the Mini App each make one call here. Each call that writes
takes the chat's lock and one transaction (`ChatLocks.writing`) and commits before it returns,
so the board drawn afterwards is always one the database already holds; what a move owes
beyond its board comes back in its result (`TapResult.effects`) for the chat to show. Calls
that a redelivered update would repeat take its key (`update_key`, see
bot/services/redelivery.py) and apply once. A move is the one write outside a transaction: a
read, then a save onto the game as read, which commits on its own (`ChatLocks.moving`).
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, MutableMapping
from dataclasses import replace

from cachetools import TTLCache

import engine
from bot.metrics import GAMES_STARTED, MOVES_APPLIED
from bot.models import Action, SendAsk, StoredGame
from bot.outcomes import Access, HintResult, HintStatus, TapResult, TapStatus
from bot.services.cache import RECENT_LIMIT, CacheFactory, recent_cache
from bot.services.hints import HintService
from bot.services.locks import ChatLocks
from bot.services.redelivery import (
    RECENT_TAPS,
    claim,
    first_tap,
    record,
    tap_line,
    with_taps,
)
from bot.storage import Storage
from engine.solver.reasons import explain

# Seconds a game read ahead of its tap waits for it: the tap comes right after its bookkeeping.
AHEAD_SECONDS = 10.0


def _unplayed(stored: StoredGame, size: int) -> bool:
    """A plain game of this size that nobody has moved in yet."""
    return (
        stored.game.size == size
        and not stored.actions
        and stored.game.moves == 0
        and stored.challenge_id is None
        and stored.duel_of is None
    )


def move_number(stored: StoredGame) -> int:
    """A number that grows with every action on this game: the Mini App's sequence number.

    It is the length of the action log. A game saved before actions were logged counts its
    moves, three per undo taken and one once kept going: a move or keep going adds one, and
    an undo adds two, or one when it also takes back a keep going.
    """
    if stored.actions is not None:
        return len(stored.actions)
    game = stored.game
    return game.moves + 3 * (engine.UNDO_LIMIT - game.undos_left) + int(game.kept_going)


def _random_seed() -> int:
    return secrets.randbits(64)


class GameService:
    def __init__(
        self,
        storage: Storage,
        locks: ChatLocks,
        clock: Callable[[], float] = time.time,
        new_seed: Callable[[], int] = _random_seed,
        copies: CacheFactory = recent_cache,
        hints: HintService | None = None,
        move_budget: tuple[float, float] | None = None,
    ) -> None:
        """`copies` makes the caches of saved state: none when other processes write too.

        `move_budget`: (moves a second, burst) each game may make, counted in its row, so a
        script tapping through several processes gets no more than through one.
        """
        self.storage = storage
        self._move_budget = move_budget
        self._hints = hints
        self._locks = locks
        self._clock = clock
        self._new_seed = new_seed
        # What this service last committed per game, with its chat's write number then: while
        # nothing else was written in the chat, it is the saved state, and the redraw right
        # after a tap needs no read. (A challenge's end marks its entries inactive from the
        # group's chat; no board shows that.)
        self._committed: MutableMapping[int, tuple[StoredGame, int]] = copies()
        # Best scores per (player, size) as read, raised by every move committed here and
        # read again after an undo: only this service's taps change them.
        self._best: MutableMapping[tuple[int, int], int] = copies()
        # Per game, the taps here that changed nothing since its last move (`tap_line`s): they
        # cost no write, and are saved with the game's next move.
        self._idle_taps: MutableMapping[int, tuple[str, ...]] = recent_cache()
        # Games read beside their player for the tap that follows (`read_ahead`), each with
        # its chat's write number from before the read; taken by that tap, or soon gone.
        self._ahead: TTLCache[int, tuple[StoredGame, int]] = TTLCache(
            RECENT_LIMIT, ttl=AHEAD_SECONDS
        )
        # Per game, its last move here, with its chat's write number then: what the redraw
        # right after it shows (`just_moved`), in every mode, without a read.
        self._moved: TTLCache[int, tuple[TapResult, int]] = TTLCache(
            RECENT_LIMIT, ttl=AHEAD_SECONDS
        )

    def _remember(self, stored: StoredGame, *, undone: bool = False) -> StoredGame:
        """Keep a game just committed (call right after its transaction, before any await).

        `undone`: the commit was an undo, which takes its points back from the best score.
        """
        self._committed[stored.id] = (stored, self._locks.generation(stored.chat_id))
        key = (stored.owner_id, stored.game.size)
        if key in self._best:
            self._best[key] = max(self._best[key], stored.game.score)
            if undone:  # the points went back: another game may hold the best now
                del self._best[key]
        return stored

    def read_ahead(self, stored: StoredGame, generation: int) -> None:
        """The game as read just now, before a tap on it reaches `tap` (the tap's bookkeeping
        read it with its player): the tap starts from it rather than reading it again, unless
        this process wrote in the chat since `generation` (its number before the read)."""
        self._ahead[stored.id] = (stored, generation)

    async def _first_read(self, chat_id: int, game_id: int) -> StoredGame | None:
        """The game a move in `chat_id` starts from: as read ahead, or as this service last
        committed it, while nothing was written in the chat here since; else read."""
        ahead = self._ahead.pop(game_id, None)
        if ahead is not None and self._locks.generation(chat_id) == ahead[1]:
            return ahead[0]
        return await self.saved(game_id)

    async def just_moved(self, game_id: int) -> tuple[StoredGame | None, int | None]:
        """What the first redraw after this process's last move of the game shows, once: the
        game as that move committed it and the player's best score then, while nothing else
        was written in its chat here (best None: read it). Another process may have moved
        the game since; a redraw that uses this checks after its edit (`recheck_after_edit`),
        and its next draw reads."""
        moved = self._moved.pop(game_id, None)
        if moved is not None and moved[1] == self._locks.generation(moved[0].stored.chat_id):
            return moved[0].stored, moved[0].best
        return await self.saved(game_id), None

    async def best_score(self, owner_id: int, size: int) -> int:
        """The player's best score on this board size (read only if not known here)."""
        best = self._best.get((owner_id, size))
        if best is None:
            best = await self.storage.best_score(owner_id, size)
            self._best[(owner_id, size)] = best
        return best

    async def start(
        self,
        chat_id: int,
        owner_id: int,
        size: int,
        update_key: str | None = None,
        *,
        keep_unplayed: bool = False,
    ) -> StoredGame:
        """A new game for this player in this chat; a running one ends (its records stay).

        A repeated delivery gets the game its first delivery started, not another one.
        `keep_unplayed` (a size tapped in a menu): a running game of that size with no move
        yet is the new game already, so taps on a menu cost no game and no row each.
        """
        async with self._locks.writing(chat_id) as storage:
            if keep_unplayed:
                current = await storage.active_game(chat_id, owner_id)
                if current is not None and _unplayed(current, size):
                    return current
            first = await claim(storage, update_key, self._clock())
            if first is not None and first.created_id is not None:
                started = await storage.game(first.created_id)
                if started is not None:
                    return started
            stored = await self._start(storage, chat_id, owner_id, size)
            await record(storage, update_key, "started", stored.id)
            return stored

    async def _start(
        self,
        storage: Storage,
        chat_id: int,
        owner_id: int,
        size: int,
        seed: int | None = None,
        duel: tuple[int, int] | None = None,
    ) -> StoredGame:
        now = self._clock()
        game = engine.new_game(size, self._new_seed() if seed is None else seed, now)
        current = await storage.active_game(chat_id, owner_id)
        if current is not None:
            await storage.deactivate_game(current.id)
        game_id = await storage.insert_game(chat_id, owner_id, game, now, duel=duel)
        GAMES_STARTED.inc()
        stored = await storage.game(game_id)
        assert stored is not None
        return stored

    async def start_duel(self, user_id: int, rival: StoredGame, actions: int) -> StoredGame:
        """A new game in the player's private chat from `rival`'s seed, to beat its first
        `actions` actions; a duel on that same game and point already running comes back."""
        async with self._locks.writing(user_id) as storage:
            current = await storage.active_game(user_id, user_id)
            if current is not None and (current.duel_of, current.duel_actions) == (
                rival.id,
                actions,
            ):
                return current
            size, seed = rival.game.size, rival.game.seed
            return await self._start(storage, user_id, user_id, size, seed, (rival.id, actions))

    async def current(self, chat_id: int, owner_id: int) -> StoredGame | None:
        """The player's running game here, if any: a read, which starts nothing."""
        return await self.storage.active_game(chat_id, owner_id)

    async def current_or_start(self, chat_id: int, owner_id: int) -> StoredGame:
        """The player's running game here, or a new classic one when there is none."""
        async with self._locks.writing(chat_id) as storage:
            current = await storage.active_game(chat_id, owner_id)
            return current or await self._start(storage, chat_id, owner_id, engine.SIZES[0])

    async def link_message(self, stored: StoredGame, message_id: int) -> None:
        """Make `message_id` the game's board message, the one later taps redraw."""
        if stored.message_id == message_id:
            return
        async with self._locks.writing(stored.chat_id) as storage:
            await storage.link_message(stored.id, message_id)

    async def saved(self, game_id: int) -> StoredGame | None:
        """The game as committed now: what a redraw shows (read only if not known here)."""
        known = self._committed.get(game_id)
        if known is not None and self._locks.generation(known[0].chat_id) == known[1]:
            return known[0]
        return await self.storage.game(game_id)

    def _refusal(
        self, stored: StoredGame | None, chat_id: int, user_id: int, now: float
    ) -> TapResult | None:
        """Why this player may not touch this game from this chat, if they may not."""
        if stored is None or stored.chat_id != chat_id:
            return TapResult(TapStatus.UNKNOWN_GAME)
        if stored.owner_id != user_id:
            return TapResult(TapStatus.NOT_YOURS, stored)
        if stored.closes_at is not None and now >= stored.closes_at:
            return TapResult(TapStatus.CHALLENGE_OVER, stored)
        if not stored.active:
            return TapResult(TapStatus.OLD_GAME, stored)
        return None

    async def tap(
        self,
        chat_id: int,
        user_id: int,
        game_id: int,
        action: Action,
        update_key: str | None = None,
        send: SendAsk | None = None,
    ) -> TapResult:
        """Apply one tap; a repeated delivery of it gets the first one's result, nothing more.

        `send`: reserve the chat's next send with the move's save, for its redraw."""
        return await self._move(chat_id, user_id, game_id, action, update_key, send=send)

    async def tap_at(
        self, chat_id: int, user_id: int, game_id: int, action: Action, number: int
    ) -> TapResult:
        """Apply a move meant for the position after `number` actions (see `move_number`).

        The pair (game, number) is the move's delivery key: sent again, it gets the first
        answer and changes nothing. A move for an older position is STALE and changes
        nothing, so the sender can show the game as it is now. Only a move that changed the
        game keeps its key: after a refused one, the next move for that position goes ahead.
        """
        return await self._move(chat_id, user_id, game_id, action, f"w{game_id}:{number}", number)

    async def _move(
        self,
        chat_id: int,
        user_id: int,
        game_id: int,
        action: Action,
        update_key: str | None,
        number: int | None = None,
        *,
        send: SendAsk | None = None,
    ) -> TapResult:
        """Read the game, decide, and save onto the game as read: two statements. Should
        another process have moved the game in between, nothing was saved, and it goes again
        from the read; found unmoved, the move was over budget. `number`: the position the
        move is meant for (`tap_at`)."""
        now = self._clock()
        async with self._locks.moving(chat_id) as storage:
            result, unsaved = None, None
            while result is None:
                # This service's own last commit, while nothing else was written in the chat:
                # the saved game, without a read (none is kept when other processes write).
                stored = await (
                    self._first_read(chat_id, game_id) if unsaved is None else storage.game(game_id)
                )
                first = None
                if stored is not None:
                    kept = "\n".join((stored.taps, *self._idle_taps.get(game_id, ())))
                    first = first_tap(kept, update_key)
                if first is not None:
                    return TapResult(TapStatus.APPLIED, stored, engine.Outcome(first))
                refusal = self._refusal(stored, chat_id, user_id, now)
                if refusal is not None:
                    return refusal
                assert stored is not None
                if number is not None and move_number(stored) != number:
                    return TapResult(TapStatus.STALE, stored)
                if stored.revision == unsaved:  # nobody moved it: the budget said no
                    return TapResult(TapStatus.THROTTLED, stored)
                result = await self._apply(storage, stored, action, now, update_key, number, send)
                unsaved = stored.revision
        if result.changed and result.stored is not None:
            MOVES_APPLIED.inc()
            self._remember(result.stored, undone=action == "undo")
            self._moved[game_id] = (result, self._locks.generation(chat_id))
        return result

    async def _apply(
        self,
        storage: Storage,
        stored: StoredGame,
        action: Action,
        now: float,
        update_key: str | None,
        number: int | None,
        send: SendAsk | None,
    ) -> TapResult | None:
        """The engine's move on the game as read, saved with its key; None if the game
        changed since the read. A chat tap that changes nothing is kept for the next move's
        save; a Mini App move (`number`) that changes nothing leaves its position open."""
        before = stored.game
        turn = engine.act(before, action, now)
        idle = self._idle_taps.get(stored.id, ())
        if not turn.changed:
            if update_key is not None and number is None:
                line = tap_line(update_key, turn.outcome)
                self._idle_taps[stored.id] = (*idle, line)[-RECENT_TAPS:]
            return TapResult(TapStatus.APPLIED, stored, turn.outcome)
        after = turn.game
        new_play = not stored.played_counted and after.moves > 0
        played_counted = stored.played_counted or new_play
        mine = () if update_key is None else (tap_line(update_key, turn.outcome),)
        taps = with_taps(stored.taps, *idle, *mine)
        won = turn.outcome is engine.Outcome.WON
        saved = await storage.save_move(
            stored,
            after,
            now,
            played_counted=played_counted,
            action=action,
            taps=taps,
            new_play=new_play,
            new_win=won and not before.ever_won,
            won_now=after.win if won else None,
            budget=self._move_budget,
            send=send,
        )
        if saved is None:
            return None
        self._idle_taps.pop(stored.id, None)
        logged = None if stored.actions is None else stored.actions + engine.ACTION_CODES[action]
        return TapResult(
            TapStatus.APPLIED,
            replace(
                stored,
                game=after,
                played_counted=played_counted,
                shown_hint=None,
                actions=logged,
                taps=taps,
                revision=stored.revision + 1,
            ),
            turn.outcome,
            saved.best,
            saved.send,
        )

    async def own_game(self, chat_id: int, user_id: int, game_id: int) -> Access:
        """The game when this player may play it from this chat, else why not: as the tap's
        bookkeeping read it, if it did (`read_ahead`)."""
        stored = await self._first_read(chat_id, game_id)
        refusal = self._refusal(stored, chat_id, user_id, self._clock())
        return Access(refused=refusal) if refusal is not None else Access(stored)

    async def hint(
        self, chat_id: int, user_id: int, game_id: int, update_key: str | None = None
    ) -> HintResult:
        """Think about the game's position and show a direction on its board, if there is one.

        The search runs on a worker while taps go on; a hint for a position the game has left
        meanwhile is dropped (MOVED_ON). A hint already on the board is the answer for its
        position, without a second search.
        """
        access = await self.own_game(chat_id, user_id, game_id)
        stored = access.stored
        if stored is None:
            return HintResult(HintStatus.REFUSED, refused=access.refused)
        if stored.challenge_id is not None or stored.daily_id is not None:
            return HintResult(HintStatus.HINTS_OFF, stored)
        if stored.game.awaiting_choice:
            return HintResult(HintStatus.NOT_NOW, stored, engine.Outcome.AWAITING_CHOICE)
        if stored.game.over:
            return HintResult(HintStatus.NOT_NOW, stored, engine.Outcome.GAME_OVER)
        if stored.shown_hint is None:
            direction = await self._search(stored)
            if direction is None:
                return HintResult(HintStatus.NO_MOVE, stored)
            saved = await self.save_hint(stored, direction, update_key)
            if saved is None or saved.shown_hint is None:
                return HintResult(HintStatus.MOVED_ON, stored)
            stored = saved
        # A hint on the board already is the answer for its position, with nothing to save
        # (a repeated delivery of the tap that saved it gets the same).
        reason = explain(stored.game.board, stored.game.size, stored.shown_hint)  # type: ignore[arg-type]
        return HintResult(HintStatus.SHOWN, stored, reason=reason)

    async def _search(self, stored: StoredGame) -> str | None:
        assert self._hints is not None, "a GameService that gives hints is given a HintService"
        return await self._hints.suggest(stored.game.board, stored.game.size)

    async def save_hint(
        self, searched: StoredGame, direction: str, update_key: str | None = None
    ) -> StoredGame | None:
        """Keep the hint, unless the game moved on while the search ran (then it is stale).

        A repeated delivery counts no second hint: it gets the game with the hint the first
        one saved, while that is still on the board. Asking again before the next move
        counts none either: it is the same hint for the same position.
        """
        async with self._locks.writing(searched.chat_id) as storage:
            first = await claim(storage, update_key, self._clock())
            current = await storage.game(searched.id)
            if current is None or current.game != searched.game or not current.active:
                return None
            if first is not None:
                return current if current.shown_hint is not None else None
            if current.shown_hint is not None:  # asked again on the same position: one hint
                return current
            await storage.save_hint(current, direction)
            await record(storage, update_key, direction)
        return self._remember(
            replace(current, shown_hint=direction, hints_used=current.hints_used + 1)
        )
