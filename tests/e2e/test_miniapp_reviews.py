"""The review of a game in the Mini App, end to end: the chat's rules and the chat's place in
the picture queue, answered over the page's API with the costliest moves to step through.

A running challenge's or daily's entry gets a refusal and no position: those positions are
still to come for everyone else in it."""

from __future__ import annotations

import asyncio

import pytest

from bot.emulator.api import WAIT_TIMEOUT
from bot.presentation import reviews
from bot.presentation.i18n import translator
from bot.presentation.render import direction_name
from bot.services.workers import RENDERS_QUEUED, Busy
from engine.solver import review_game
from tests.e2e.test_miniapp import page
from tests.support.boards import buttons
from tests.support.databases import one_move_from_over
from tests.support.groups import GROUP, join
from tests.support.harness import User
from tests.support.miniapp import HeldReviews, game_id

CODES = {"l": "left", "r": "right", "u": "up", "d": "down"}
SEVERITY = {
    "en": {"Small slip", "Mistake", "Big mistake", "Could cost you the game"},
    "nl": {"Kleine misser", "Duidelijke fout", "Grote fout", "Brengt je spel in gevaar"},
    "de": {"Kleiner Patzer", "Klarer Fehler", "Schwerer Fehler", "Kann dein Spiel beenden"},
}


async def finished_on_the_page(webbot, http, user: User, seed: int, language: str = "en"):
    """The player's game played to its end from the page: its page, last state and log."""
    codes = await one_move_from_over(webbot.database, user.id, seed)
    await user.open_board()
    player_page = page(http, webbot, user.id, language=language)
    state = await player_page.post("open")
    state = await player_page.post(
        "move", game=state["game"], seq=state["seq"], action=CODES[codes[-1]]
    )
    assert state["over"]
    return player_page, state, codes


def no_positions(answer: dict) -> None:
    """A refusal: a text, and nothing of the game's positions."""
    assert answer["review"] is None and set(answer) == {"review", "toast"}
    assert answer["toast"]


@pytest.mark.parametrize("language", ["en", "nl", "de"])
async def test_a_finished_game_is_reviewed_with_its_three_costliest_moves_in_order(
    api, webbot, http, language
):
    anna = User(api, 101, "Anna", language)
    anna_page, state, codes = await finished_on_the_page(webbot, http, anna, 5, language)
    t = translator(language)
    answer = await anna_page.post("review", game=state["game"], seq=state["seq"])
    expected = review_game(4, 5, codes)
    assert len(expected.costliest) == 3
    costs = sorted(expected.costliest, key=lambda cost: cost.number)
    shown = answer["review"]
    assert shown["size"] == 4
    assert [move["number"] for move in shown["moves"]] == [cost.number for cost in costs]
    assert [move["number"] for move in shown["moves"]] == sorted(
        move["number"] for move in shown["moves"]
    )
    for move, cost in zip(shown["moves"], costs, strict=True):
        # The position the move was played on, the move as the log has it, the better one.
        assert move["board"] == list(cost.board)
        assert move["played"] == CODES[codes[cost.number - 1]] == cost.played
        assert move["best"] == cost.best != cost.played
        assert move["cost"] in SEVERITY[language]
        assert move["cost"] == reviews.cost(t, 4, cost.loss)
        assert move["title"] == reviews.move_title(t, cost.number)
        assert move["yours"] == reviews.your_move(t, cost.played)
        assert move["better"] == reviews.better_move(t, cost.best)
        assert direction_name(t, cost.best) in move["better"]
    assert answer["toast"] == shown["totals"] == reviews.totals(t, expected)
    # The same review again, from memory; and the menu button's page (no game named) finds
    # the same finished game, as /review does.
    assert await anna_page.post("review", game=state["game"], seq=state["seq"]) == answer
    assert await anna_page.post("review") == answer


async def test_someone_elses_game_and_no_game_are_refused(api, webbot, http):
    anna, carl = User(api, 101, "Anna"), User(api, 303, "Carl")
    _, state, _ = await finished_on_the_page(webbot, http, anna, 5)
    carl_page = page(http, webbot, 303)
    await carl.send("/help")  # a player who has never played
    mine = await carl_page.post("review")
    no_positions(mine)
    assert mine["toast"] == "You have no finished game to review yet. /new starts one."
    theirs = await carl_page.post("review", game=state["game"], seq=state["seq"])
    no_positions(theirs)
    assert theirs["toast"] == "Only the person who played this game can review it."
    # Anna's own game, as it stood before its last move: the page is out of date.
    stale = await page(http, webbot, 101).post("review", game=state["game"], seq=state["seq"] - 1)
    no_positions(stale)
    assert stale["toast"].startswith("This button no longer works")
    await carl_page.post("review", 400, game=state["game"])  # a game needs its number


