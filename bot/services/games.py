"""The game service: where a tap becomes a committed game, with the player's records.

A tap in the chat and a move in the Mini App each make one call here. Each call that writes
takes the chat's lock and one transaction (`ChatLocks.writing`) and commits before it returns,
so the board drawn afterwards is always one the database already holds; what a move owes
beyond its board comes back in its result (`TapResult.effects`) for the chat to show. Calls
that a redelivered update would repeat take its key (`update_key`, see
bot/services/redelivery.py) and apply once.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, MutableMapping
from dataclasses import replace

import engine
from bot.metrics import GAMES_STARTED, MOVES_APPLIED
from bot.models import Action, StoredGame
from bot.outcomes import Access, HintResult, HintStatus, TapResult, TapStatus
from bot.services.cache import CacheFactory, recent_cache
from bot.services.hints import HintService
from bot.services.locks import ChatLocks
from bot.services.redelivery import claim, record
from bot.storage import Storage
from engine.solver.reasons import explain


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
    ) -> None:
        """`copies` makes the caches of saved state: none when other processes write too."""
        self.storage = storage
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
    ) -> TapResult:
        """Apply one tap; a repeated delivery of it gets the first one's result, nothing more."""
        now = self._clock()
        async with self._locks.writing(chat_id) as storage:
            first = await claim(storage, update_key, now)
            if first is not None:
                return TapResult.decode(first.outcome, await storage.game(game_id))
            result = await self._tap(storage, chat_id, user_id, game_id, action, now)
            await record(storage, update_key, result.encode())
        if result.changed and result.stored is not None:
            MOVES_APPLIED.inc()
            self._remember(result.stored, undone=action == "undo")
        return result

    async def tap_at(
        self, chat_id: int, user_id: int, game_id: int, action: Action, number: int
    ) -> TapResult:
        """Apply a move meant for the position after `number` actions (see `move_number`).

        The pair (game, number) is the move's delivery key: sent again, it gets the first
        answer and changes nothing. A move for an older position is STALE and changes
        nothing, so the sender can show the game as it is now. Only a move that changed the
        game keeps its key: after a refused one, the next move for that position goes ahead.
        """
        now = self._clock()
        update_key = f"w{game_id}:{number}"
        async with self._locks.writing(chat_id) as storage:
            first = await claim(storage, update_key, now)
            if first is not None:
                return TapResult.decode(first.outcome, await storage.game(game_id))
            stored = await storage.game(game_id)
            if stored is not None and move_number(stored) != number:
                result = self._refusal(stored, chat_id, user_id, now)
                result = result or TapResult(TapStatus.STALE, stored)
            else:
                result = await self._tap(storage, chat_id, user_id, game_id, action, now)
            if result.changed:
                await record(storage, update_key, result.encode())
            else:
                await storage.forget_delivery(update_key)
        if result.changed and result.stored is not None:
            MOVES_APPLIED.inc()
            self._remember(result.stored, undone=action == "undo")
        return result

    async def _tap(
        self,
        storage: Storage,
        chat_id: int,
        user_id: int,
        game_id: int,
        action: Action,
        now: float,
    ) -> TapResult:
        stored = await storage.game(game_id)
        refusal = self._refusal(stored, chat_id, user_id, now)
        if refusal is not None:
            return refusal
        assert stored is not None
        before = stored.game
        turn = engine.act(before, action, now)
        if not turn.changed:
            return TapResult(TapStatus.APPLIED, stored, turn.outcome)
        after = turn.game
        new_play = not stored.played_counted and after.moves > 0
        played_counted = stored.played_counted or new_play
        await storage.update_game(stored, after, now, played_counted=played_counted, action=action)
        won = turn.outcome is engine.Outcome.WON
        await storage.add_to_records(
            stored.owner_id,
            after,
            new_play=new_play,
            new_win=won and not before.ever_won,
            won_now=after.win if won else None,
        )
        logged = None if stored.actions is None else stored.actions + engine.ACTION_CODES[action]
        return TapResult(
            TapStatus.APPLIED,
            replace(
                stored, game=after, played_counted=played_counted, shown_hint=None, actions=logged
            ),
            turn.outcome,
        )

    async def own_game(self, chat_id: int, user_id: int, game_id: int) -> Access:
        """The game when this player may play it from this chat, else why not."""
        stored = await self.storage.game(game_id)
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
        direction = stored.shown_hint or await self._search(stored)
        if direction is None:
            return HintResult(HintStatus.NO_MOVE, stored)
        saved = await self.save_hint(stored, direction, update_key)
        if saved is None or saved.shown_hint is None:
            return HintResult(HintStatus.MOVED_ON, stored)
        reason = explain(saved.game.board, saved.game.size, saved.shown_hint)  # type: ignore[arg-type]
        return HintResult(HintStatus.SHOWN, saved, reason=reason)

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
