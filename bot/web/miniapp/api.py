"""The Mini App's JSON API: every call proves who sends it, then makes one service call.

Each call is a POST whose `Authorization: tma <initData>` header carries the page's initData
(see initdata.py), and whose small JSON body says what to do. Who asks is settled from the
headers alone, cheapest check first, before a byte of the body is read: the user the initData
claims must have requests left (`claims`, a bucket keyed by the unverified id), then the HMAC
must prove the claim, then the player's taps must have one left: this process's bucket, then
(on a shared database) the one every process spends, in the statement that reads the player
for the call anyway. A peer without credentials costs a header parse, and loses its
connection; one player's flood is refused before it costs a hash, a body or a database read
(a statement, when its taps run out in other processes), each refusal sent only once the
page may send again (so a connection carries one refused call a second), and what their
budget lets through is answered one call at a time, beside everyone else's calls (a review
gives its turn up while the picture pool makes it). The body then has `BODY_TIMEOUT` to
arrive.

What comes back is the game as committed, so the page always draws what the database holds:

- 400 for a body that is not what the API takes, whatever its shape, depth or types; 413 for
  one over `MAX_BODY` bytes, 408 for one slower than `BODY_TIMEOUT`;
- 401 for initData that proves nothing, 403 for another player's game or a game outside the
  player's private chat, 404 for no such game;
- 429 (with Retry-After) once the player's taps, which chat and page share, run out.

Nothing here knows Telegram's handlers: what the chat must see after a call (the board
redrawn through the pacer, the card sent) is done by the `Chat` the bot hands in.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from operator import attrgetter
from pathlib import Path
from typing import Any, Protocol

from aiohttp import web

import engine
from bot.chat.reviews import refusal
from bot.config import DEFAULT_INITDATA_MAX_AGE, MINIAPP_PATH
from bot.models import Action, Player, StoredGame
from bot.outcomes import HintStatus, TapResult, TapStatus
from bot.presentation import captions, miniapp, reviews, toasts
from bot.presentation.i18n import resolve_language, translator
from bot.services.games import GameService, move_number
from bot.services.players import PlayerService
from bot.services.reviews import ReviewService
from bot.services.workers import Busy, Crowded
from bot.transport.throttle import Throttle, spend_here
from bot.web.miniapp.initdata import InitDataError, WebAppUser, check, read
from bot.web.server import BodyRefused, RouteSet, read_body, verified
from bot.wiring import TAP_BURST, TAPS_PER_SECOND

STATIC = Path(__file__).parent / "static"
# The largest body the page sends is a move: a few short fields.
MAX_BODY = 1024
# Seconds the whole body may take to arrive once its headers have: it fits in one packet.
BODY_TIMEOUT = 1.0
# `Authorization: tma <initData>`, the scheme Mini Apps send their initData under.
AUTH_SCHEME = "tma "
# Requests per claimed user before the HMAC: twice the taps' budget, so a player's own calls
# always meet their taps' bucket first, and a forger naming them locks out no chat button.
CLAIMS_PER_SECOND = 2 * TAPS_PER_SECOND
CLAIM_BURST = 2 * TAP_BURST
ACTIONS: frozenset[str] = frozenset(engine.ACTION_CODES)
# Seconds a throttled page waits before it sends again (a bucket refills a tap in 0.1 s).
RETRY_AFTER = 1


class Chat(Protocol):
    """What the chat shows of the page's game: its board message, and the shared card."""

    async def redraw(self, stored: StoredGame, language: str) -> None:
        """Bring the game's board message up to date, paced and coalesced."""

    async def moved(self, result: TapResult, language: str) -> None:
        """After a committed move: the redraw, and what else a tap would update."""

    async def share(self, stored: StoredGame, language: str) -> bool:
        """Send the game's card into its chat; False if there is nothing to show yet."""

    async def prepare(self, stored: StoredGame, language: str) -> tuple[str | None, str]:
        """The card as a message the player may send anywhere: its id, or None and why not."""


@dataclass
class MiniApp:
    """What the API works with: the bot's own services and throttles, and its token."""

    token: str
    games: GameService
    players: PlayerService
    reviews: ReviewService
    throttle: Throttle  # taps per user, the same buckets as the chat's buttons
    hint_throttle: Throttle
    chat: Chat
    max_age: float = DEFAULT_INITDATA_MAX_AGE
    clock: Callable[[], float] = field(default=time.time)
    # Requests per user the initData claims, counted before the claim is checked.
    claims: Throttle = field(
        default_factory=lambda: Throttle(rate=CLAIMS_PER_SECOND, burst=CLAIM_BURST)
    )