async def test_a_running_challenges_entry_is_refused_without_positions(api, webbot, http):
    anna, bob = User(api, 101, "Anna"), User(api, 202, "Bob")
    api.add_group(GROUP, "2048 Club", admins={anna.id})
    api.send_text(anna.id, GROUP, "/challenge 4 2h")
    sent = await api.wait_request("sendMessage", chat_id=GROUP)
    link = buttons(api.stored_message(GROUP, sent.result["message_id"]))["▶️ Play"]
    board = await join(api, bob, link)
    bob_page = page(http, webbot, 202)
    state = await bob_page.post("open", game=game_id(board))
    for direction in CODES.values():
        state = await bob_page.post("move", game=state["game"], seq=state["seq"], action=direction)
        if state["outcome"] == "moved":
            break
    for body in ({"game": state["game"], "seq": state["seq"]}, {}):
        answer = await bob_page.post("review", **body)
        no_positions(answer)
        assert answer["toast"].startswith(
            "This game is part of a running challenge. Send /review again once it ends ("
        )


async def test_a_running_dailys_entry_is_refused_without_positions(api, webbot, http):
    anna = User(api, 101, "Anna", "de")
    await anna.send("/daily", replies=2)
    anna_page = page(http, webbot, 101, language="de")
    state = await anna_page.post("open", game=game_id(anna.board()))
    assert state["hints"] is False
    for direction in CODES.values():
        state = await anna_page.post("move", game=state["game"], seq=state["seq"], action=direction)
        if state["outcome"] == "moved":
            break
    for body in ({"game": state["game"], "seq": state["seq"]}, {}):
        answer = await anna_page.post("review", **body)
        no_positions(answer)
        assert answer["toast"].startswith("Dein Tagesrätsel läuft noch: Schick /review noch einmal")


async def test_the_players_other_calls_are_answered_while_their_review_is_made(
    api, webbot, http, monkeypatch
):
    anna = User(api, 101, "Anna", "nl")
    anna_page, state, _ = await finished_on_the_page(webbot, http, anna, 5, "nl")
    held = HeldReviews(webbot, monkeypatch)
    reviewing = asyncio.create_task(anna_page.post("review", game=state["game"], seq=state["seq"]))
    await asyncio.wait_for(held.asked.wait(), WAIT_TIMEOUT)

    async def answered(name: str, **body) -> dict:
        return await asyncio.wait_for(anna_page.post(name, **body), WAIT_TIMEOUT)

    # The page's state, a new game on another board and a move on it, all before the review.
    assert (await answered("open", game=state["game"]))["over"]
    started = await answered("new", game=state["game"], size=5)
    assert started["size"] == 5 and started["game"] != state["game"]
    moved = None
    for direction in CODES.values():
        moved = await answered("move", game=started["game"], seq=0, action=direction)
        if moved["outcome"] == "moved":
            break
    assert moved is not None and moved["seq"] == 1
    # Still one review at a time: another tap meanwhile is told it is on its way.
    again = await answered("review", game=state["game"], seq=state["seq"])
    no_positions(again)
    assert again["toast"] == "Je analyse komt eraan."
    assert not reviewing.done()
    held.released.set()
    answer = await asyncio.wait_for(reviewing, WAIT_TIMEOUT)
    assert len(answer["review"]["moves"]) == 3
    # Kept: the same review again, with nothing held, as the page had it.
    assert await answered("review", game=state["game"], seq=state["seq"]) == answer


async def test_a_review_being_made_for_the_chat_is_on_its_way(api, webbot, http):
    anna = User(api, 101, "Anna", "de")
    anna_page, state, _ = await finished_on_the_page(webbot, http, anna, 5, "de")
    held = api.hold_next("sendPhoto")
    api.send_text(anna.id, anna.id, "/review")
    await asyncio.wait_for(held.arrived.wait(), WAIT_TIMEOUT)  # made, drawn, not yet sent
    busy = await anna_page.post("review", game=state["game"], seq=state["seq"])
    no_positions(busy)
    assert busy["toast"] == "Deine Analyse ist unterwegs."
    held.release()
    await api.wait_request("sendPhoto", chat_id=anna.id, timeout=60)

    async def chat_done() -> None:  # the chat's review gives its place back once sent
        while True:
            try:
                webbot.process.runtime.reviews.claim(anna.id).release()
                return
            except Busy:
                await asyncio.sleep(0.01)

    await asyncio.wait_for(chat_done(), WAIT_TIMEOUT)
    answer = await anna_page.post("review", game=state["game"], seq=state["seq"])
    assert len(answer["review"]["moves"]) == 3


async def test_a_full_picture_queue_is_said_at_once(api, webbot, http):
    anna = User(api, 101, "Anna", "nl")
    anna_page, state, _ = await finished_on_the_page(webbot, http, anna, 5, "nl")
    workers = webbot.process.runtime.workers
    drawing = [workers.claim(f"card:{n}") for n in range(RENDERS_QUEUED)]  # others' pictures
    crowded = await anna_page.post("review", game=state["game"], seq=state["seq"])
    no_positions(crowded)
    assert crowded["toast"] == translator("nl")._(
        "I'm drawing a lot of pictures right now. Try again in a minute."
    )
    for slot in drawing:
        slot.release()
    answer = await anna_page.post("review", game=state["game"], seq=state["seq"])
    assert len(answer["review"]["moves"]) == 3
