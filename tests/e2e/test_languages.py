"""Your language everywhere: one moment reads the same on every clock line, its zone named as
each language writes it. (Duel results, sent outside an update: tests/test_duels.py.)"""

from __future__ import annotations

import re

import pytest

from tests.support.boards import buttons
from tests.support.harness import User

pytestmark = pytest.mark.usefixtures("no_errors_logged")

GROUP = -100500600


def _zone(text: str) -> str:
    match = re.search(r"\d\d:\d\d (?:Uhr )?(\S+?)[.)]?(?:\s|$)", text)
    assert match is not None, text
    return match.group(1)


async def test_a_challenge_end_names_its_zone_alike_on_the_card_and_in_a_join(api, bot):
    daan = User(api, 202, "Daan", "nl")
    anna = User(api, 101, "Anna", "en")
    api.add_group(GROUP, "Klub", admins={daan.id}, members={anna.id})
    api.send_text(daan.id, GROUP, "/challenge")
    sent = await api.wait_request("sendMessage", chat_id=GROUP)
    card = api.stored_message(GROUP, sent.result["message_id"])
    link = next(url for url in buttons(card).values() if "start=" in url)
    joined, _ = await anna.send(f"/start {link.split('start=')[1]}", replies=2)
    assert _zone(card.text) in ("CET", "CEST")
    assert _zone(joined) == _zone(card.text)