class Refused(Exception):
    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


def _refused(status: int, reason: str) -> web.Response:
    """The refusal as JSON; a sender who proves nothing also loses the connection, its body
    unread, so each guess costs a new connection."""
    headers = {"Retry-After": str(RETRY_AFTER)} if status == 429 else None
    response = web.json_response({"error": reason}, status=status, headers=headers)
    if status == 401:
        response.force_close()
    return response


def parse_body(raw: bytes) -> dict[str, Any]:
    """The body as a JSON object; Refused(400) for anything else, however deep or odd."""
    try:
        body = json.loads(raw)
    except (ValueError, RecursionError) as error:  # UnicodeDecodeError is a ValueError
        raise Refused(400, "not_json") from error
    if not isinstance(body, dict):
        raise Refused(400, "not_an_object")
    return body


def _init_data(request: web.Request) -> str:
    header = request.headers.get("Authorization", "")
    return header[len(AUTH_SCHEME) :] if header.startswith(AUTH_SCHEME) else ""


def _integer(body: dict[str, Any], name: str, *, optional: bool = False) -> int | None:
    value = body.get(name)
    if value is None and optional:
        return None
    if type(value) is not int or not 0 <= value < 1 << 63:
        raise Refused(400, f"bad_{name}")
    return value


@dataclass(frozen=True, slots=True)
class Call:
    """A verified request: who sent it, in which language, and its body; `leave_turn` lets
    the player's next call in before this one is answered (see `Api._turn`)."""

    user: WebAppUser
    language: str
    body: dict[str, Any]
    leave_turn: Callable[[], None]
    allowed: bool  # the call's own throttle, if it has one, let it through (`Api.handler`)


@dataclass(slots=True)
class _Turn:
    """A player's calls: the one being answered holds `lock`, the rest wait for it."""

    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    callers: int = 0


