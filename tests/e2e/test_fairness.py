"""Commit, then reveal: a challenge's card publishes its seed's commitment, nothing of the
seed reaches a chat or the Mini App while it runs, and the final card reveals what anyone
needs to check the commitment."""

from __future__ import annotations

import json
import re

import engine
from bot.config import MINIAPP_PATH
from tests.support.boards import buttons
from tests.support.groups import GROUP, end_challenge_soon, join, open_challenges
from tests.support.miniapp import authorization, game_id, init_data

COMMITMENT = re.compile(r"\b[0-9a-f]{64}\b")


async def test_a_challenge_commits_to_its_seed_and_reveals_it_at_the_end(api, webbot, http, club):
    anna, bob = club
    api.send_text(anna.id, GROUP, "/challenge 4 2h")
    sent = await api.wait_request("sendMessage", chat_id=GROUP)
    card = api.stored_message(GROUP, sent.result["message_id"])
    (challenge,) = await open_challenges(webbot.database)
    assert challenge.salt is not None and challenge.commitment is not None
    assert COMMITMENT.findall(card.text) == [challenge.commitment]
    subject = f"challenge:{challenge.token}"
    assert challenge.commitment == engine.commitment(
        challenge.salt, challenge.seed, challenge.size, subject
    )

    board = await join(api, bob, buttons(card)["▶️ Play"])
    calls = f"{webbot.web_base}{MINIAPP_PATH}/api"
    signed_in = authorization(init_data(api.token, bob.id))
    async with http.post(f"{calls}/open", json={"game": game_id(board)}, headers=signed_in) as sent:
        answers = [await sent.json()]
    move = {"game": answers[0]["game"], "seq": answers[0]["seq"]}
    for action in ("left", "up", "right", "down"):
        async with http.post(
            f"{calls}/move", json={**move, "action": action}, headers=signed_in
        ) as sent:
            answers.append(await sent.json())
        move["seq"] = answers[-1]["seq"]
    seen = [json.dumps(answer) for answer in answers] + [
        message["text"] for chat in (GROUP, bob.id) for message in api.messages(chat)
    ]
    for secret in (str(challenge.seed), challenge.salt):
        assert not any(secret in text for text in seen)  # nothing of the future leaves
    (waiting,) = await bob.send("/record")
    assert waiting.startswith("Deze uitdaging loopt nog: de seed wordt onthuld")  # Bob's Dutch
    (elsewhere,) = await bob.send("/record", chat_id=GROUP)
    assert "privéchat" in elsewhere

    await end_challenge_soon(webbot.database, 0.5)
    await webbot.restart()
    final = await api.wait_request(
        "editMessageText",
        chat_id=GROUP,
        message_id=card.message_id,
        text=lambda text: "Final standings" in text,
    )
    shown = final.params["text"]
    assert f"<code>{challenge.seed}</code>" in shown and f"<code>{challenge.salt}</code>" in shown
    assert challenge.commitment in shown

    mark = api.mark()
    api.send_text(bob.id, bob.id, "/record")
    sent = await api.wait_request("sendDocument", after=mark, chat_id=bob.id)
    document = api.stored_message(bob.id, sent.result["message_id"]).media["document"]
    record = json.loads(api.file_bytes(document["file_id"]))
    assert record["commitment"] == challenge.commitment and record["subject"] == subject
    assert engine.verify(record).holds
