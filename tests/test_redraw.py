"""The Redrawer: one edit at a time per chat, always with the newest request."""

from __future__ import annotations

import asyncio

from bot.delivery.redraw import Redrawer


async def test_requests_made_while_an_edit_is_on_its_way_coalesce_into_one_more_edit():
    redrawer = Redrawer(interval=0)
    drawn: list[str] = []
    edit_on_its_way = asyncio.Event()

    def draw(name: str):
        async def run() -> None:
            drawn.append(name)
            if name == "first":
                await edit_on_its_way.wait()

        return run

    redrawer.request(1, 10, draw("first"))
    await asyncio.sleep(0)
    for name in ("second", "third"):
        redrawer.request(1, 10, draw(name))
    edit_on_its_way.set()
    await redrawer.drain(timeout=1)
    assert drawn == ["first", "third"]


async def test_a_draw_asking_to_run_again_keeps_a_newer_waiting_request():
    redrawer = Redrawer(interval=0)
    drawn: list[str] = []

    async def stale() -> None:
        drawn.append("stale")
        redrawer.request(1, 10, newer)  # a tap came in while this edit was on its way
        redrawer.request(1, 10, stale_again, replace=False)

    async def newer() -> None:
        drawn.append("newer")

    async def stale_again() -> None:
        drawn.append("stale again")

    redrawer.request(1, 10, stale)
    await redrawer.drain(timeout=1)
    assert drawn == ["stale", "newer"]