class Api:
    def __init__(self, app: MiniApp) -> None:
        self.app = app
        self._turns: dict[int, _Turn] = {}

    async def _sender(
        self, request: web.Request, also: Throttle | None
    ) -> tuple[WebAppUser, Player, bool]:
        """Who sends the request, from its headers alone, cheapest check first; then their
        tap spent (this process's bucket, then the one all processes share), which reads
        the player the call needs anyway, and spends the call's own throttle `also` (a
        hint's) in the same statement: whether it allowed the call comes last."""
        app = self.app
        try:
            claim = read(_init_data(request))
            if not app.claims.allow(claim.user.id):
                raise Refused(429, "too_many")
            user = check(claim, app.token, app.clock(), app.max_age)
        except InitDataError as error:
            raise Refused(401, "unauthorized") from error
        if not app.throttle.allow(user.id):
            raise Refused(429, "too_many")
        own = None if also is None else spend_here((also, user.id))
        seen = await app.players.spend_tap(user.id, user.id, also=own or ())
        if seen is None:
            raise Refused(429, "too_many")
        verified(request)
        return user, seen.player, also is None or (own is not None and seen.throttled_in)

    async def _call(
        self,
        request: web.Request,
        user: WebAppUser,
        player: Player,
        leave: Callable[[], None],
        allowed: bool,
    ) -> Call:
        body = parse_body(await read_body(request, MAX_BODY, BODY_TIMEOUT))
        language = resolve_language(player.language, user.language_code)
        return Call(user, language, body, leave, allowed)

    @contextlib.asynccontextmanager
    async def _turn(self, user_id: int) -> AsyncIterator[Callable[[], None]]:
        """One call of each player at a time: a burst of one player's calls is worked through
        in turn, beside everyone else's, never all at once ahead of them. What it yields
        gives the turn up early, for a call left waiting on the picture pool alone."""
        turn = self._turns.get(user_id)
        if turn is None:
            turn = self._turns[user_id] = _Turn()
        turn.callers += 1
        try:
            await turn.lock.acquire()
            held = True

            def leave() -> None:
                nonlocal held
                if held:
                    held = False
                    turn.lock.release()

            try:
                yield leave
            finally:
                leave()
        finally:
            turn.callers -= 1
            if not turn.callers:
                del self._turns[user_id]

    async def _game(self, call: Call) -> StoredGame:
        stored = await self._chosen(call)
        if stored is None:
            raise Refused(404, "no_game")
        return stored

    async def _chosen(self, call: Call) -> StoredGame | None:
        """The game the call names, or without one (the menu button) the player's running
        game in their private chat, None if there is none: opening the page starts nothing."""
        game_id = _integer(call.body, "game", optional=True)
        if game_id is None:
            return await self.app.games.current(call.user.id, call.user.id)
        stored = await self.app.games.saved(game_id)
        if stored is None:
            raise Refused(404, "no_such_game")
        if stored.owner_id != call.user.id:
            raise Refused(403, "not_yours")
        if stored.chat_id != call.user.id:  # a group's board is played in the group alone
            raise Refused(403, "not_private")
        return stored

    async def _state(
        self, stored: StoredGame, language: str, result: TapResult | None = None
    ) -> dict[str, Any]:
        best = await self.app.games.best_score(stored.owner_id, stored.game.size)
        state = miniapp.state(translator(language), stored, best, move_number(stored))
        if result is not None:
            state["status"] = str(result.status)
            state["outcome"] = None if result.outcome is None else str(result.outcome)
            t = translator(language)
            old = result.status is TapStatus.OLD_GAME
            state["toast"] = miniapp.old_game_toast(t) if old else toasts.tap_toast(t, result)
        return state

    def handler(
        self,
        work: Callable[[Call], Awaitable[dict[str, Any]]],
        also: Callable[[MiniApp], Throttle] | None = None,
    ) -> Callable[[web.Request], Awaitable[web.Response]]:
        """`also`: the call's own throttle beside the taps' (`Call.allowed`), as the Mini
        App has it when the call comes."""

        async def handle(request: web.Request) -> web.Response:
            try:
                own = None if also is None else also(self.app)
                user, player, allowed = await self._sender(request, own)
                async with self._turn(user.id) as leave:
                    call = await self._call(request, user, player, leave, allowed)
                    return web.json_response(await work(call))
            except Refused as refused:
                if refused.status in (401, 429):
                    # Answered when the page may send again: a connection carries at most one
                    # refused call a RETRY_AFTER, however fast a script sends on it, and a
                    # peer without credentials comes back at most that often. Meanwhile its
                    # connection is the first to go when the server needs room.
                    await asyncio.sleep(RETRY_AFTER)
                return _refused(refused.status, refused.reason)
            except BodyRefused as refused:
                return refused.response

        return handle

    async def open(self, call: Call) -> dict[str, Any]:
        """The game, or the sizes to start one, and the language the page speaks."""
        stored = await self._chosen(call)
        if stored is None:
            best = await self.app.games.best_score(call.user.id, engine.SIZES[0])
            state = miniapp.no_game(translator(call.language), best)
        else:
            state = await self._state(stored, call.language)
        state["language"] = call.language
        return state

    async def move(self, call: Call) -> dict[str, Any]:
        action = call.body.get("action")
        if not isinstance(action, str) or action not in ACTIONS:
            raise Refused(400, "bad_action")
        number = _integer(call.body, "seq")
        assert number is not None
        chosen: Action = action  # type: ignore[assignment]
        stored = await self._game(call)
        result = await self.app.games.tap_at(
            stored.chat_id, call.user.id, stored.id, chosen, number
        )
        return await self._answer(call, stored, result)

    async def _answer(self, call: Call, stored: StoredGame, result: TapResult) -> dict[str, Any]:
        if result.changed and result.stored is not None:
            await self.app.chat.moved(result, call.language)
        latest = result.stored or await self.app.games.saved(stored.id) or stored
        return await self._state(latest, call.language, result)

    async def hint(self, call: Call) -> dict[str, Any]:
        """The hinted move (`hint`, a direction) and its reason (`reason`, a clause or None),
        for the page's arrow; its toast is the chat's sentence, which a screen reader hears."""
        stored = await self._game(call)
        app = self.app
        if not call.allowed:
            raise Refused(429, "too_many_hints")
        result = await app.games.hint(stored.chat_id, call.user.id, stored.id)
        shown = result.stored or stored
        if result.status is HintStatus.SHOWN:
            await app.chat.redraw(shown, call.language)
        state = await self._state(shown, call.language)
        t = translator(call.language)
        state["toast"] = toasts.hint_toast(t, result)
        # The clause the page writes beside its arrow: the chat's own words for the reason.
        reason = result.reason if result.status is HintStatus.SHOWN else None
        state["reason"] = None if reason is None else toasts.hint_reason(t, reason)
        return state

    async def review(self, call: Call) -> dict[str, Any]:
        """The review of the page's game (`game`, as the page saw it at `seq`), or without
        one the player's latest finished game, as /review finds it: by the chat's own rules
        and in the same place of the picture queue, made while the call waits. `review` is
        None, and `toast` says why, when there is nothing to show now.

        Once its place is claimed the call gives up the player's turn: the review takes a
        second or more in the picture pool, and the player's other calls (their state, a
        move, a new game) are answered meanwhile. The place keeps them to one review at a
        time, as the turn would have."""
        app = self.app
        t = translator(call.language)
        game_id = _integer(call.body, "game", optional=True)
        if game_id is None:
            access = await app.reviews.latest(call.user.id)
        else:
            seq = _integer(call.body, "seq")
            assert seq is not None
            access = await app.reviews.tapped(call.user.id, game_id, seq)
        refused = await refusal(t, access, app.players, app.reviews.now())
        if refused is not None:
            return {"review": None, "toast": refused}
        assert access.stored is not None
        try:
            with app.reviews.claim(call.user.id):
                call.leave_turn()
                made = await app.reviews.review(access.stored)
        except Busy:  # being made for the chat, here or in another process
            return {"review": None, "toast": reviews.on_its_way(t)}
        except Crowded:
            return {"review": None, "toast": captions.crowded(t)}
        return {"review": miniapp.review(t, made), "toast": reviews.totals(t, made)}

    async def new(self, call: Call) -> dict[str, Any]:
        """A new game where the page's game is, or in the player's private chat when the
        page has none; sent again, it is the same new game, and a size asked for while an
        unplayed game of that size runs keeps that game."""
        size = _integer(call.body, "size")
        if size not in engine.SIZES:
            raise Refused(400, "bad_size")
        if _integer(call.body, "game", optional=True) is None:
            started = await self.app.games.start(
                call.user.id, call.user.id, size, keep_unplayed=True
            )
        else:
            stored = await self._game(call)
            delivery = f"wn{stored.id}:{move_number(stored)}"
            started = await self.app.games.start(
                stored.chat_id, call.user.id, size, delivery, keep_unplayed=True
            )
        await self.app.chat.redraw(started, call.language)
        return await self._state(started, call.language)

    async def share(self, call: Call) -> dict[str, Any]:
        """The card into the game's chat; with `prepare`, for a client that shares it to any
        chat itself, the prepared message's id instead."""
        stored = await self._game(call)
        state = await self._state(stored, call.language)
        if call.body.get("prepare") is True:
            state["prepared"], state["toast"] = await self.app.chat.prepare(stored, call.language)
            return state
        shared = await self.app.chat.share(stored, call.language)
        state["toast"] = miniapp.share_toast(translator(call.language), shared)
        return state


# The page loads its own files and Telegram's script, and talks to its own server only; no
# inline script runs (the texts that come with the page are JSON, which is never run).
# Styles may be inline because Telegram's script, in Telegram Web's frame, adds a <style>
# element that Telegram Web fills with its own rules: refused, every launch logs a policy
# error and Telegram Web's style never applies. A style can run no script, and what it could
# load is held to this origin by img-src and default-src. Telegram's web clients show Mini
# Apps in a frame, so framing is left to them.
PAGE_HEADERS = {
    "Cache-Control": "no-cache",
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self' https://telegram.org; "
        "style-src 'self' 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; "
        "base-uri 'none'; form-action 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


def page_html() -> bytes:
    """index.html with every language's texts in it, as JSON the page reads before its first
    call: `</` is escaped so that no text can end the element early."""
    catalog = json.dumps(miniapp.page_catalog(), ensure_ascii=False, separators=(",", ":"))
    block = '<script type="application/json" id="catalog">' + catalog.replace("</", "<\\/")
    html = (STATIC / "index.html").read_text(encoding="utf-8")
    return html.replace('<script type="application/json" id="catalog">', block, 1).encode()


def miniapp_routes(app: MiniApp, prefix: str = MINIAPP_PATH) -> RouteSet:
    """The page at `prefix`/, its files at `prefix`/static/, its API at `prefix`/api/."""
    api = Api(app)
    calls = {"open": api.open, "move": api.move, "hint": api.hint, "new": api.new}
    calls |= {"share": api.share, "review": api.review}
    # A call's own throttle, as the Mini App has it then, spent with the call's tap.
    throttles: dict[str, Callable[[MiniApp], Throttle]] = {"hint": attrgetter("hint_throttle")}

    page = page_html()

    async def index(request: web.Request) -> web.Response:
        return web.Response(
            body=page, content_type="text/html", charset="utf-8", headers=PAGE_HEADERS
        )

    def register(server: web.Application) -> None:
        server.router.add_get(f"{prefix}/", index)
        server.router.add_static(f"{prefix}/static", STATIC)
        for name, work in calls.items():
            server.router.add_post(f"{prefix}/api/{name}", api.handler(work, throttles.get(name)))

    return register
